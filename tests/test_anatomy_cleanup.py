"""The anatomy's rungs that change the parties' setting: the cgroup rungs
leave nothing behind: every party and every
cgroup the engine made is gone after a run, after Ctrl-C to the process
group, SIGTERM to the front end and SIGKILL of the front end (the engine's
parent-death signal then cleans up), SIGTERM, SIGINT or SIGHUP to the engine
itself, and a cgroup an engine killed outright
left behind is removed by the next engine that makes one; a mitigation
rung reads its prctl back or says in one line why the kernel refused it."""
import glob
import json
import os
import signal
import subprocess
import time

import pytest
from conftest import ENGINE, ctxbench_cmd, run_engine
from test_no_orphans import alive, descendants, interrupt, process_states

pytestmark = pytest.mark.machine
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="making cgroups needs root")


def ours() -> list[str]:
    """ctxbench-<pid>-<n> cgroups in any mounted hierarchy."""
    return glob.glob("/sys/fs/cgroup/ctxbench-*") + glob.glob("/sys/fs/cgroup/*/ctxbench-*") + \
        glob.glob("/sys/fs/cgroup/*/*/ctxbench-*")


def _can_make_cgroups() -> bool:
    p = run_engine("run", "kernel/process/pipe/same-cpu/cgroup-split", "--groups", "1", "--iterations", "1",
                   "--min-sample-us", "100", "--warmup-ms", "0", "--json")
    return p.returncode == 0


@needs_root
def test_a_finished_run_leaves_no_cgroup():
    if not _can_make_cgroups():
        pytest.skip("no writable cgroup hierarchy with the cpu controller here")
    before = set(ours())
    p = run_engine("run", "kernel/process/futex/same-cpu/cgroup-same", "kernel/process/futex/same-cpu/cgroup-split",
                   "--interleave", "--groups", "3", "--iterations", "2", "--min-sample-us", "200", "--json")
    assert p.returncode == 0, p.stderr
    assert set(ours()) <= before


@needs_root
@pytest.mark.parametrize("how", ["sigint-group", "sigterm-frontend", "sigkill-frontend"])
def test_interrupted_anatomy_leaves_no_cgroup_and_no_party(tmp_path, how):
    if not _can_make_cgroups():
        pytest.skip("no writable cgroup hierarchy with the cpu controller here")
    before = set(ours())
    env = dict(os.environ, CTXBENCH_ENGINE=str(ENGINE))
    # Output to files, not pipes nobody reads: a front end blocked on a full
    # pipe never reaches the cgroup rung (a fresh-clone run timed out so).
    out, err = open(tmp_path / "out", "wb"), open(tmp_path / "err", "wb")
    proc = subprocess.Popen(ctxbench_cmd() + ["anatomy", "--rungs", "cgroup-split", "--groups", "5000",
                                              "-o", str(tmp_path / "a.json")],
                            stdout=out, stderr=err, env=env, start_new_session=True)
    seen: set[int] = set()
    try:
        # 0.5 s here; a fresh-clone CI twice saw nothing for 60 s with the
        # front end alive and silent, so the bound is wider and a miss says
        # what every process of the run was doing. The rungs make and remove
        # their cgroups pair by pair, so what was seen is kept, not read again
        # (a fresh-clone run saw one, then none, then one again)
        deadline, made = time.monotonic() + 120, set()
        while time.monotonic() < deadline and not made and proc.poll() is None:
            seen |= descendants(proc.pid)  # caught inside a cgroup rung
            made = set(ours()) - before
            time.sleep(0.01)
        assert made, ("the cgroup rungs did not start", proc.poll(),
                      (tmp_path / "err").read_text(errors="replace")[-2000:], process_states(proc.pid))
        seen |= descendants(proc.pid)
        interrupt(proc, how)
        proc.wait(timeout=20)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and (any(alive(p) for p in seen) or set(ours()) - before):
            time.sleep(0.05)
        assert not [p for p in seen if alive(p)], how
        assert not set(ours()) - before, f"{how}: cgroups left: {sorted(set(ours()) - before)}"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        out.close()
        err.close()


@needs_root
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signalled_engine_removes_its_cgroups_and_party(sig):
    """The engine alone (no front end) stopped by a signal inside a cgroup
    rung: its handler kills party B, moves itself home and removes the
    cgroups before it exits, and says so in one line."""
    if not _can_make_cgroups():
        pytest.skip("no writable cgroup hierarchy with the cpu controller here")
    before = set(ours())
    eng = subprocess.Popen([str(ENGINE), "run", "kernel/process/futex/same-cpu/cgroup-split", "--groups", "5000",
                            "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (set(ours()) - before):
            time.sleep(0.01)
        assert set(ours()) - before, "the cgroup rung did not start"
        kids = descendants(eng.pid)
        eng.send_signal(sig)
        _, err = eng.communicate(timeout=20)
        assert eng.returncode == 128 + sig, (eng.returncode, err)
        assert len(err.strip().splitlines()) == 1, err
        assert not [k for k in kids if alive(k)]
        assert not set(ours()) - before, sorted(set(ours()) - before)
    finally:
        if eng.poll() is None:
            eng.kill()
            eng.wait()


@needs_root
def test_leftovers_of_a_killed_engine_are_removed_by_the_next():
    """SIGKILL of the engine itself runs no handler: its cgroups stay until
    the next engine that makes one sees that their pid is dead."""
    if not _can_make_cgroups():
        pytest.skip("no writable cgroup hierarchy with the cpu controller here")
    before = set(ours())
    left: set[str] = set()
    for _ in range(5):  # until the kill lands while a pair's cgroups exist
        eng = subprocess.Popen([str(ENGINE), "run", "kernel/process/pipe/same-cpu/cgroup-split", "--groups", "5000",
                                "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (set(ours()) - before):
            time.sleep(0.01)
        kids = descendants(eng.pid)
        eng.kill()
        eng.wait()
        for k in kids:  # party B dies of its parent-death signal
            deadline = time.monotonic() + 5
            while alive(k) and time.monotonic() < deadline:
                time.sleep(0.01)
        left = set(ours()) - before
        if left:
            break
    assert left, "never caught the engine inside a cgroup rung"
    assert _can_make_cgroups()
    assert not (left & set(ours())), sorted(left & set(ours()))


@pytest.mark.parametrize("rung,want", [("ibpb", 4), ("ssbd", 4), ("l1d-flush", 2)])
def test_a_mitigation_rung_is_read_back_or_refused_in_one_line(rung, want):
    """Where the kernel allows the prctl, both parties read back the state
    asked for (PR_SPEC_DISABLE = 4 of speculation, PR_SPEC_ENABLE = 2 of the
    L1D flush); where it refuses, one line names the prctl, the kernel's
    error and its mode from /sys/devices/system/cpu/vulnerabilities."""
    p = run_engine("run", f"kernel/process/pipe/same-cpu/{rung}", "--groups", "1", "--iterations", "1",
                   "--min-sample-us", "100", "--warmup-ms", "0", "--json")
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and "prctl(PR_SET_SPECULATION_CTRL" in lines[0] and "refused" in lines[0], p.stderr
        pytest.skip(f"the kernel refuses the {rung} rung here: {lines[0]}")
    params = json.loads(p.stdout)["results"][0]["params"]
    assert params["prctl"] == rung
    assert params["prctl_state_a"] & want and params["prctl_state_b"] & want, params
