"""The sweep's allocation on synthetic data (no measuring): more rounds
where the spread is larger, fewer where a round costs more, nothing for
closed points, never more than a point needs, and the time given is never
exceeded, over a whole simulated sweep."""
import math

import numpy as np

from ctxbench.stats import power
from ctxbench.sweep import allocate


def _p(k, sd, cost=0.1, rounds=3, closed=False, target=1.0, least=0):
    return allocate.PointState(k, rounds, sd, cost, closed, target, least)


def test_more_rounds_where_the_spread_is_larger():
    pts = [_p("quiet", 10.0), _p("mid", 40.0), _p("noisy", 160.0)]
    want = allocate.neyman(pts, time_s=60.0, most=10_000)
    assert want["quiet"] < want["mid"] < want["noisy"]
    # Neyman: rounds in proportion to sd at equal cost (4x the sd, ~4x the rounds)
    assert 3.0 < want["noisy"] / want["mid"] < 5.0


def test_fewer_rounds_where_a_round_costs_more():
    want = allocate.neyman([_p("cheap", 50.0, cost=0.01), _p("dear", 50.0, cost=1.0)], 60.0, 10_000)
    assert want["cheap"] > want["dear"]


def test_closed_points_get_nothing_and_no_point_gets_more_than_it_needs():
    pts = [_p("done", 500.0, closed=True), _p("easy", 10.0, rounds=4, target=10.0), _p("hard", 100.0)]
    want = allocate.neyman(pts, 1000.0, 10_000)
    assert "done" not in want
    # se of 'easy' is 10/sqrt(4) = 5 already below its target 10: no more rounds
    assert want["easy"] == 4
    # 'hard' needs se 1 from sd 100: 10,000 rounds; capped by `most`
    assert allocate.neyman(pts, 1e9, 500)["hard"] == 500
    # at least `least` rounds before a point may close, if time allows
    assert allocate.neyman([_p("x", 1.0, rounds=3, target=100.0, least=5)], 10.0, 100)["x"] == 5


def test_a_simulated_sweep_respects_the_budget_and_follows_the_spread():
    """Rounds of points with known spreads and costs until the budget ends:
    the time spent never exceeds it, and the noisier of two equally dear
    points ends with more rounds."""
    rng = np.random.default_rng(7)
    sds = {f"p{i}": sd for i, sd in enumerate([5, 20, 80, 320, 80, 20])}
    costs = {f"p{i}": c for i, c in enumerate([0.01, 0.01, 0.01, 0.01, 0.5, 2.0])}
    data = {k: list(rng.normal(0, sds[k], 3)) for k in sds}  # the pilot
    budget, spent = 30.0, 0.0
    for _ in range(10_000):  # bounded: each loop spends > 0 or stops
        pts = [_p(k, float(np.std(v, ddof=1)), costs[k], len(v), target=1.0) for k, v in data.items()]
        chosen = allocate.next_round(pts, budget - spent, 10_000)
        if not chosen:
            break
        cost = sum(costs[k] for k in chosen)
        assert cost <= budget - spent + 1e-9
        spent += cost
        for k in chosen:
            data[k].append(float(rng.normal(0, sds[k])))
    assert spent <= budget
    n = {k: len(v) for k, v in data.items()}
    assert n["p3"] > n["p2"] > n["p1"] > n["p0"]  # same cost: rounds follow the spread
    assert n["p2"] > n["p4"]  # same spread: the cheaper point gets more rounds
    se = {k: np.std(v, ddof=1) / math.sqrt(len(v)) for k, v in data.items()}
    assert power.mde(se["p3"]) > power.mde(se["p0"])  # what the budget could buy, honestly unequal


def test_a_resolved_point_is_not_closed_by_being_resolved():
    """No optional stopping: a strided point whose interval already excludes
    0 stays open while its MDE is above the goal, and one whose interval
    contains 0 closes once its MDE is at the goal; the target never depends
    on the estimate."""
    from types import SimpleNamespace

    from ctxbench.sweep import command

    bid = "kernel/thread/futex"

    def res(size, stride, est, lo, hi, mde, n=10):
        return {"id": bid, "params": {"size": size, "stride": stride}, "summary": {"median": 2000.0, "n": n},
                "indirect": {"estimate_ns": est, "ci95": [lo, hi], "mde_ns": mde, "sd_ns": 100.0, "n": n,
                             "resolved": lo > 0 or hi < 0}}
    by_key = {(bid, 1024, 0): res(1024, 0, 1.0, -5, 5, 10.0),
              (bid, 1024, 64): res(1024, 64, 900.0, 100, 1700, 800.0),   # resolved, MDE 800 > goal 200
              (bid, 2048, 64): res(2048, 64, 30.0, -150, 210, 150.0)}    # not resolved, MDE 150 <= goal
    by_key[(bid, 2048, 0)] = res(2048, 0, 1.0, -5, 5, 10.0)
    sw = SimpleNamespace(by_key=by_key, cost=lambda b, s, d: 0.1)
    states = {p.key: p for p in command.point_states(sw, [bid], [(1024, 64), (2048, 64)], 3)}
    assert not states[(bid, 1024, 64)].closed
    assert states[(bid, 2048, 64)].closed
    assert states[(bid, 1024, 64)].target_se_ns == states[(bid, 2048, 64)].target_se_ns
