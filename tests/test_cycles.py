"""Core cycles (core/cycles.py, issue 32): the arithmetic, on synthetic
results with known clocks (no measuring). A group's clock is ops over
the probe's time; each sample's cycles are its ns times its group's
clock; a host that runs x% slower makes every ns x% longer and the probe
x% longer, which leaves cycles unchanged."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ctxbench.core import cycles, model

OPS = 131072


def synthetic(cost_cycles: float, ghz_by_group: list[float], per_group: int = 4, probe_slower: float = 0.0,
              rid: str = "kernel/thread/pipe/same-cpu", quantity: str = "switch") -> dict:
    """A raw engine result whose every sample costs `cost_cycles` core
    cycles at its group's clock, with the probe's readings that clock
    implies; `probe_slower` lengthens the 'after' readings by that share
    (the clock moved within the group)."""
    samples, groups = [], []
    for g, f in enumerate(ghz_by_group):
        samples += [cost_cycles / f] * per_group
        groups += [g] * per_group
    before = [OPS / f for f in ghz_by_group]
    return {"id": rid, "quantity": quantity, "unit": "ns", "params": {"cpu": 1}, "samples": samples,
            "group": groups, "warnings": [],
            "clock_probe": {"ops": OPS, "reps": 5, "check_ops": 32768, "check_latency_cycles": 3,
                            "group": list(range(len(ghz_by_group))), "before_ns": before,
                            "after_ns": [t * (1 + probe_slower) for t in before],
                            "check_before_ns": [t / OPS * 32768 * 3 for t in before],
                            "check_after_ns": [t / OPS * 32768 * 3 for t in before],
                            "pmu_cycles_per_op": [None] * len(ghz_by_group), "cpu": [1] * len(ghz_by_group)}}


def test_known_clocks_give_known_cycles():
    r = model.analyse(synthetic(7000.0, [3.5, 3.6, 3.7, 3.0, 2.5]))
    c = model.Result(r).cycles
    assert c.applies and c.method == "probe"
    assert np.allclose(c.samples, 7000.0)
    assert c.summary.median == pytest.approx(7000.0)
    assert c.clock["ghz_min"] == pytest.approx(2.5) and c.clock["ghz_max"] == pytest.approx(3.7)
    assert c.clock["check"]["ok"] is True and c.clock["check"]["ratio"] == pytest.approx(3.0)


@pytest.mark.parametrize("slower", [0.05, 0.12, 0.30])
def test_a_slower_host_leaves_cycles_and_lengthens_ns(slower):
    """The same work on a host x% slower: every ns and every probe reading
    x% longer. Cycles do not move; ns move by x."""
    fast = model.Result(model.analyse(synthetic(5000.0, [3.6] * 8)))
    slow = model.Result(model.analyse(synthetic(5000.0, [3.6 / (1 + slower)] * 8)))
    assert slow.summary.median / fast.summary.median == pytest.approx(1 + slower)
    assert slow.cycles.summary.median == pytest.approx(fast.cycles.summary.median)


def test_a_clock_that_moves_within_a_group_takes_the_mean_of_its_two_readings():
    raw = synthetic(1000.0, [3.0, 3.0], probe_slower=0.10)
    f = cycles.group_clock(raw["clock_probe"])
    assert f[0] == pytest.approx((3.0 + 3.0 / 1.1) / 2)
    rec = cycles.clock_record(raw["clock_probe"], f)
    assert rec["groups_moved"] == 2 and rec["moved_within_group_max"] == pytest.approx(1 - 1 / 1.1)


def test_a_pmu_corrects_the_probe_by_its_counted_cycles_per_add():
    raw = synthetic(1000.0, [3.0, 3.0])
    raw["clock_probe"]["pmu_cycles_per_op"] = [1.05, 1.05]
    c = model.Result(model.analyse(raw)).cycles
    assert c.method == "pmu" and c.summary.median == pytest.approx(1050.0)


def test_a_check_chain_off_its_latency_is_a_warning_not_a_silence():
    raw = synthetic(1000.0, [3.0, 3.0])
    p = raw["clock_probe"]
    p["check_before_ns"] = p["check_after_ns"] = [t * 2 for t in p["check_before_ns"]]  # a 6x ratio: adds folded
    r = model.analyse(raw)
    assert model.Result(r).cycles.clock["check"]["ok"] is False
    assert [w.code for w in r.warnings] == ["clock_probe"]


@pytest.mark.parametrize("rid,quantity,why", [
    ("kernel/thread/pipe/cross-cpu", "wakeup", "cross-CPU"),
    ("noise/gaps", "noise", "interruptions"),
])
def test_where_cycles_are_the_wrong_unit_the_result_says_why(rid, quantity, why):
    c = model.Result(model.analyse(synthetic(1000.0, [3.0, 3.0], rid=rid, quantity=quantity))).cycles
    assert not c.applies and why in c.why


def test_a_result_without_the_probe_keeps_ns_and_says_so():
    raw = synthetic(1000.0, [3.0, 3.0])
    del raw["clock_probe"]
    c = model.Result(model.analyse(raw)).cycles
    assert not c.applies and c.why == cycles.NO_PROBE


def test_dropped_samples_are_left_out_in_cycles_as_in_ns():
    raw = synthetic(1000.0, [3.0, 3.0], per_group=3)
    raw["samples"][0] = 1e6  # the sample a verification would drop
    c = cycles.record_of(raw, keep=[False] + [True] * 5)
    assert c["summary"]["n"] == 5 and c["summary"]["median"] == pytest.approx(1000.0)


def test_appending_and_relabelling_keeps_each_group_with_its_clock():
    """Two engine jobs of one id (tasks' pilot and the rest, a sweep's
    rounds): the second's groups renumbered after the first's, its probe's
    with them, so every sample keeps its own group's clock."""
    a = synthetic(2000.0, [3.0, 3.0])
    b = synthetic(2000.0, [2.0, 2.0, 2.0])
    merged = model.append_samples(a, model.relabel_groups(b, lambda g: g + 2))
    assert merged["group"] == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4
    assert merged["clock_probe"]["group"] == [0, 1, 2, 3, 4]
    c = model.Result(model.analyse(merged)).cycles
    assert np.allclose(c.samples, 2000.0)


def test_a_job_without_the_probe_leaves_the_merged_result_without_cycles():
    a = synthetic(2000.0, [3.0])
    b = synthetic(2000.0, [3.0])
    del b["clock_probe"]
    merged = model.append_samples(a, model.relabel_groups(b, lambda g: g + 1))
    assert "clock_probe" not in merged
    assert not model.Result(model.analyse(merged)).cycles.applies


def test_the_mde_between_runs_is_from_the_interval():
    s = {"ci95": [98.0, 102.0]}
    se = 2.0 / 1.959963984540054
    assert cycles.mde_between_runs(s) == pytest.approx(2.8015 * math.sqrt(2) * se, rel=1e-3)
    assert math.isnan(cycles.mde_between_runs({"ci95": [None, None]}))


def test_drift_is_estimated_in_both_units_and_cycles_take_the_clock_out():
    """Ids measured interleaved on a host whose clock moves from round to
    round by persisting steps: in ns, the drift common to all ids is the
    clock's; in cycles, none is left."""
    rng = np.random.default_rng(1)
    ghz = np.repeat(3.0 * np.exp(rng.normal(0, 0.05, 12)), 2).tolist()  # 24 rounds, each level for 2 rounds
    res = [model.analyse(synthetic(c, ghz)) for c in (500.0, 7000.0, 16.0)]
    res, d = model.apply_drift(res)
    assert d["relative_sd"] > 0.02
    assert d["cycles"]["relative_sd"] == pytest.approx(0.0, abs=1e-9)
    for r in res:
        assert model.Result(r).cycles.summary.median == pytest.approx(model.Result(r).cycles.samples[0])


def test_under_an_emulator_the_probe_times_the_emulator_and_cycles_are_left_out():
    raw = synthetic(1000.0, [3.0, 3.0])
    raw["clock_probe"]["emulated"] = "task name is qemu-aarch64"
    c = model.Result(model.analyse(raw)).cycles
    assert not c.applies and "emulator" in c.why and "qemu-aarch64" in c.why


def test_a_sweep_point_whose_working_sets_go_to_dram_keeps_ns():
    raw = synthetic(1000.0, [3.0, 3.0])
    raw["params"]["working_set_level"] = "memory"
    c = model.Result(model.analyse(raw)).cycles
    assert not c.applies and "DRAM" in c.why
    raw["params"]["working_set_level"] = "LLC"
    assert model.Result(model.analyse(raw)).cycles.applies
