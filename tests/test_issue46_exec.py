"""Issue 46's audit, area C: the engine's launcher (`ctxbench-engine exec`
and `which`, engine/src/cli/exec.c), its JSON strings (core/json.c) and
`ctxbench peers` without any peer asked for.

- C007, C008, C018, C019, C056: what the engine writes in a JSON string
  (another program's output, its name, a name given to `which`) carries
  no raw DEL, C1 control or invisible format character: escaped as
  \\uXXXX, so that the record shown on a terminal moves no cursor and
  reorders nothing; the JSON still decodes to the same text.
- C053: `which` without a name is refused in one line.
- C072, C078: a tree that goes on forking after it left the program's
  group (a setsid shell spawning sleepers in a loop) leaves nothing when
  the engine is stopped by SIGINT or SIGTERM, nor after a launch.
- C084: a peer asked for and not installed is one line, the refusal."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import unicodedata

import pytest

from conftest import ENGINE, run_cli
from test_engine_exec import running

pytestmark = [pytest.mark.machine, pytest.mark.flow]

# what may not be raw in the engine's output: controls (C0, DEL, C1), format characters (bidi controls,
# zero-width ones, the BOM, tags), line and paragraph separators
RAW_BANNED = ("Cc", "Cf", "Zl", "Zp")

# each is escaped as \uXXXX (a pair of surrogates above U+FFFF): DEL, the 8-bit CSI, NEL, a right-to-left
# override, a left-to-right isolate, a zero-width space, the BOM, the line separator, a soft hyphen, a tag
INVISIBLE = "\x7f\x9b\x85\u202e\u2066\u200b\ufeff\u2028\u00ad\U000e0041"
KEPT = "caf\u00e9 \u4e2d \U0001f600"  # printable: kept raw (UTF-8)


def raw_banned(text: str) -> list[str]:
    return [f"U+{ord(c):04X}" for c in text if unicodedata.category(c) in RAW_BANNED and c != "\n"]


def engine(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([str(ENGINE), *args], capture_output=True, timeout=timeout)


def test_output_and_names_leave_no_control_or_format_character_raw(tmp_path):
    name = tmp_path / "na\x1b[31mme\u202e"
    name.write_text(f"#!/bin/sh\nprintf '%s|{INVISIBLE}{KEPT}\\n' \"$0\"\n", encoding="utf-8")
    name.chmod(0o755)
    for args in (["exec", "--", str(name)],                      # C008, C019: its output and its name
                 ["exec", "--", "\x1b[2Jnope\u202e"],             # C018: a name that cannot start, in argv and why
                 ["which", "sh\x1b[31m", "a\nb", "x\u202ey", INVISIBLE]):  # C056: which's keys
        p = engine(*args)
        assert p.returncode == 0, p.stderr
        text = p.stdout.decode("utf-8")  # strict: UTF-8 throughout
        assert text.endswith("}\n") and raw_banned(text[:-1]) == [], (args, raw_banned(text))
        got = json.loads(text)
        if args[0] == "which":
            assert list(got) == args[1:]  # the same names, once decoded
        elif "nope" in args[-1]:
            assert got["argv"] == [args[-1]] and got["why"].startswith(f"cannot start {args[-1]}: ")
        else:
            assert got["argv"] == [str(name)] and got["output"] == f"{name}|{INVISIBLE}{KEPT}\n"
    assert "\\u202e" in text and "\\udb40\\udc41" in text  # escaped, the tag as a surrogate pair


def test_random_bytes_come_back_as_json_with_nothing_raw(tmp_path):
    # C007: 200 kB of random bytes (every byte value, C1 and format characters among the UTF-8 they form)
    blob = tmp_path / "blob"
    blob.write_bytes(os.urandom(200_000) + "\x7f\u0085\u202e\U000e0041".encode())
    p = engine("exec", "--", "cat", str(blob))
    text = p.stdout.decode("utf-8")
    assert p.returncode == 0 and raw_banned(text[:-1]) == []
    out = json.loads(text)["output"]
    assert out.endswith("\x7f\u0085\u202e\U000e0041") and len(out) > 100_000


def test_which_without_a_name_is_one_line():
    # C053: as exec without a program
    p = engine("which")
    assert p.returncode == 2 and p.stdout == b"" and p.stderr.decode().count("\n") == 1
    assert b"which: name at least one program" in p.stderr


def alive(tag: str) -> list[int]:
    """Running processes (not zombies) whose command line holds `tag`, by pid."""
    return [int(p) for p in running(tag)]


def hydra(tmp_path, tag: str, heavy: bool = False):
    """A program that starts a setsid shell spawning sleepers every 5 ms
    and exits: the shell and its sleepers are in a session of their own.
    Heavy: the spawner is a Python holding 128 MiB, whose exit frees them
    before its children go to the engine (a killed process's children
    are handed on at the end of its exit): they come after one pass over
    /proc, whatever the order of the PIDs."""
    prog = tmp_path / "hydra"
    loop = (f"python3 -c 'import subprocess, time; b = b\"x\" * (128 << 20)\n"
            f"while 1: subprocess.Popen([\"sleep\", \"{tag}\"]); time.sleep(0.005)'" if heavy else
            f"sh -c 'while :; do sleep {tag} & sleep 0.005; done'")
    prog.write_text(f"#!/bin/sh\nsetsid {loop} &\necho hi\n")
    prog.chmod(0o755)
    return prog


def kill_left(tag: str) -> None:
    """What this test started and survived, killed (by PID): the tag is ours."""
    for _ in range(50):
        pids = alive(tag) + alive(f"sleep {tag}")
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.01)


@pytest.mark.parametrize("heavy, sig, after", [(False, signal.SIGINT, 0.5), (False, signal.SIGINT, 1.0),
                                               (True, signal.SIGINT, 0.5), (True, signal.SIGTERM, 0.5)])
def test_a_tree_forking_outside_the_group_is_gone_when_the_engine_is_stopped(tmp_path, heavy, sig, after):
    # C072, C078: the signal to the engine's group, as Ctrl-C sends it (its own session here: our group is
    # not hit); its handler kills what it adopted, and what comes to it as those die, until nothing is left
    tag = f"46{os.getpid() % 1000:03d}{int(after * 10)}{int(sig)}{int(heavy)}"
    proc = subprocess.Popen([str(ENGINE), "exec", "--timeout-ms", "20000", "--", str(hydra(tmp_path, tag, heavy))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        end = time.monotonic() + 10
        while len(alive(f"sleep {tag}")) < 3 and time.monotonic() < end:
            time.sleep(0.02)
        time.sleep(max(0.0, after - 0.2))
        assert len(alive(f"sleep {tag}")) >= 3  # it forks
        os.killpg(proc.pid, sig)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 128 + sig and err.count("\n") == 1 and "children reaped" in err
        assert alive(tag) == [], "survived the engine"  # reaped before it exited: nothing to wait for
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        kill_left(tag)


@pytest.mark.parametrize("heavy", [False, True])
def test_a_tree_forking_outside_the_group_is_gone_after_the_launch(tmp_path, heavy):
    tag = f"46{os.getpid() % 1000:03d}9{int(heavy)}"
    try:
        p = engine("exec", "--drain-ms", "500", "--", str(hydra(tmp_path, tag, heavy)))
        assert p.returncode == 0 and json.loads(p.stdout)["output"] == "hi\n"
        assert alive(tag) == []
    finally:
        kill_left(tag)


@pytest.mark.skipif(bool(shutil.which("lat_ctx")), reason="lat_ctx is installed here")
def test_a_peer_that_is_not_installed_is_one_line_that_says_how_to_get_it(tmp_path):
    # C084: the refusal alone, not a note and then a refusal that points back at it
    p = run_cli("peers", "--quick", "--no-store", "--peer", "lat_ctx", "-o", tmp_path / "x.json", in_process=False)
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith("ctxbench: peers: none of the peers asked for is here: lat_ctx: ")
    assert "lat_ctx is not on PATH (an lmbench build on PATH)" in p.stderr
    assert not (tmp_path / "x.json").exists()
