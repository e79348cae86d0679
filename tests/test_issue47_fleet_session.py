"""Issue 47: the fleet's fast way runs its engine through the --host session
(core/ssh/session.py), and fleet's and the session's code is small named
steps. The flows themselves (real sshd servers) are the fleet and host
tests'; these check the shape and the pieces the two now share."""
from __future__ import annotations

import ast
import asyncio
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parent.parent / "src" / "ctxbench"


def _functions(folder: str):
    for path in sorted((SRC / folder).rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield path, node


def test_the_fast_way_uses_no_private_name_of_core_ssh():
    tree = ast.parse((SRC / "fleet" / "remote.py").read_text())
    private = [f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
               and (n.module or "").startswith("ctxbench.core.ssh") for a in n.names if a.name.startswith("_")]
    assert private == []
    text = (SRC / "fleet" / "remote.py").read_text()
    assert "create_process" not in text and "asyncssh.connect" not in text  # no SSH of its own


@pytest.mark.parametrize("folder", ["fleet", "core/ssh"])
def test_no_function_is_over_80_lines_and_none_keeps_state_in_a_closure(folder):
    long = [(p.name, f.name) for p, f in _functions(folder) if f.end_lineno - f.lineno + 1 > 80]
    assert long == []
    closures = [(p.name, f.name) for p, f in _functions(folder) for n in ast.walk(f) if isinstance(n, ast.Nonlocal)]
    assert closures == []


def test_no_nested_function_redirects_stdout():
    for path, f in _functions("fleet"):
        for inner in ast.walk(f):
            if inner is not f and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert "redirect_stdout" not in ast.unparse(inner), (path.name, f.name, inner.name)


def _judged(**kw) -> str:
    from ctxbench.core.ssh.session import Brought
    from ctxbench.fleet import remote
    b = Brought(**{"out": b"{}\n", "status": 0, "signal": None, "err": "", **kw})
    try:
        remote._judge(b, 2.0, 10)
    except remote.HostFailed as e:
        return str(e)
    return "ok"


def test_how_an_engine_ended_is_the_hosts_row():
    assert _judged() == "ok"
    assert _judged(status=1) == "ok"  # some ids failed: the others' results are in the document
    assert "failed: exit status 1" in _judged(status=1, out=b"")
    assert "killed (SIGKILL)" in _judged(status=137)
    assert "killed (SIGKILL)" in _judged(signal="KILL", status=None)
    assert "ran past the 10 s limit" in _judged(status=124)
    assert "connection lost" in _judged(status=None)
    assert "more than 256 MiB" in _judged(out=None, status=None)
    assert _judged(status=2, err="start-up\nits own words") == "the engine failed: its own words"


def test_brought_codes_as_a_local_process():
    from ctxbench.core.ssh.session import Brought
    assert Brought(b"", 3, None, "").code() == 3
    assert Brought(b"", None, "TERM", "").code() == 143
    assert Brought(b"", None, None, "").code() == 255


class _Stream:
    def __init__(self, data: bytes, size: int):
        self.chunks = [data[i:i + size] for i in range(0, len(data), size)]

    async def read(self, n: int) -> bytes:
        return self.chunks.pop(0) if self.chunks else b""


def test_stderr_is_read_whole_its_tail_kept_and_the_start_ups_part_dropped():
    from ctxbench.core.ssh import session
    err = b"x" * (session.ERR_KEEP + 300_000) + b"\n" + session.MARK + b"\nthe engine's reason\n"
    tail = asyncio.run(session._tail(_Stream(err, 7000), session.ERR_KEEP))
    assert len(tail) == session.ERR_KEEP and session._own(tail) == "the engine's reason\n"
    tail = asyncio.run(session._tail(_Stream(session.MARK + b"\n" + b"y" * 100_000, 4096), 1000))
    assert tail == b"y" * 1000  # the engine's own past the bound: its last bytes
