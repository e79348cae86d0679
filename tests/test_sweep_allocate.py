"""The sweep's allocation on synthetic data (no measuring): the rounds a
point's own spread needs, cheapest to close first, nothing for closed
points, never more than a point needs, and the time given is never
exceeded, over a whole simulated sweep."""
import math

import numpy as np

from ctxbench.stats import power
from ctxbench.sweep import allocate


def _p(k, sd, cost=0.1, rounds=3, closed=False, target=1.0, least=0):
    return allocate.PointState(k, rounds, sd, cost, closed, target, least)


def _rounds(plan):
    n = {}
    for rnd in plan:
        for k in rnd:
            n[k] = n.get(k, 0) + 1
    return n


def test_more_rounds_where_the_spread_is_larger():
    """Funded points get the rounds their own spread needs: (sd / target)^2."""
    pts = [_p("quiet", 2.0), _p("mid", 4.0), _p("noisy", 8.0)]
    n = _rounds(allocate.plan(pts, time_s=60.0, most=10_000, per_plan=1000))
    # se = sd / sqrt(3) must reach 1: 3 * (sd^2 / 3) = sd^2 rounds in all, 3 measured
    for k, sd in (("quiet", 2.0), ("mid", 4.0), ("noisy", 8.0)):
        assert abs(n[k] - (sd ** 2 - 3)) <= 1, (k, n[k])  # +-1: the rounding up of the need


def test_cheapest_to_close_first_and_the_dear_point_waits():
    """A point whose goal costs more than the budget does not take the time
    the others need (a Neyman allocation gave it most of the budget); it
    gets what the others leave."""
    pts = [_p("cheap", 20.0, cost=0.01), _p("mid", 20.0, cost=0.05), _p("dear", 200.0, cost=1.0)]
    first = _rounds(allocate.plan(pts, time_s=30.0, most=100_000, per_plan=10_000))
    assert abs(first["cheap"] - 397) <= 1 and first["mid"] == first["cheap"]  # 400 in all
    assert first["dear"] <= 30.0 - 0.06 * first["cheap"]  # what the others leave, no more
    # but every point is first funded up to its `least` rounds, the dear one too
    pts = [_p("cheap", 20.0, cost=0.01, least=8), _p("dear", 200.0, cost=1.0, least=8)]
    first = _rounds(allocate.plan(pts, time_s=30.0, most=100_000, per_plan=10_000))
    assert first == {"cheap": 5, "dear": 5}  # this plan: both to 8 rounds, the rest follows
    # nothing left to fund: the cheapest to close get one round each, as the time pays
    pts = [_p("dear", 200.0, cost=1.0), _p("dearer", 400.0, cost=1.0)]
    assert allocate.plan(pts, time_s=1.5, most=100_000) == [["dear"]]


def test_closed_points_get_nothing_and_no_point_gets_more_than_it_needs():
    pts = [_p("done", 500.0, closed=True), _p("easy", 10.0, rounds=4, target=10.0), _p("hard", 100.0)]
    n = _rounds(allocate.plan(pts, 1e6, 500, per_plan=10_000))
    assert "done" not in n
    # se of 'easy' is 10/sqrt(4) = 5, below its target 10, yet it is open: one round (its spread may have grown)
    assert n["easy"] == 1
    # 'hard' needs se 1 from sd 100: 10,000 rounds; capped by `most`
    assert n["hard"] == 500 - 3
    # at least `least` rounds before a point may close
    assert _rounds(allocate.plan([_p("x", 1.0, rounds=3, target=100.0, least=5)], 10.0, 100))["x"] == 2
    # a plan holds at most per_plan rounds, round j the points that need more than j
    plan = allocate.plan([_p("a", 1.5), _p("b", 4.0)], 100.0, 1000, per_plan=4)
    assert [sorted(r) for r in plan] == [["a", "b"], ["b"], ["b"], ["b"]]


def test_a_simulated_sweep_respects_the_budget_and_closes_what_it_can():
    """Plans of points with known spreads and costs until the budget ends:
    the time spent never exceeds it, every point the budget can close
    reaches its goal, the noisier of two equally cheap points gets more
    rounds, and the point whose goal costs more than the budget is still
    measured with what is left (its MDE honestly larger)."""
    rng = np.random.default_rng(7)
    sds = {"p0": 5, "p1": 30, "p2": 60, "p3": 40, "p4": 2000}
    costs = {"p0": 0.01, "p1": 0.01, "p2": 0.01, "p3": 0.05, "p4": 0.5}
    target = 5.0
    data = {k: list(rng.normal(0, sds[k], 3)) for k in sds}  # the pilot
    budget, spent = 60.0, 0.0
    for _ in range(10_000):  # bounded: each loop spends > 0 or stops
        pts = []
        for k, v in data.items():
            sd = float(np.std(v, ddof=1))
            closed = len(v) >= 8 and power.mde(sd / math.sqrt(len(v))) <= power.mde(target)
            pts.append(_p(k, sd, costs[k], len(v), closed=closed, target=target, least=8))
        plan = allocate.plan(pts, budget - spent, 10_000)
        if not plan:
            break
        cost = sum(costs[k] for rnd in plan for k in rnd)
        assert cost <= budget - spent + 1e-9
        spent += cost
        for rnd in plan:
            for k in rnd:
                data[k].append(float(rng.normal(0, sds[k])))
    assert spent <= budget
    n = {k: len(v) for k, v in data.items()}
    se = {k: np.std(v, ddof=1) / math.sqrt(len(v)) for k, v in data.items()}
    for k in ("p0", "p1", "p2", "p3"):
        assert se[k] <= target * 1.05, (k, se[k], n[k])  # closed, within the spread's own estimate
    assert n["p2"] > n["p1"] > n["p0"]  # same cost: rounds follow the spread
    assert n["p4"] > 3 and se["p4"] > target  # measured with what was left, not closed


def test_a_resolved_point_is_not_closed_by_being_resolved():
    """No optional stopping: a strided point whose interval already excludes
    0 stays open while its MDE is above the goal, and one whose interval
    contains 0 closes once its MDE is at the goal; the target never depends
    on the estimate."""
    from types import SimpleNamespace

    from ctxbench.sweep.steps import goals as command

    bid = "kernel/thread/futex"

    def res(size, stride, est, lo, hi, mde, n=10):
        return {"id": bid, "params": {"size": size, "stride": stride}, "summary": {"median": 2000.0, "n": n},
                "indirect": {"estimate_ns": est, "ci95": [lo, hi], "mde_ns": mde, "sd_ns": 100.0, "n": n,
                             "resolved": lo > 0 or hi < 0}}
    by_key = {(bid, 1024, 0): res(1024, 0, 1.0, -5, 5, 10.0),
              (bid, 1024, 64): res(1024, 64, 900.0, 100, 1700, 800.0),   # resolved, MDE 800 > goal 200
              (bid, 2048, 64): res(2048, 64, 30.0, -150, 210, 150.0)}    # not resolved, MDE 150 <= goal
    by_key[(bid, 2048, 0)] = res(2048, 0, 1.0, -5, 5, 10.0)
    # three rounds measured, all but one dropped (other load): no spread, funded to its least
    by_key[(bid, 4096, 64)] = dict(res(4096, 64, math.nan, math.nan, math.nan, math.nan, n=1),
                                   samples=[1.0] * 6, group=[0, 0, 1, 1, 2, 2])
    sw = SimpleNamespace(by_key=by_key, cost=lambda b, s, d: 0.1)
    states = {p.key: p for p in command.point_states(sw, [bid], [(1024, 64), (2048, 64), (4096, 64)])}
    assert not states[(bid, 1024, 64)].closed
    assert states[(bid, 2048, 64)].closed
    dropped = states[(bid, 4096, 64)]
    assert not dropped.closed and dropped.rounds == 3 and dropped.least == command.CLOSE_ROUNDS
    assert states[(bid, 1024, 64)].target_se_ns == states[(bid, 2048, 64)].target_se_ns


def test_goal_is_the_direct_cost_share_or_a_share_of_the_work_between_switches():
    """A strided point's goal grows with the work it follows (one traversal
    per switch, from its single run: t_single / n per sample, n calibrated
    per round); stride 0 keeps the direct-cost goal."""
    from ctxbench.sweep.steps import goals as command

    r = {"raw": {"t_single_ns": [1_000_000.0, 1_100_000.0, 2_000_000.0]}, "sample_n": [4, 4, 8],
         "params": {"n": 4}}
    work = 250_000.0  # per switch: 250, 275 and 250 us
    assert command.goal_ns(250.0, r, 64) == command.WORK_GOAL_FRAC * work
    assert command.goal_ns(250.0, r, 0) == 250.0
    assert command.goal_ns(250.0, {"params": {}}, 64) == 250.0  # an id that gives no single run


def test_the_time_left_is_shared_evenly_among_the_points_it_cannot_all_close():
    """Points whose goals the time can buy one by one but not all: those
    that need less than an even share close, and the rest gets the time
    they leave, where cheapest to close first gave the last point nothing
    (issue 22: points past the L2 stayed at 8 rounds and unresolved while
    points under it got 64)."""
    pts = [_p("small", 4.0, cost=0.01, rounds=8), _p("a", 30.0, cost=0.01, rounds=8),
           _p("b", 30.0, cost=0.01, rounds=8), _p("c", 30.0, cost=0.02, rounds=8)]
    # needs: small 8 * (4 / sqrt(8))^2 - 8 = 8 rounds, a b c 900 - 8 = 892 (c at twice the cost):
    # 0.08 + 8.92 + 8.92 + 17.84 s, more than 30 s
    n = _rounds(allocate.plan(pts, time_s=30.0, most=100_000, per_plan=10_000))
    assert n["small"] == 8 and n["a"] == n["b"] == 892
    assert abs(n["c"] - (30.0 - 0.08 - 2 * 8.92) / 0.02) <= 1  # what the others leave, not nothing
    assert sum(n[k] * p.cost_s for k, p in zip(["small", "a", "b", "c"], pts)) <= 30.0 + 1e-9
    # neither a nor b can have all it needs: the same time each; c's goal costs more than all
    # the time (17.84 s): it waits for what they leave
    n = _rounds(allocate.plan(pts[1:], time_s=9.0, most=100_000, per_plan=10_000))
    assert n["a"] == n["b"] == 450 and "c" not in n


def test_a_point_without_a_spread_yet_is_funded_to_its_least():
    """A point whose pilot samples met other load and were dropped has no
    spread: it is funded up to its least rounds like any point short of
    them, not left n/a (issue 22); past its least it waits for a spread."""
    pts = [_p("dropped", math.nan, rounds=3, least=8), _p("ok", 10.0, rounds=8, least=8, target=10.0)]
    n = _rounds(allocate.plan(pts, time_s=10.0, most=1000))
    assert n["dropped"] == 5
    assert allocate.plan([_p("dropped", math.nan, rounds=8, least=8)], 10.0, 1000) == []
