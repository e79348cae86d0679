"""After the pilot, the rest of the budget to the points it can bring to
their goal (goals.py), cheapest to close first, each given the rounds its
own spread needs (allocate.py), planned again after every few rounds, until
every point is at its goal or the budget ends."""
from __future__ import annotations

from ctxbench.sweep import allocate
from ctxbench.sweep.steps.goals import point_states
from ctxbench.sweep.steps.measure import Plan, measure_rounds
from ctxbench.sweep.steps.state import Sweep

MOST_ROUNDS = 1000


def allocation(sw: Sweep) -> None:
    """Plan, measure what the time left pays for, and again, until the
    plan is empty or the budget has ended."""
    budget_ended = False
    while not budget_ended:
        plan = _plan(sw)
        paid = sw.fit(plan, sw.left())
        if not paid:
            break
        # each mechanism gets its share of the time left: rounds that cost more than
        # measured so far (other load) cut every mechanism's tail, not the last one whole
        done = measure_rounds(sw, paid, "allocation", until=sw.deadline - sw.finish_s)
        budget_ended = not done and sw.left() <= len(sw.ids) * sw.engine_start_s


def _plan(sw: Sweep) -> Plan:
    """The next rounds: each point's share of the time left (allocate.plan),
    a stride-0 point with all its neighbours."""
    states = point_states(sw, sw.ids, sw.pts)
    keys = allocate.plan(states, sw.left() - len(sw.ids) * sw.engine_start_s, MOST_ROUNDS)
    plan: Plan = []
    for rnd_keys in keys:
        rnd: dict[str, list[tuple[int, int]]] = {}
        for b, s, d in rnd_keys:
            rnd.setdefault(b, []).append((s, d))
        for b in rnd:  # a stride-0 check needs its neighbours in the round: all of them (cheap)
            if any(d == 0 for _, d in rnd[b]):
                rnd[b] += [(s, 0) for s in sw.sizes if (s, 0) not in rnd[b]]
        plan.append(rnd)
    return plan
