"""--host and the engine against what issue 46's final audit
(tests/audits/issue46-final-host-wheel.md) found: ssh config and known
hosts files read without bound (sparse files of GiBs), a ProxyJump host's
files unchecked, a Match exec unbounded and left running, a bare
CTXBENCH_ENGINE run from PATH, pyproject.toml read unchecked, an engine's
output read without bound and its status passed on, an engine of GiBs
read to be copied, shell functions of a host's start-up that hide rm and
cd, a `timeout` without -k, and a ProxyCommand left by a signal while the
session closes. Unit tests, but for those marked machine/flow (a real
sshd: tests/ssh_servers.py)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ctxbench.core.errors import UserError
from test_issue46_host import _procs
from test_issue46_host_audit import host  # noqa: F401 (the fixture: one server whose .bashrc sources $HOME/extra)


def _check(tmp_path: Path, text: str, spec: str = "h0"):
    from ctxbench.core.ssh import hosts, preflight
    (tmp_path / "config").write_text(text)
    return preflight.check(hosts.from_spec(spec), (str(tmp_path / "config"),))


def _sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as f:
        f.truncate(size)  # no disk: the bound refuses it by its size, before anything reads it
    return path


# ---- 1. config and known hosts files bounded by size (A186b, A190b, A191, A191b, A192, A199) ---------------

def test_config_and_known_hosts_files_are_bounded_by_size(tmp_path, monkeypatch):
    from ctxbench.core.ssh import hosts, preflight
    kh = _sparse(tmp_path / "kh", preflight.KNOWN_MAX + 1)
    cfg = _sparse(tmp_path / "cfg", preflight.CONFIG_MAX + 1)
    for text, said in ((f"Host h0\n  UserKnownHostsFile {kh}\n", f"UserKnownHostsFile '{kh}': larger than any "
                        f"known hosts file ({preflight.KNOWN_MAX + 1} bytes; ctxbench reads at most 64 MiB)"),
                       (f"Host h0\n  GlobalKnownHostsFile {kh}\n", f"GlobalKnownHostsFile '{kh}': larger than any"),
                       (f"Include {cfg}\n", f"ssh config '{cfg}': larger than any ssh config")):
        with pytest.raises(UserError) as e:
            _check(tmp_path, text)
        assert said in str(e.value) and e.value.code == 2, str(e.value)
    with pytest.raises(UserError, match="ssh config '.*cfg': larger than any ssh config .* at most 4 MiB"):
        preflight.check(hosts.from_spec("h0"), (str(cfg),))  # --ssh-config itself
    monkeypatch.setenv("HOME", str(tmp_path))  # no --ssh-config: ~/.ssh/config, as asyncssh reads it
    (tmp_path / ".ssh").mkdir()
    _sparse(tmp_path / ".ssh" / "config", preflight.CONFIG_MAX + 1)
    with pytest.raises(UserError, match="larger than any ssh config"):
        preflight.check(hosts.from_spec("h0"), hosts.config_files(None))


# ---- 2. a ProxyJump host's files (A231) ------------------------------------------------------------------

def test_a_proxy_jump_hosts_files_are_checked(tmp_path):
    with pytest.raises(UserError) as e:
        _check(tmp_path, "Host h0\n  ProxyJump u@j0:2222\nHost j0\n  IdentityFile /dev/zero\n")
    assert str(e.value) == "ProxyJump host 'u@j0:2222': IdentityFile '/dev/zero': not a regular file (a device)"
    with pytest.raises(UserError, match="ProxyJump host 'j0'"):  # a hop's own ProxyJump, and a later hop
        _check(tmp_path, "Host h0\n  ProxyJump j1,j2\nHost j2\n  ProxyJump j0\nHost j0\n  IdentityFile /dev/zero\n")
    assert _check(tmp_path, "Host *\n  ProxyJump h0\n").host == "h0"  # a loop ends (asyncssh's to refuse)
    chain = "".join(f"Host j{i}\n  ProxyJump j{i + 1}\n" for i in range(20))
    with pytest.raises(UserError, match="goes through more than 8 hosts"):
        _check(tmp_path, chain, "j0")


# ---- 3. Match exec bounded, its group ended (A237, A238) ----------------------------------------------

def test_match_exec_is_bounded_and_its_group_is_ended(tmp_path, monkeypatch):
    from ctxbench.core.ssh import preflight
    monkeypatch.setattr(preflight, "EXEC_S", 0.5)
    marker = f"sleep 31.{os.getpid()}"
    with pytest.raises(UserError) as e:
        _check(tmp_path, f'Match exec "{marker} & wait"\n  Port 2222\n')
    assert str(e.value) == f"ssh config: Match exec '{marker} & wait' did not finish in 0.5 s", str(e.value)
    assert _procs(marker) == []  # the shell's group, the sleep with it
    assert _check(tmp_path, 'Match exec "true"\n  Port 2222\n').port == 2222  # its answer is asyncssh's
    assert _check(tmp_path, 'Match exec "false"\n  Port 2222\n').port == 22


def test_match_exec_interrupted_ends_its_group(tmp_path):
    marker = f"sleep 32.{os.getpid()}"
    old = signal.signal(signal.SIGALRM, signal.default_int_handler)  # a Ctrl-C (SIGTERM is one too) in the wait
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with pytest.raises(KeyboardInterrupt):
            _check(tmp_path, f'Match exec "{marker} & wait"\n')
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert _procs(marker) == []


# ---- 4. a bare CTXBENCH_ENGINE is the file checked, not PATH's (B37, B38) ------------------------------

def test_a_bare_engine_name_is_the_file_checked(tmp_path, monkeypatch):
    from ctxbench.core import engine
    (tmp_path / "ctxbench-engine").write_text("#!/bin/sh\n")
    (tmp_path / "ctxbench-engine").chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CTXBENCH_ENGINE", "ctxbench-engine")
    assert engine.engine_path() == str(tmp_path / "ctxbench-engine")


# ---- 5. pyproject.toml: a FIFO, /dev/zero (B34, B35) ---------------------------------------------------

def test_pyproject_that_is_no_regular_file_is_not_read(tmp_path):
    from ctxbench.core import locations
    os.mkfifo(tmp_path / "fifo")
    got = []
    t = threading.Thread(target=lambda: got.append(locations._project(tmp_path / "fifo")), daemon=True)
    t.start()
    t.join(5)
    if t.is_alive():  # before the fix: opening it waits for a writer; one ends the wait
        with open(tmp_path / "fifo", "wb"):
            pass
    assert got == [None]
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
            "from pathlib import Path; from ctxbench.core import locations\n"
            "print(locations._project(Path('/dev/zero')), locations._project(Path(__import__('sys').argv[1])))\n")
    _sparse(tmp_path / "big.toml", (1 << 20) + 1)
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "big.toml")], capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 0 and p.stdout.split() == ["None", "None"], p.stderr[-300:]


# ---- 6, 7. an engine's output bounded, its status not ctxbench's (B44, B45, B47) ----------------------

def _engine(tmp_path: Path, body: str) -> str:
    path = tmp_path / "engine.sh"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


def test_an_engine_that_prints_without_end_is_bounded(tmp_path, monkeypatch):
    from ctxbench.core import transports
    monkeypatch.setattr(transports, "OUT_MAX", 1 << 20)
    local = transports.Local(_engine(tmp_path, "echo why >&2; head -c 5000000 /dev/zero\n"))
    with pytest.raises(UserError) as e:
        local.run(["--version"], 30)
    assert "printed more than 1 MiB for '--version'" in str(e.value) and e.value.code == 1, str(e.value)
    done = transports.Local(_engine(tmp_path, "echo '{}'; echo said >&2; exit 4\n")).run(["x"], 30)
    assert (done.status, done.stdout, done.stderr) == (4, "{}\n", "said\n")
    with pytest.raises(TimeoutError):
        transports.Local(_engine(tmp_path, "exec sleep 30\n")).run(["x"], 0.3)


def test_an_engines_own_exit_status_is_not_ctxbenchs(tmp_path, monkeypatch):
    from ctxbench.core import engine
    for var in ("CTXBENCH_ENGINE_REPLAY", "CTXBENCH_ENGINE_RECORD"):
        monkeypatch.delenv(var, raising=False)
    for status, code in ((3, 1), (2, 2), (1, 1)):  # 2: the engine's refusal of its arguments
        monkeypatch.setenv("CTXBENCH_ENGINE", _engine(tmp_path, f"echo 'ctxbench-engine: no' >&2; exit {status}\n"))
        with pytest.raises(UserError) as e:
            engine.Engine().run_json(["--version"])
        assert (str(e.value), e.value.code) == ("no", code)


# ---- 8. an engine larger than any is not read to be copied (B53) -------------------------------------

def test_an_engine_larger_than_any_is_not_copied(tmp_path):
    from ctxbench.core.ssh import engines
    path = tmp_path / "x86_64" / "ctxbench-engine"
    path.parent.mkdir()
    with open(path, "wb") as f:
        f.write(b"\x7fELF\x02\x01\x01" + b"\0" * 11 + (62).to_bytes(2, "little"))
        f.truncate(engines.ENGINE_MAX + 1)
    path.chmod(0o755)
    with pytest.raises(engines.NoEngine, match="larger than any engine .ctxbench copies at most 256 MiB"):
        engines.for_arch("x86_64", tmp_path)


# ---- 9. functions of a start-up that hide what our scripts call (A242, A258) ------------------------

def test_our_scripts_undo_functions_that_hide_their_commands():
    from ctxbench.core.ssh.engines import CALLED, SETS
    hide = "".join(f"{c}() {{ return 1; }}; " for c in ("rm", "cd", "mktemp", "timeout", "kill"))
    p = subprocess.run(["bash", "-c", f"{hide}{SETS}; for c in {CALLED}; do type -t $c; done"],
                       capture_output=True, text=True, timeout=10)
    assert "function" not in p.stdout.split() and p.returncode == 0, (p.stdout, p.stderr)


# ---- 11. a signal while the session closes ends its ProxyCommand (A229b) ----------------------------

def test_a_signal_while_the_session_closes_ends_its_proxy_command(tmp_path):
    marker = f"sleep 993.{os.getpid()}"
    code = f"""
import asyncio, os, signal, threading, time
from pathlib import Path
from ctxbench.core.ssh import hosts, session
from ctxbench.core.ssh.loop import Loop
s = session.Session(hosts.from_spec("h0"), Path("."), ())
s.loop = Loop()
threading.Thread(target=s.loop.run_forever, daemon=True).start()
asyncio.run_coroutine_threadsafe(s.loop.subprocess_exec(asyncio.SubprocessProtocol, "sh", "-c",
    "{marker}; true", start_new_session=True), s.loop).result()
s.conn = object()
async def hang():
    await asyncio.sleep(30)
s._close = hang  # the host slow to answer: the close waits
signal.signal(signal.SIGTERM, lambda n, f: os._exit(130))  # cli._exit's: an immediate exit
threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
s.close()
"""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    try:
        assert p.returncode == 130, p.stderr[-500:]
        assert _procs(marker) == []
    finally:
        for pid in _procs(marker):  # ours: the marker is this test's
            os.kill(pid, signal.SIGKILL)


# ---- on a real host: rm()/cd() in ~/.bashrc, a `timeout` without -k (A242, A258, A257) --------------



@pytest.mark.machine
@pytest.mark.flow
def test_a_host_whose_start_up_hides_rm_and_cd_or_has_an_old_timeout(host, tmp_path):  # noqa: F811 (the fixture)
    from test_issue46_host_audit import _left, _open_fails, _session
    extra = host.home / "extra"
    try:
        extra.write_text("rm() { return 1; }\ncd() { return 1; }\n")
        s = _session(host)
        try:
            s.open()
            assert s.run(["--version"], 30).status == 0
        finally:
            left = s.close()
        assert left == "" and _left(host) == []
        bin_ = tmp_path / "bin"
        bin_.mkdir()
        (bin_ / "timeout").write_text('#!/bin/sh\n[ "$1" = -k ] && { echo "timeout: invalid option -- k" >&2; '
                                      'exit 125; }\nexec /usr/bin/timeout "$@"\n')
        (bin_ / "timeout").chmod(0o755)
        extra.write_text(f"PATH={bin_}:$PATH\n")
        line = _open_fails(host)
        assert "--host h0: its `timeout` is not GNU coreutils'" in line, line
        assert _left(host) == []
    finally:
        extra.unlink(missing_ok=True)


def test_a_hosts_engine_output_is_read_to_a_bound():
    """--host: what a one-document command prints there is read in pieces up
    to the bound, as a local engine's is, never whole."""
    import asyncio

    from ctxbench.core.ssh import session

    class Endless:
        def __init__(self):
            self.given = 0

        async def read(self, n):
            self.given += n
            return b"x" * n

    s = Endless()
    assert asyncio.run(session._bounded(s, 5 << 20)) is None and s.given <= 6 << 20

    class Short:
        def __init__(self):
            self.parts = [b"{}", b"\n", b""]

        async def read(self, n):
            return self.parts.pop(0)
    assert asyncio.run(session._bounded(Short(), 5 << 20)) == b"{}\n"
