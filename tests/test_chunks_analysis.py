"""The chunk design's arithmetic (tasks/chunked.py, irq/chunked.py,
stats/robust.py, stats/recovery.py) on made-up engine records with known
answers, and records a damaged file could hold: left out, never a
traceback. No engine."""
import math

import numpy as np
import pytest

from ctxbench.core import chunks
from ctxbench.irq import chunked as irq_chunked
from ctxbench.stats import recovery
from ctxbench.stats.robust import Rounds, hodges_lehmann, hodges_lehmann_rows
from ctxbench.tasks import chunked as tasks_chunked
from ctxbench.records import RECORDS

LO = [0, 1, 2, 3]


def _role(role, task, events, excess, gap, whole, tail=0.0, curve=(0.0, 0.0, 0.0, 0.0), ref=1000.0):
    loc = lambda v: {"n": events, "mean": v, "tmean": v, "median": v}  # noqa: E731
    return {"role": role, "task": task, "events": events, "chunks": 10 * events, "ref_chunk_ns": ref,
            "chunk_ns": ref, "excess": loc(excess), "gap": loc(gap), "whole": loc(whole), "tail": loc(tail),
            "after": loc(excess / 2), "curve": {"tmean": [c + tail for c in curve], "mean": list(curve),
                                                 "x_ns": [0, 1000, 2000, 3000], "t_ns": [ref] * 4,
                                                 "chunks": [events] * 4, "events": [events] * 4}}


def _result(rid, runs, key="n", rounds=6, ns=(1, 1000, 4000)):
    samples, group, nraw = [], [], []
    for g in range(rounds):
        for n in ns:
            samples.append(1e6)
            group.append(g)
            nraw.append(n)
    return {"id": rid, "samples": samples, "group": group, "raw": {"n": nraw}, "params": {"pair": "x+y"},
            "chunks": {"key": key, "bucket_lo": LO, "trim": 0.1, "window_max": 256, "clock": "test",
                       "runs": runs}}


def test_a_known_cost_per_switch_comes_back():
    """Per switch = (k_a e_a + k_b e_b) / (k_a + k_b) + (hand-off - the empty
    pair's): 100 ns and 300 ns per switch-in, a hand-off 200 ns dearer."""
    pair, empty = [], []
    for g in range(6):
        for n in (1000, 4000):
            ka, kb = n // 2, n // 2 - 1
            pair.append({"group": g, "n": n, "roles": [_role("a", "x", ka, 100.0, 2200.0, 150.0),
                                                      _role("b", "y", kb, 300.0, 2200.0, 350.0)]})
            empty.append({"group": g, "n": n, "roles": [_role("a", "e", ka, 0.0, 2000.0, 0.0),
                                                       _role("b", "e", kb, 0.0, 2000.0, 0.0)]})
    out = tasks_chunked.analyse(_result("tasks/x+y", pair), _result("tasks/empty+empty", empty), list(range(6)))
    k = {1000: (500, 499), 4000: (2000, 1999)}
    tot = sum(a + b for a, b in k.values())
    want = sum(a * 100 + b * 300 for a, b in k.values()) / tot + 200
    assert out["per_switch"]["estimate_ns"] == pytest.approx(want)
    assert out["switch_inflation"]["estimate_ns"] == pytest.approx(200)
    assert out["per_switch_in"]["a"]["estimate_ns"] == pytest.approx(100)
    share = out["paid_by"]["a"]["estimate_ns"] + out["paid_by"]["b"]["estimate_ns"]
    assert share + 200 == pytest.approx(out["per_switch"]["estimate_ns"])
    assert out["by_n"]["1000"]["in_full"]["estimate_ns"] == pytest.approx((500 * 150 + 499 * 350) / 999 + 200)


def test_interrupts_subtract_the_spins_d():
    """indirect per interrupt = the task's excess per signal minus the spin's."""
    by = {"crc": [], "spin": []}
    for g in range(6):
        for rate in (1000, 10000):
            by["crc"].append(chunks.RoleRun(g, rate, "task", "crc", _role("task", "crc", rate // 10, 20400.0, -1, 0)))
            by["spin"].append(chunks.RoleRun(g, rate, "task", "spin", _role("task", "spin", rate // 10, 20000.0, -1, 0)))
    out = irq_chunked.analyse(by, [1000, 10000], LO)
    assert out["tasks"]["crc"]["per_interrupt"]["estimate_ns"] == pytest.approx(400)
    assert out["D"]["estimate_ns"] == pytest.approx(20000)


def test_hodges_lehmann():
    assert hodges_lehmann([1, 2, 3]) == 2
    assert hodges_lehmann([1, 2, 3, 1000]) < 10  # one wild round moves it little
    assert math.isnan(hodges_lehmann([math.nan]))
    m = np.array([[1, 2, 3], [1, math.nan, 3], [math.nan] * 3])
    r = hodges_lehmann_rows(m)
    assert r[0] == 2 and r[1] == 2 and math.isnan(r[2])


def test_recovered_after_the_last_resolved_point():
    """Three rounds of a curve: 100 ns, then 10 ns, then 0: back within
    noise from the third point (the rule: every later interval holds 0 or is
    within 1% of its chunk)."""
    per = {g: np.array([100.0 + g, 10.0 + g / 10, 0.1 * (g - 1), -0.1 * (g - 1)]) for g in range(3)}
    c = recovery.curve(per, Rounds([0, 1, 2]), LO, np.array([500.0, 1500, 2500, 3500]), np.full(4, 1000.0))
    assert c["recovered"] and c["recovered_at_chunk"] == 2 and c["recovered_after_ns"] == 2500


@pytest.mark.parametrize("runs", [
    "garbage", [1, 2], [{"group": "x", "n": 1000, "roles": []}], [{"group": 0, "n": 1000, "roles": "x"}],
    [{"group": 0, "n": 1000, "roles": [{"role": "a", "events": "many", "excess": [1], "curve": {"tmean": "x"}}]}],
    [{"group": True, "n": 1000, "roles": [{"curve": 5}]}],
])
def test_a_damaged_chunks_record_is_left_out(runs):
    r = _result("tasks/x+y", runs)
    got = chunks.runs(r)
    assert all(isinstance(x, chunks.RoleRun) for x in got)
    out = tasks_chunked.analyse(r, r, list(range(6)))  # nothing usable: None, or effects of nothing
    assert out is None or isinstance(out, dict)


def test_a_control_rate_that_took_no_signal_has_no_cost_per_signal():
    """irq's control at a rate whose runs took no signal (100 Hz on a tiny
    task) whose I still came out resolved: said per run, not divided by 0
    (a ZeroDivisionError traceback before)."""
    from ctxbench.irq import analysis
    i = {"estimate_ns": 500.0, "ci95": [100.0, 900.0], "se_ns": 200.0, "mde_ns": 560.0, "resolved": True,
         "below_mde": False, "unit": "ns"}
    k0 = {"n": 2, "mean": 0.0, "median": 0.0, "ci95": [0.0, 0.0]}
    p = RECORDS.result({"id": "irq/spin/rate=100", "params": {"task": "spin", "rate_hz": 100}, "samples": [1.0],
                           "parts": {"I": i, "interrupts": k0}})
    v = analysis.control_verdict({"per_interrupt": {}}, [p])
    assert v["ok"] is False and "no signal taken" in v["reason"]
