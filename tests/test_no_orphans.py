"""No orphans: interrupt a run mid-measurement with SIGINT to its process
group (Ctrl-C), SIGTERM to the front end alone and SIGKILL to the front end
alone; no process of the run survives and no results file is left."""
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ENGINE, ctxbench_cmd

pytestmark = [pytest.mark.machine, pytest.mark.flow]


def descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(d.name))
    out, todo = set(), [root]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def interrupt(proc: subprocess.Popen, how: str) -> None:
    """Ctrl-C to the process group, SIGTERM or SIGKILL to the front end alone."""
    if how == "sigint-group":
        os.killpg(proc.pid, signal.SIGINT)
    elif how == "sigterm-frontend":
        proc.send_signal(signal.SIGTERM)
    else:
        proc.kill()


@pytest.mark.parametrize("how", ["sigint-group", "sigterm-frontend", "sigkill-frontend"])
def test_interrupted_run_leaves_nothing(tmp_path, how):
    out = tmp_path / "r.json"
    env = dict(os.environ, CTXBENCH_ENGINE=str(ENGINE))
    # Processes as parties, many groups: long enough to be caught mid-way.
    proc = subprocess.Popen(ctxbench_cmd() + ["run", "--ids", "kernel/process/pipe/same-cpu",
                                              "--groups", "5000", "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            start_new_session=True)
    try:
        # Wait (bounded) until the engine has forked its party B.
        seen: set[int] = set()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            seen |= descendants(proc.pid)
            if len(seen) >= 2 and any(descendants(p) for p in seen):
                break
            time.sleep(0.05)
        seen |= descendants(proc.pid)
        assert len(seen) >= 2, "the run did not start its parties"
        time.sleep(0.3)
        seen |= descendants(proc.pid)
        interrupt(proc, how)
        proc.wait(timeout=20)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(alive(p) for p in seen):
            time.sleep(0.05)
        survivors = [p for p in seen if alive(p)]
        assert not survivors, f"{how}: survivors {survivors}"
        assert not out.exists(), "a results file was written by an interrupted run"
        assert not [f for f in tmp_path.iterdir()], list(tmp_path.iterdir())
        if how != "sigkill-frontend":
            err = proc.stderr.read().decode()
            assert "Traceback" not in err
            assert proc.returncode != 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for p in descendants(proc.pid):
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass


def process_states(pid: int) -> list[str]:
    """What each process of `pid`'s session is doing: state, kernel wait
    channel and command line (for a failure to name where a run stalled)."""
    rows = []
    for q in sorted(descendants(pid) | {pid}):
        try:
            stat_ = open(f"/proc/{q}/stat").read()
            state = stat_[stat_.rindex(")") + 2:].split()[0]
            wchan = open(f"/proc/{q}/wchan").read().strip()
            cmd = open(f"/proc/{q}/cmdline").read().replace("\0", " ").strip()
        except OSError:
            continue
        rows.append(f"{q} {state} {wchan or '-'} {cmd[:160]}")
    return rows
