"""The ring (engine/src/ring/ring.c) as an instrument: switch counts for every
N, and at N = 2 the ring agrees with the ping-pong it generalises."""
import json

import pytest

from conftest import run_engine

from ctxbench.core import model
from ctxbench.core.results import plain
from ctxbench.core.verification import SLACK
from ctxbench.ring import analysis

pytestmark = pytest.mark.machine


def _run(*args):
    p = run_engine("run", *args, "--json", "--warmup-ms", "0", timeout=240)
    assert p.returncode == 0, p.stderr
    return [plain(model.analyse(r)) for r in json.loads(p.stdout)["results"]]  # read as the engine wrote them


@pytest.mark.parametrize("rid", ["ring/thread/futex", "ring/process/pipe"])
def test_switch_counts_for_every_n(rid):
    for n in (2, 3, 8, 32):
        (r,) = _run(rid, "--parties", str(n), "--footprint", "4K", "--groups", "2", "--iterations", "4",
                    "--min-sample-us", "300")
        p, v = r["params"], r["verify"]
        assert p["parties"] == n and p["footprint"] == 4096 and p["placement"] == "ring"
        laps = p["n"]
        k = len(r["samples"])
        assert k == 8 and all(x is not None for x in v["voluntary"]), v
        # every sample: laps * N hand-offs expected, and at least that many
        # switches happened (missing switches would be an instrument bug;
        # extra ones can come from other load and are judged, not asserted)
        assert v["expected_voluntary"] == [laps * n] * k
        for i in range(k):
            assert v["voluntary"][i] + v["involuntary"][i] >= laps * n - (SLACK + n), (n, i, v)
            assert v["voluntary"][i] <= laps * n + SLACK + n, (n, i, v)
        assert r["verification"]["checked"]
        assert 0.9 <= r["verification"]["switches_per_handoff"] <= 2.1


def test_bad_ring_options_one_line():
    for args in (["--parties", "1"], ["--parties", "x"], ["--footprint", "-3"]):
        p = run_engine("run", "ring/thread/pipe", *args)
        assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr


@pytest.mark.parametrize("kind,mech", [("thread", "pipe"), ("process", "futex")])
def test_two_party_ring_switches_like_the_ping_pong(kind, mech):
    """N = 2: the ring must do per hand-off what the ping-pong does, one
    voluntary switch on one CPU and no migration, counted around every
    sample (a cross-CPU wake-up or a missed switch shows in the counts,
    whatever the load). The paired check is run and recorded; whether its
    medians agree within 10% is a timing comparison: `make bench`
    (bench/test_ring_n2.py) reports it."""
    rs = _run(f"ring/{kind}/{mech}", f"kernel/{kind}/{mech}/same-cpu", "--ring-points", "2:0", "--interleave",
              "--groups", "4", "--iterations", "4", "--min-sample-us", "500", "--settle-us", "200")
    for r in rs:
        v, rec = r["verify"], r["verification"]
        assert rec["checked"] and all(m == 0 for m in v["migrations"]), (r["id"], v["migrations"])
        handoffs = v["expected_voluntary"]
        for vol, inv, exp in zip(v["voluntary"], v["involuntary"], handoffs):
            assert exp > 0 and vol + inv >= exp - SLACK and vol <= exp + SLACK, (r["id"], vol, inv, exp)
    (c,) = analysis.n2_checks(rs)
    # rounds in which both kept samples (a loaded host may take every sample of one)
    assert 1 <= c["rounds"] <= 4 and c["kind"] == kind and c["mechanism"] == mech
    assert c["ring_ns"] > 0 and c["pingpong_ns"] > 0 and isinstance(c["ok"], bool)


def test_ring_points_expand_only_ring_ids():
    """--ring-points: each ring id once per point, every other id once, and
    every group's wait for a quiet CPU recorded."""
    rs = _run("ring/thread/futex", "baseline/syscall", "--ring-points", "2:0,3:1K", "--interleave", "--groups", "2",
              "--iterations", "2", "--min-sample-us", "200", "--settle-us", "200")
    pts = sorted((r["id"], r["params"].get("parties"), r["params"].get("footprint")) for r in rs)
    assert pts == [("baseline/syscall", None, None), ("ring/thread/futex", 2, 0), ("ring/thread/futex", 3, 1024)]
    for r in rs:
        s = r["settle"]
        assert s["window_ns"] == 200000 and len(s["waited_ns"]) == 2 and len(s["quiet"]) == 2
        assert all(w >= 0 for w in s["waited_ns"]) and all(w <= s["limit_ns"] + 10**8 for w in s["waited_ns"])


def test_bad_ring_points_one_line():
    for args in (["--ring-points", "1:0"], ["--ring-points", "2"], ["--ring-points", "2:0", "--parties", "3"],
                 ["--settle-us", "0"]):
        p = run_engine("run", "ring/thread/pipe", *args)
        assert p.returncode == 2 and p.stderr.count("\n") == 1, (args, p.stderr)
