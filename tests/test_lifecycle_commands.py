"""Every measuring command goes through the one lifecycle (lifecycle.py):
the same refusals before measuring, the same atomic write, nothing written
that was not asked for, housekeeping recorded, the same exit status.

A new measuring command must be added to SMALL (the smallest run of it),
or this file fails: the lifecycle is a contract, not a habit."""
import glob
import json
import os
import stat
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from conftest import ENGINE, ctrl_c, ctxbench_cmd, own_engine_env, run_cli
from test_no_orphans import process_states
from ctxbench.cli import COMMANDS

# The smallest real run of each measuring command (seconds each here).
SMALL = {
    "run": ["--quick", "--ids", "baseline/nop,kernel/thread/pipe/same-cpu"],
    "userbench": ["--quick", "--groups", "2", "--iterations", "2"],
    "sweep": ["--mechanism", "kernel/thread/pipe", "--sizes", "4K", "--strides", "0,64", "--budget", "40",
              "--groups", "2", "--iterations", "2", "--min-sample-us", "500", "--no-counters"],
    "tasks": ["--pair", "crc+sort", "--switches", "1,10", "--rounds", "2", "--scale", "0.02"],
    "irq": ["--task", "crc", "--rates", "1000", "--rounds", "2", "--scale", "0.05"],
    "ring": ["--parties", "2", "--footprint", "0", "--kind", "thread", "--mechanism", "pipe", "--quick"],
    "noise": ["--seconds", "1"],
    "anatomy": ["--quick", "--rungs", "fifo"],
    "runtimes": ["--quick", "--runtime", "python", "--placement", "pinned", "--quiet-wait", "0"],
    # ctxbench's own peer, measured by the engine (the others are programs: tests/test_peers_command.py)
    "peers": ["--quick", "--peer", "ctx-clock"],
}
# runtimes launches its harness again, up to twice, when the other test worker's load disturbed it:
# seconds, which make test pays and make check does not
RELAUNCHING = {"runtimes"}


def _commands():
    return [pytest.param(c, marks=pytest.mark.slow) if c in RELAUNCHING else c for c in sorted(SMALL)]
NOT_MEASURING = {"system", "report", "reanalyse", "compare", "store", "history", "export"}  # they read files or the machine, measure nothing
# measures on other hosts over SSH, each host's run through the lifecycle; its -o is a directory, its
# refusals, Ctrl-C and clean-up are tests/test_fleet.py's (they need SSH servers)
ELSEWHERE = {"fleet"}
WITH_PLOT = [c for c in SMALL if c not in ("run", "userbench")]
NO_ENGINE = "/nonexistent/ctxbench-engine"  # a command that reaches the engine fails differently


def test_every_measuring_command_is_listed_here():
    assert set(SMALL) == set(COMMANDS) - NOT_MEASURING - ELSEWHERE


def _cli(args, cwd: Path, data: Path, engine=None):
    """The CLI (in this process) with this test's engine (conftest.engine_seam: recorded), or `engine`."""
    env = dict(own_engine_env(engine) if engine else os.environ, XDG_DATA_HOME=str(data))
    return run_cli(*args, cwd=cwd, env=env)


def _measured(cmd: str, p) -> bool:
    """Exit 0, or irq's own exit 1 for a run its known-zero control or a
    self-check refused (a verdict on this machine's noise, printed with
    the table, the file written all the same)."""
    return p.returncode == 0 or (cmd == "irq" and p.returncode == 1
                                 and ("CONTROL FAILED" in p.stdout or "SELF-CHECK FAILED" in p.stdout))


@pytest.fixture
def dirs(tmp_path):
    work, data = tmp_path / "work", tmp_path / "data"
    work.mkdir()
    return work, data


def _kept(data: Path) -> list[Path]:
    d = data / "ctxbench" / "runs"
    return sorted(d.iterdir()) if d.is_dir() else []


def _one_line(p) -> str:
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ctxbench: "), p.stderr
    assert "Traceback" not in p.stderr
    return lines[0]


def _refusals(work: Path, cmd: str) -> dict[str, tuple[list[str], str]]:
    """What is refused before measuring: (arguments, the one line said)."""
    allowed = ",".join(map(str, sorted(os.sched_getaffinity(0))))
    return {
        "bad cpu": (["--cpu", "9999"], f"ctxbench: {cmd}: argument --cpu: 9999: no such CPU, or not allowed "
                                       f"for this process (allowed: {allowed})"),
        "bad output": (["-o", "no/such/dir/out.json"], f"ctxbench: cannot write 'no/such/dir/out.json': "
                                                       f"directory '{work / 'no/such/dir'}' does not exist"),
    }


@pytest.mark.parametrize("case", ["bad cpu", "bad output"])
@pytest.mark.parametrize("cmd", sorted(SMALL))
def test_refused_alike_before_measuring(cmd, case, dirs):
    """The same line and exit status from every command, before the
    engine is reached (it does not exist here), and nothing written."""
    work, data = dirs
    args, line = _refusals(work, cmd)[case]
    p = _cli([cmd, *SMALL[cmd], *args], work, data, engine=NO_ENGINE)
    assert p.returncode == 2
    assert _one_line(p) == line
    assert not list(work.iterdir()) and not _kept(data)


@pytest.mark.parametrize("cmd", sorted(WITH_PLOT))
def test_a_figure_directory_that_is_a_file_is_refused_before_measuring(cmd, dirs):
    work, data = dirs
    (work / "figs").write_text("a file")
    p = _cli([cmd, *SMALL[cmd], "--plot", "figs", "-o", "r.json"], work, data, engine=NO_ENGINE)
    assert p.returncode == 2
    assert "not a directory" in _one_line(p)
    assert sorted(x.name for x in work.iterdir()) == ["figs"] and not _kept(data)


def _check_document(path: Path, cmd: str) -> dict:
    doc = json.loads(path.read_text())
    assert doc["schema"] == "ctxbench/2" and doc["results"]
    sec = doc[cmd]
    datetime.fromisoformat(sec["started"])
    hk = sec["housekeeping"]
    if len(os.sched_getaffinity(0)) >= 2:  # the front end ran off the measured CPU
        assert hk["measured_cpu"] not in hk["front_end_cpus"] and not hk["shares_measured_cpu"]
    return doc


@pytest.mark.parametrize("cmd", _commands())
def test_without_o_nothing_is_written_and_the_run_is_kept(cmd, dirs):
    """Nothing in the working directory; the run kept whole in the data
    directory, written atomically (no temporary file left)."""
    work, data = dirs
    p = _cli([cmd, *SMALL[cmd]], work, data)
    assert _measured(cmd, p), (p.stdout[-1500:], p.stderr[-1500:])
    assert not list(work.iterdir()), "written without -o"
    kept = _kept(data)
    assert len(kept) == 1 and kept[0].name.startswith("ctxbench-") and kept[0].suffix == ".json", kept
    assert f"results kept in {kept[0]} (no -o given)" in p.stdout
    _check_document(kept[0], cmd)


@pytest.mark.parametrize("cmd", _commands())
def test_with_o_only_that_file_is_written_atomically(cmd, dirs):
    """-o FILE: that file and nothing else; an existing file is replaced
    whole by a rename (a new inode, its permissions kept), never
    truncated and rewritten. A sweep continues an existing file of its own
    kind, so it gets a new name."""
    work, data = dirs
    out = work / "out.json"
    if cmd != "sweep":
        out.write_text("old\n")
        out.chmod(0o640)
    before = out.stat().st_ino if out.exists() else None
    p = _cli([cmd, *SMALL[cmd], "-o", "out.json"], work, data)
    assert _measured(cmd, p), (p.stdout[-1500:], p.stderr[-1500:])
    assert sorted(x.name for x in work.iterdir()) == ["out.json"] and not _kept(data)
    assert "results written to out.json" in p.stdout
    if before is not None:
        assert out.stat().st_ino != before and stat.S_IMODE(out.stat().st_mode) == 0o640
    _check_document(out, cmd)


@pytest.mark.parametrize("cmd", sorted(SMALL))
def test_each_measuring_command_builds_on_the_lifecycle(cmd):
    """Read, not run: the command module takes Lifecycle, and writes no
    results file of its own (writer is the lifecycle's)."""
    import ast
    import ctxbench
    src = (Path(ctxbench.__file__).parent / cmd / "command.py").read_text()
    names = {(n.module, a.name) for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom)
             for a in n.names}
    assert ("ctxbench.lifecycle", "Lifecycle") in names
    assert "write_results(" not in src and "check_writable(" not in src


# Long enough to be interrupted while the engine measures. runtimes: one
# harness, so that the engine's reference rows are most of each round (a
# fresh-clone CI once ran six harnesses for 60 s without the poll below
# seeing the engine; harnesses are interrupted in test_runtimes_protocol.py)
LONG = {"run": [], "userbench": [], "sweep": [], "tasks": [], "irq": [], "ring": [], "noise": ["--seconds", "60"],
        "anatomy": [], "runtimes": ["--runtime", "go", "--placement", "pinned"],
        "peers": ["--peer", "ctx-clock", "--rounds", "100"]}


@pytest.mark.machine  # Ctrl-C while the real engine measures
@pytest.mark.parametrize("cmd", sorted(SMALL))
def test_ctrl_c_ends_every_command_alike(cmd, dirs):
    """Ctrl-C (SIGINT to the foreground process group, engine included)
    while measuring: exit 130, one line saying so, no engine left running,
    no temporary file; only the sweep keeps a file (it saves as it goes)."""
    import signal
    import time
    assert set(LONG) == set(SMALL)
    work, data = dirs
    env = dict(os.environ, CTXBENCH_ENGINE=str(ENGINE), XDG_DATA_HOME=str(data))
    # SIGINT as a terminal's foreground process has it: a make started in the background by a shell without
    # job control ignores it, and then only the engine saw the Ctrl-C (peers: none, between its engine calls)
    p = subprocess.Popen(ctxbench_cmd() + [cmd, *LONG[cmd]], cwd=work, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        seen = False
        while time.monotonic() < deadline and p.poll() is None and not seen:
            seen = _engine_below(p.pid)
            time.sleep(0.002)
        time.sleep(0.2)  # the engine is measuring
        assert p.poll() is None, p.communicate()
        assert seen, ("the engine was not seen measuring within 120 s; the session's processes (pid, state, "
                      f"wait channel, command): {process_states(p.pid)}")
    except BaseException:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise
    status, out, err = ctrl_c(p)
    assert status == 130, err[-2000:]
    last = err.strip().splitlines()[-1]
    assert last.startswith("ctxbench: interrupted") and "Traceback" not in err
    assert not list(work.iterdir())
    kept = _kept(data)
    assert not [k for k in kept if not k.name.endswith(".json")], kept  # no temporary file
    assert len(kept) == (1 if cmd == "sweep" else 0), kept
    if cmd == "sweep":
        assert f"-o '{kept[0]}' to continue" in last
    assert not _engine_children(p.pid)


def _engine_below(pid: int) -> bool:
    """Whether an engine runs below `pid` now, read from the kernel's
    children lists: a few small reads, so the poll can run every few ms
    and see `run`'s short engine processes (one per id and round,
    interleaved with the front end's work), where a scan of all of /proc
    takes tens of ms on a loaded host and a fresh-clone CI missed them for
    60 s."""
    todo = [pid]
    while todo:
        p = todo.pop()
        for children in glob.glob(f"/proc/{p}/task/*/children"):
            try:
                kids = [int(x) for x in Path(children).read_text().split()]
            except (OSError, ValueError):
                continue
            for k in kids:
                try:
                    if Path(f"/proc/{k}/comm").read_text().startswith("ctxbench-engin"):
                        return True
                except OSError:
                    continue
                todo.append(k)
    return False


def _engine_children(pid: int) -> list[int]:
    """Processes of the engine started by `pid`'s session."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat_ = (d / "stat").read_text()
                comm = stat_[stat_.index("(") + 1:stat_.rindex(")")]
                sid = int(stat_[stat_.rindex(")") + 2:].split()[3])
            except (OSError, ValueError, IndexError):
                continue
            if sid == pid and comm.startswith("ctxbench-engin"):
                found.append(int(d.name))
    return found
