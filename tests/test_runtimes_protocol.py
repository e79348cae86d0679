"""The front end's side of the runtime harnesses (issue 24,
src/ctxbench/runtimes/harness.py), proved with a fake harness
(tests/fake_runtime_harness.py): records parsed and checked, the CPUs and
environment of a placement reach the child, a malformed record or a
failing harness is one line, a hung harness is killed with what it started,
Ctrl-C and the front end's death leave nothing behind."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ctxbench.core.errors import UserError
from ctxbench.runtimes import analysis, harness
from ctxbench.runtimes.harness import Found, HarnessError, Runtime, Settings
from test_no_orphans import alive

FAKE = Path(__file__).resolve().parent / "fake_runtime_harness.py"
FAKE_RT = Runtime(name="fake", mechanisms=("a", "b"), version_cmd=None, harness=(sys.executable, str(FAKE)),
                  pinned_env={"FAKE_WORKERS": "1"}, missing="fake: not found")
SMALL = Settings(groups=2, iterations=2, min_sample_us=100, warmup_ms=1)
CPU = max(os.sched_getaffinity(0))


def found() -> Found:
    f = harness.find(FAKE_RT)
    assert f.present, f.missing
    return f


def cmd(placement="pinned", mechanisms=("a", "b"), settings=SMALL):
    cpus = harness.placement_cpus(placement, CPU, sorted(os.sched_getaffinity(0)))
    return harness.command(found(), placement, cpus, mechanisms, settings)


def pids_from(path: Path, timeout_s: float = 20) -> list[int]:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if path.exists() and path.read_text().endswith("\n"):
            return [int(p) for p in path.read_text().split()[:2] if p.strip()]
        time.sleep(0.02)
    raise AssertionError("the fake harness never started")


def gone(pids: list[int], timeout_s: float = 5) -> bool:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end and any(alive(p) for p in pids):
        time.sleep(0.02)
    return not any(alive(p) for p in pids)


def test_a_good_run_is_parsed_and_its_placement_reaches_the_child(monkeypatch):
    monkeypatch.setenv("FAKE_RT_MODE", "good")
    monkeypatch.setenv("FAKE_WORKERS", "from the user's shell")
    header, results, skipped = harness.run(found(), cmd("pinned"), timeout_s=60)
    assert [r["id"] for r in results] == ["runtimes/fake/a/pinned", "runtimes/fake/b/pinned"] and skipped == []
    assert header["runtime"]["flags"] == {"affinity": [CPU], "env": "1"}  # one CPU, one worker
    assert header["tool"]["version"] == harness.__version__
    assert analysis.kernel_record(results[0])["voluntary_per_handoff"] == 0.0


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="the default placement needs two allowed CPUs")
def test_the_default_placement_runs_on_two_cpus_with_the_runtime_s_own_settings(monkeypatch):
    monkeypatch.setenv("FAKE_RT_MODE", "good")
    monkeypatch.setenv("FAKE_WORKERS", "from the user's shell")
    header, results, _ = harness.run(found(), cmd("default"), timeout_s=60)
    assert len(header["runtime"]["flags"]["affinity"]) == 2 and CPU in header["runtime"]["flags"]["affinity"]
    assert header["runtime"]["flags"]["env"] == ""  # the pinned setting is removed, not inherited
    assert all(r["id"].endswith("/default") for r in results)


def test_a_skipped_mechanism_is_returned_not_a_failure(monkeypatch):
    monkeypatch.setenv("FAKE_RT_MODE", "skip")
    _, results, skipped = harness.run(found(), cmd(), timeout_s=60)
    assert [r["params"]["mechanism"] for r in results] == ["a"]
    assert skipped == [{"mechanism": "b", "why": "b is not installed"}]


@pytest.mark.parametrize("mode, says", [
    ("not-json", "line 3 is not JSON"),
    ("bad-samples", "line 3: runtimes/fake/b/pinned: 'samples' must be a non-empty list of finite numbers"),
    ("short-group", "line 3: runtimes/fake/b/pinned: 'group' must hold one group index"),
    ("wrong-placement", "line 3: runtimes/fake/b/pinned: params.placement is elsewhere, the run was pinned"),
    ("silent", "no result and no skipped line for b"),
    ("fail", "the toolchain fell over"),
])
def test_a_malformed_record_or_a_failure_is_one_line(monkeypatch, mode, says):
    monkeypatch.setenv("FAKE_RT_MODE", mode)
    with pytest.raises(HarnessError) as e:
        harness.run(found(), cmd(), timeout_s=60)
    assert str(e.value).startswith(f"runtimes: fake: {says}") and "\n" not in str(e.value)
    assert e.value.code == 1


def test_each_check_of_a_record_can_fail():
    good = {"tool": {"name": "t", "version": "0"}, "runtime": {"name": "fake", "version": "1", "flags": {}}}
    import json
    sys.path.insert(0, str(FAKE.parent))
    import fake_runtime_harness as fake
    c = cmd(mechanisms=("a",))
    rec = fake.result("a", "pinned")
    assert harness.parse("fake", [json.dumps(good), json.dumps(rec)], c)[1] == [rec]
    for change, says in [
        (lambda r: r.update(id="runtimes/other/a/pinned"), "'id' must be a string starting runtimes/fake/"),
        (lambda r: r.update(unit="ms"), "a handoff is in ns"),
        (lambda r: r["raw"]["total_ns"].__setitem__(0, 5.0), "samples must be raw.total_ns / raw.handoffs"),
        (lambda r: r["verify"].__setitem__("voluntary", [0]), "verify.voluntary must hold one count"),
        (lambda r: r.pop("warmup"), "'warmup' must say its ms and its method"),
        (lambda r: r["samples"].__setitem__(0, -1.0), "must be positive"),
        (lambda r: r["params"].pop("delay_ns"), "params.delay_ns must be an integer"),
        (lambda r: r["params"].__setitem__("delay_ns", 5), "a delay that was not asked for"),
    ]:
        bad = json.loads(json.dumps(rec))
        change(bad)
        with pytest.raises(HarnessError, match=says.replace("(", r"\(").replace(".", r"\.")):
            harness.parse("fake", [json.dumps(good), json.dumps(bad)], c)
    with pytest.raises(HarnessError, match="runtime.name 'fake'"):
        harness.parse("fake", [json.dumps({**good, "runtime": {"name": "go"}})], c)
    with pytest.raises(HarnessError, match="the same id twice"):
        harness.parse("fake", [json.dumps(good), json.dumps(rec), json.dumps(rec)], c)


@pytest.mark.slow  # signal timing: a harness and its child, killed within seconds
def test_a_hung_harness_is_killed_with_its_child_at_the_deadline(monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_RT_MODE", "hang-with-child")
    monkeypatch.setenv("FAKE_RT_PIDS", str(tmp_path / "pids"))
    t0 = time.monotonic()
    with pytest.raises(HarnessError, match=r"runtimes: fake: no answer within 2 s; stopped"):
        harness.run(found(), cmd(), timeout_s=2)
    assert time.monotonic() - t0 < 15
    pids = pids_from(tmp_path / "pids")
    assert len(pids) == 2 and gone(pids), "the harness or its child outlived the watchdog"


@pytest.mark.slow  # signal timing: a harness and its child, killed within seconds
def test_ctrl_c_kills_the_harness_and_its_child(monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_RT_MODE", "hang-with-child")
    monkeypatch.setenv("FAKE_RT_PIDS", str(tmp_path / "pids"))

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 1.5)
        with pytest.raises(KeyboardInterrupt):
            harness.run(found(), cmd(), timeout_s=60)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert gone(pids_from(tmp_path / "pids"))


@pytest.mark.slow  # signal timing: a harness and its child, killed within seconds
def test_the_harness_dies_with_the_front_end(tmp_path):
    """SIGKILL to the front end: no handler runs; PR_SET_PDEATHSIG, set in
    the child before exec, is what ends the harness."""
    script = ("import sys; sys.path.insert(0, %r)\n"
              "import test_runtimes_protocol as t\n"
              "from ctxbench.runtimes import harness\n"
              "harness.run(t.found(), t.cmd(), timeout_s=600)\n") % str(FAKE.parent)
    env = dict(os.environ, FAKE_RT_MODE="hang", FAKE_RT_PIDS=str(tmp_path / "pids"))
    front = subprocess.Popen([sys.executable, "-c", script], env=env)
    try:
        pids = pids_from(tmp_path / "pids")
        assert alive(pids[0])
        front.kill()
        front.wait()
        assert gone(pids), "the harness outlived its front end"
    finally:
        if front.poll() is None:
            front.kill()
            front.wait()


def test_find_says_in_one_line_what_is_missing(tmp_path, monkeypatch):
    rt = Runtime(name="nope", mechanisms=("x",), version_cmd=("ctxbench-no-such-tool", "version"),
                 harness=("build/x",), missing="nope: not found; `make runtimes` installs it")
    assert harness.find(rt).missing == "nope: not found; `make runtimes` installs it"
    rt = Runtime(name="nope", mechanisms=("x",), version_cmd=(sys.executable, "--version"),
                 harness=("build/runtimes/nope/ctxbench-rt-nope",), missing="-")
    f = harness.find(rt, tmp_path)
    assert not f.present and f.missing.startswith("nope: harness not built (") and "make runtimes" in f.missing
    exe = tmp_path / "build/runtimes/nope/ctxbench-rt-nope"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    f = harness.find(rt, tmp_path)
    assert f.present and f.argv == (str(exe),) and f.version.startswith("Python ")
    # an interpreter named in the environment replaces the descriptor's
    rt = Runtime(name="py", mechanisms=("x",), version_cmd=None, harness=(".venv/bin/python", str(FAKE)),
                 interpreter_env="CTXBENCH_TEST_PY")
    monkeypatch.setenv("CTXBENCH_TEST_PY", sys.executable)
    assert harness.find(rt, tmp_path).argv == (sys.executable, str(FAKE))


def test_command_refuses_what_a_placement_cannot_be():
    with pytest.raises(UserError, match="pinned runs on 1 CPU"):
        harness.command(found(), "pinned", [0, 1], ["a"], SMALL)
    with pytest.raises(UserError, match="unknown mechanism"):
        harness.command(found(), "pinned", [CPU], ["zz"], SMALL)
    with pytest.raises(UserError, match="placement must be one of"):
        harness.placement_cpus("sideways", CPU, [CPU])
    with pytest.raises(UserError, match="needs two CPUs"):
        harness.placement_cpus("default", CPU, [CPU])
    assert harness.placement_cpus("default", 1, [0, 1, 2]) == (1, 2)
    assert harness.placement_cpus("default", 2, [0, 1, 2]) == (2, 0)
    c = harness.command(found(), "pinned", [CPU], ["b"], Settings(delay_ns=1000, spawn=10))
    assert c.argv[-4:] == ("--delay-ns", "1000", "--spawn", "10") and "--park" not in c.argv


def test_a_cpu_the_child_may_not_use_is_one_line():
    c = harness.command(found(), "pinned", [max(os.sched_getaffinity(0)) + 4096], ["a"], SMALL)
    with pytest.raises(HarnessError, match=r"^runtimes: fake: cannot start .* on CPU\(s\) \[\d+\]$"):
        harness.run(found(), c, timeout_s=60)


def test_list_reads_the_harness_s_mechanisms():
    assert [m["mechanism"] for m in harness.list_mechanisms(found())] == ["a", "b"]


def test_every_descriptor_is_found_and_names_its_own_module():
    rts = harness.runtimes()
    names = [rt.name for rt in rts]
    assert len(names) == len(set(names))
    langs = Path(harness.__file__).parent / "langs"
    assert sorted(names) == sorted(p.stem for p in langs.glob("*.py") if p.stem != "__init__")
    for rt in rts:
        assert rt.mechanisms and rt.harness and rt.missing.startswith(f"{rt.name}")
        f = harness.find(rt)
        assert f.present or (f.missing and "\n" not in f.missing)
