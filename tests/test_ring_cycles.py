"""The ring in core cycles, without measuring: each sample's ns times its
group's clock f (the engine's probe) gives its cycles; the cost above the
ping-pong is paired round by round in cycles as in ns, and its verdict uses
the unit whose MDE is smaller (ring/analysis.py `paired_twin`)."""
import numpy as np
import pytest

from ctxbench.core import cycles, model
from ctxbench.core.results import plain
from ctxbench.ring import analysis
from ctxbench.ring.command import render_checks, render_table

OPS = 131072
ROUNDS, PER_GROUP = 16, 6


def probe(f_by_round):
    g = sorted(f_by_round)
    t = [OPS / f_by_round[x] for x in g]
    return {"ops": OPS, "group": g, "before_ns": t, "after_ns": list(t), "pmu_cycles_per_op": [None] * len(g)}


def result(rid, params, cyc, f_by_round, seed, noise=0.0):
    """A result whose samples take `cyc` cycles (plus noise in cycles), each
    group timed at its clock."""
    rng = np.random.default_rng(seed)
    x, g = [], []
    for r, f in f_by_round.items():
        c = cyc + (rng.normal(0, noise, PER_GROUP) if noise else np.zeros(PER_GROUP))
        x += (c / f).tolist()
        g += [r] * PER_GROUP
    return model.analyse({"id": rid, "quantity": "switch", "unit": "ns", "params": params, "samples": x, "group": g,
                          "clock_probe": probe(f_by_round), "warnings": []})


def clocks(seed, lo=3.0, hi=3.7):
    return {r: float(v) for r, v in enumerate(np.random.default_rng(seed).uniform(lo, hi, ROUNDS))}


RING = {"kind": "thread", "mechanism": "pipe", "parties": 8, "footprint": 0}
PP = {"kind": "thread", "mechanism": "pipe"}


def test_known_clocks_give_known_cycles_above_the_ping_pong():
    # the ring's groups and the ping-pong's of one round are timed apart, at different clocks
    ring = result("ring/thread/pipe", RING, 9000.0, clocks(1), 1)
    pp = result("kernel/thread/pipe/same-cpu", PP, 7000.0, clocks(2), 2)
    e = analysis.paired_twin(ring, pp)
    assert e["cycles"]["estimate_cycles"] == pytest.approx(2000.0, rel=1e-9)
    assert e["unit"] == "cycles" and e["mde_ratio"] < 1e-6  # the clock was the only noise
    ring, pp = analysis.with_above_pingpong([ring, pp])
    assert model.Result(ring).above_pingpong["unit"] == "cycles"
    assert "cyc" in render_table([ring, pp])


def test_a_slower_clock_leaves_cycles_unchanged_and_ns_higher():
    x = 0.15
    fr, fp = clocks(3, 3.5, 3.6), clocks(4, 3.5, 3.6)
    a = analysis.paired_twin(result("ring/thread/pipe", RING, 9000.0, fr, 5, 300.0),
                             result("kernel/thread/pipe/same-cpu", PP, 7000.0, fp, 6, 300.0))
    slow = lambda f: {r: v / (1 + x) for r, v in f.items()}  # noqa: E731
    b = analysis.paired_twin(result("ring/thread/pipe", RING, 9000.0, slow(fr), 5, 300.0),
                             result("kernel/thread/pipe/same-cpu", PP, 7000.0, slow(fp), 6, 300.0))
    assert b["cycles"]["estimate_cycles"] == pytest.approx(a["cycles"]["estimate_cycles"], rel=1e-9)
    assert b["cycles"]["mde_cycles"] == pytest.approx(a["cycles"]["mde_cycles"], rel=1e-9)
    assert b["estimate_ns"] == pytest.approx(a["estimate_ns"] * (1 + x), rel=1e-9)
    assert b["mde_ns"] == pytest.approx(a["mde_ns"] * (1 + x), rel=1e-9)
    assert b["ratio"] == pytest.approx(a["ratio"], rel=1e-9)


def test_the_n2_check_carries_both_units_and_stays_a_ratio_of_medians():
    ring = result("ring/thread/pipe", dict(RING, parties=2), 7000.0, clocks(7), 7, 100.0)
    pp = result("kernel/thread/pipe/same-cpu", PP, 7000.0, clocks(8), 8, 100.0)
    (c,) = analysis.n2_checks([ring, pp])
    assert {"estimate_ns", "mde_ns", "cycles", "unit", "mde_ratio"} <= set(c["difference"])
    assert abs(c["difference"]["cycles"]["estimate_cycles"]) < c["difference"]["cycles"]["mde_cycles"]
    assert c["ok"]
    assert "MDE" in render_checks([c], {"rounds": ROUNDS}, {})


def test_without_a_probe_the_difference_stays_in_ns():
    ring = result("ring/thread/pipe", RING, 9000.0, clocks(1), 1, 100.0)
    pp = result("kernel/thread/pipe/same-cpu", PP, 7000.0, clocks(2), 2, 100.0)
    ring, pp = ({k: v for k, v in plain(r).items() if k != "clock_probe"} for r in (ring, pp))
    e = analysis.paired_twin(model.analyse(ring), model.analyse(pp))
    assert e["unit"] == "ns" and e["cycles"] is None and e["cycles_why"]
    assert cycles.chosen(e)["estimate"] == e["estimate_ns"]
