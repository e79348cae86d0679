"""Housekeeping off the measured CPU: while the engine measures, the front
end runs on the other allowed CPUs, and the engine still sees them all."""
import json
import os
import sys

import pytest

from conftest import own_engine

from ctxbench.core import engine

FAKE = r'''#!PYTHON
import json, os, sys, time
def allowed(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("Cpus_allowed_list:"):
            return line.split(":", 1)[1].strip()
print(json.dumps({"type": "header", "tool": {}, "environment": {}}), flush=True)
time.sleep(0.3)  # the front end moves itself once the engine has started
print(json.dumps({"type": "result", "result": {"id": "fake", "own": allowed(os.getpid()),
                                                "parent": allowed(os.getppid())}}), flush=True)
'''


def _cpus(text: str) -> set[int]:
    out = set()
    for part in text.split(","):
        a, _, b = part.partition("-")
        out |= set(range(int(a), int(b or a) + 1))
    return out


@pytest.fixture
def fake_engine(tmp_path, monkeypatch):
    p = tmp_path / "fake-engine"
    p.write_text(FAKE.replace("PYTHON", sys.executable))
    p.chmod(0o755)
    own_engine(monkeypatch, p)
    before = os.sched_getaffinity(0)
    yield engine.Engine()
    # the tests that follow start engines from this process: they must see every CPU again
    assert os.sched_getaffinity(0) == before, "stream() left this process's affinity changed"
    os.sched_setaffinity(0, before)


def _stream(eng, cpu=None):
    got = []
    eng.stream(["x"], engine.EngineOptions(cpu=cpu), lambda h: None, got.append)
    return got[0]


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two allowed CPUs")
def test_front_end_leaves_the_measured_cpu(fake_engine):
    allowed = fake_engine.allowed_cpus()
    cpu = max(allowed)
    r = _stream(fake_engine, cpu)
    assert cpu not in _cpus(r["parent"]), r
    assert _cpus(r["own"]) == set(allowed), "the engine must see every allowed CPU"
    hk = fake_engine.housekeeping()
    assert hk["measured_cpu"] == cpu and cpu not in hk["front_end_cpus"] and not hk["shares_measured_cpu"]
    assert os.sched_getaffinity(0) == set(allowed), "restored after the run"


def test_default_cpu_is_the_engines(fake_engine):
    """The default is decided once (the highest allowed CPU, as the
    engine's sched_ctl.c would pick), given to the engine and recorded."""
    assert fake_engine.measured_cpu(None) == max(fake_engine.allowed_cpus())
    assert fake_engine.measured_cpu(0) == 0
    _stream(fake_engine)
    assert fake_engine.housekeeping()["measured_cpu"] == max(fake_engine.allowed_cpus())


def test_the_engine_is_always_given_the_cpu(fake_engine, monkeypatch):
    from ctxbench.core import transports
    seen = []
    start = transports.Local.start
    monkeypatch.setattr(transports.Local, "start", lambda self, args: seen.append(args) or start(self, args))
    _stream(fake_engine)
    assert seen[0][seen[0].index("--cpu") + 1] == str(max(fake_engine.allowed_cpus()))


def test_one_cpu_is_said(fake_engine):
    only = min(fake_engine.allowed_here)
    fake_engine.allowed_here = frozenset({only})
    _stream(fake_engine, only)
    assert fake_engine.housekeeping()["shares_measured_cpu"] is True
    json.dumps(fake_engine.housekeeping())
