"""When a sweep point has what it needs: its goal (an MDE small enough to
read), and every point as the allocation (allocate.py) sees it."""
from __future__ import annotations

import math

from ctxbench.core import model
from ctxbench.stats import power
from ctxbench.sweep import allocate
from ctxbench.sweep import analysis as sweep_analysis
from ctxbench.sweep import rounds

# A point closes (resolved, or MDE at the goal) only after this many rounds:
# the interval over rounds (stats.power.effect) is calibrated at any n, but
# with fewer rounds its t(n-1) interval is wide (t = 4.3 at 3 rounds) and
# "resolved" (and the stride-0 check) a weak statement.
CLOSE_ROUNDS = 8
# The MDE that is small enough: a tenth of the mechanism's direct cost.
MDE_GOAL_FRAC = 0.1
# ... or, for a strided point, this fraction of the work between two switches (goal_ns).
WORK_GOAL_FRAC = 0.01


def point_states(sw, ids: list[str], pts: list[tuple[int, int]]) -> list[allocate.PointState]:
    """Every point as the allocation sees it (stride 0: its check)."""
    out = []
    all_results = list(sw.by_key.values())
    for bid in ids:
        direct_goal = MDE_GOAL_FRAC * sweep_analysis.direct_cost(all_results, bid)
        for s, d in pts:
            r = sw.by_key.get((bid, s, d))
            e = (model.Result(r).indirect if r else None) or model.Summary({})
            n = e.n
            goal = goal_ns(direct_goal, r, d)
            if n < 2:
                # no spread yet: its samples met other load and were dropped (or it was never
                # measured); up to CLOSE_ROUNDS measured rounds it is funded like a point short
                # of its least, so that it is not left n/a (issue 22); past that, its samples
                # are dropped whatever it is given
                measured = len(rounds.rounds_of(r))
                if measured < CLOSE_ROUNDS:
                    out.append(allocate.PointState((bid, s, d), measured, math.nan, sw.cost(bid, s, d), False,
                                                   goal / power.MDE_FACTOR, CLOSE_ROUNDS))
                continue
            mde = e.mde
            # The spread the allocation plans with is the one the point's MDE comes from (the
            # effect's standard error, x sqrt(rounds)), so that a point reaches its goal
            # after the rounds it was given.
            sd = mde / power.MDE_FACTOR * math.sqrt(n) if math.isfinite(mde) else e.sd
            # Precision alone closes a point, never its estimate: closing a point at the
            # first round whose interval excludes 0 (or sizing its rounds by |estimate|)
            # is optional stopping, and an interval looked at after every round excludes
            # 0 far more often than 5% of the time when the true cost is 0 (one run here
            # closed a 2 MiB point as "resolved, negative" at its 95th look).
            closed = n >= CLOSE_ROUNDS and math.isfinite(mde) and mde <= goal
            target = goal / power.MDE_FACTOR
            out.append(allocate.PointState((bid, s, d), n, sd, sw.cost(bid, s, d), closed, target, CLOSE_ROUNDS))
    return out


def goal_ns(direct_goal: float, r: dict | None, stride: int) -> float:
    """The MDE that closes a point: a tenth of the mechanism's direct cost,
    or for a strided point WORK_GOAL_FRAC of the work between two switches
    (one traversal), whichever is larger: past the L2 a pass takes 0.1-10 ms
    and varies by percents from round to round on a shared host, and an
    indirect cost below a percent of the work it follows is not what a
    sweep can buy in minutes."""
    work = sweep_analysis.work_per_switch(r) if stride else math.nan
    return max(direct_goal, WORK_GOAL_FRAC * work) if math.isfinite(work) else direct_goal
