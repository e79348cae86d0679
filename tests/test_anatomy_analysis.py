"""The anatomy's arithmetic on synthetic rungs (no measuring): each part is
the difference it claims, the chain's sum check finds a gap that is there
and none that is not, and compare/report re-derive the same parts."""
import math

import numpy as np

from ctxbench.anatomy import analysis, ladder

N = 100  # messages per sample
GROUPS = 12


def _rung(rid, per_round, single_ns=0.0, params=None, rng=None, switch_extra=0.0):
    """A result whose sample in round g is per_round[g] (+ tiny noise), with
    t_single = single_ns per message and t_switch from the formula (plus
    switch_extra per hand-off: samples that disagree with their raw times)."""
    rng = rng or np.random.default_rng(1)
    samples, groups, ts, tw = [], [], [], []
    for g, v in enumerate(per_round):
        for _ in range(3):
            x = v + rng.normal(0, 1.0)
            samples.append(x)
            groups.append(g)
            ts.append(single_ns * N)
            tw.append(2 * (x * N + single_ns * N + switch_extra * N))  # t_avg = (t_switch/2 - t_single)/n
    return {"id": rid, "quantity": "switch", "unit": "ns", "params": {"n": N, **(params or {})},
            "samples": samples, "group": groups, "raw": {"t_single_ns": ts, "t_switch_ns": tw},
            "verification": {"checked": False, "dropped_samples": []},
            "summary": {"median": float(np.median(samples)), "ci95": [min(samples), max(samples)]}}


def _drift():
    return 1.0 + 0.05 * np.sin(np.arange(GROUPS))  # the host's speed, common to every rung in a round


def _ladder(process_single=900.0, switch_extra=0.0):
    d = _drift()
    return {"syscall": _rung("baseline/syscall", 150 * d),
            "thread": _rung("kernel/thread/pipe/same-cpu", 2400 * d, single_ns=900.0),
            "process": _rung("kernel/process/pipe/same-cpu", 2500 * d, single_ns=process_single,
                             switch_extra=switch_extra),
            "fifo": _rung("kernel/thread/pipe/same-cpu/fifo", 2300 * d, params={"policy": "SCHED_FIFO"}),
            "test-busy": _rung("test/anatomy/thread/pipe/busy-5000", 2400 * d + 5000)}


def _part(a, name):
    return next(p for p in a["parts"] if p["name"] == name)


def test_parts_are_the_differences_they_claim():
    a = analysis.anatomy(_ladder(), [], "pipe")
    assert math.isclose(_part(a, "system calls: entry and exit")["estimate_ns"], 2 * 150 * _drift().mean(), rel_tol=0.01)
    assert math.isclose(_part(a, "the mechanism's send and receive")["estimate_ns"],
                        900 - 2 * 150 * _drift().mean(), rel_tol=0.01)
    assert math.isclose(_part(a, "address space (process - thread)")["estimate_ns"], 100 * _drift().mean(), rel_tol=0.02)
    fifo = _part(a, "SCHED_FIFO - SCHED_OTHER")
    assert fifo["estimate_ns"] < 0 and fifo["resolved"]  # printed as measured, negative
    busy = _part(a, "test: injected busy work")
    assert abs(busy["estimate_ns"] - 5000) < 5 and busy["ci95"][0] <= 5000 <= busy["ci95"][1]
    assert all(p["chain"] == (p["name"] in {q.name for q in ladder.PARTS if q.chain}) for p in a["parts"])


def test_sum_check_adds_up_when_the_pieces_are_one_configuration():
    sc = analysis.anatomy(_ladder(), [], "pipe")["sum_check"]
    assert sc["within_total_interval"] or abs(sc["gap"]["estimate_ns"]) < 1
    assert abs(sc["gap"]["estimate_ns"]) < 1


def test_the_calls_between_processes_are_a_part_of_the_chain():
    # the process pair's own send and receive 100 ns cheaper than the thread
    # pair's (an unshared file table): a part, and the chain still adds up
    a = analysis.anatomy(_ladder(process_single=800.0), [], "pipe")
    assert math.isclose(_part(a, "the calls between processes")["estimate_ns"], -100, abs_tol=1)
    assert abs(a["sum_check"]["gap"]["estimate_ns"]) < 1


def test_sum_check_shows_a_gap_that_is_there():
    # a total that its samples do not explain (raw times 100 ns per hand-off
    # longer than the formula's samples say): the gap is shown, resolved
    sc = analysis.anatomy(_ladder(switch_extra=100.0), [], "pipe")["sum_check"]
    assert not sc["within_total_interval"]
    assert math.isclose(sc["gap"]["estimate_ns"], 100, abs_tol=1) and sc["gap"]["resolved"]


def test_a_rung_without_its_property_is_not_a_part():
    rungs = _ladder()
    rungs["fifo"]["params"]["policy"] = "SCHED_OTHER"
    rungs["fifo"]["warnings"] = [{"code": "engine", "text": "sched_setscheduler: Operation not permitted"}]
    a = analysis.anatomy(rungs, [{"rung": "ibpb", "reason": "not available here: EPERM"}], "pipe")
    names = {s["rung"] for s in a["not_available"]}
    assert names == {"fifo", "ibpb"}
    assert "not permitted" in next(s["reason"] for s in a["not_available"] if s["rung"] == "fifo")


def test_report_and_compare_re_derive_the_same_parts():
    rungs = _ladder()
    by = analysis.rungs_of(list(rungs.values()))
    assert set(by) == {"pipe"} and set(by["pipe"]) >= {"syscall", "thread", "process", "fifo"}
    a = analysis.anatomy(by["pipe"], [], "pipe")
    same = analysis.compare_parts(a, a)
    assert same and all(r["estimate_ns"] == 0 and not r["resolved"] for r in same)
    slower = _ladder(process_single=900.0)
    slower["process"] = _rung("kernel/process/pipe/same-cpu", 2700 * _drift(), single_ns=900.0)
    b = analysis.anatomy(slower, [], "pipe")
    moved = {r["name"]: r for r in analysis.compare_parts(a, b)}
    assert moved["address space (process - thread)"]["resolved"]
    assert math.isclose(moved["address space (process - thread)"]["estimate_ns"], 200 * _drift().mean(), rel_tol=0.05)
    assert not moved["the switch, thread to thread"]["resolved"]


def test_waterfall_draws_parts_and_the_gap():
    from ctxbench.anatomy import figures
    a = analysis.anatomy(_ladder(switch_extra=100.0), [], "pipe")
    fig = figures.waterfall(a, {})
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert "not attributed" in labels and any("SCHED_FIFO" in x for x in labels)
    assert figures.waterfall({"parts": []}, {}) is None


def test_the_profiled_rung_brings_its_attribution_and_the_sampling_cost():
    rungs = _ladder()
    prof = _rung("kernel/thread/pipe/same-cpu/profiled", 2600 * _drift(), single_ns=900.0)
    prof["profile"] = {"event": "cpu-clock", "scope": "cpu", "period_ns": 500_000, "samples": 10, "user_samples": 0,
                       "other_samples": 0, "lost": 0, "chains_dropped": 0, "handoffs": 1000, "window_ns": 5_000_000,
                       "chains": [{"count": 10, "ips": ["0x1"], "functions": ["__schedule"]}]}
    rungs["profiled"] = prof
    at = analysis.anatomy(rungs, [], "pipe")["attribution"]
    assert math.isclose(at["handoff_ns"], analysis.handoff_ns(prof))
    assert [g["group"] for g in at["groups"]] == ["schedule: pick and switch"]
    pert = at["perturbation"]  # profiled - thread, round by round
    assert abs(pert["estimate_ns"] - 200 * _drift().mean()) < 5 and pert["resolved"]
    assert set(pert) == set(analysis.EFFECT_KEYS) | {"what"}
