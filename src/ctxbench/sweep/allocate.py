"""Where the sweep's time goes (issue 11: spend the budget where the
variance is).

A point's indirect cost is the mean of its paired per-round differences
(analysis.py); its standard error falls as sd / sqrt(rounds), so the rounds
a point needs to bring its MDE to its goal follow from its own spread:

    need_p = rounds_p * (se_p / target_se_p)^2        (power.rounds_for)

and bringing it there costs (need_p - rounds_p) * c_p seconds (c_p: what
one round of the point takes here, measured).

The objective is as many points at their goal as the budget can buy, so
the points are funded cheapest to close first: the noisier a point, the
more rounds it gets, but a point whose goal costs more than the whole
budget (the 8-32 MiB points, whose rounds take a second and vary by tens
of percent) no longer takes the time the rest needed. A Neyman allocation
(the sum of the points' variances in ns^2 made smallest) did exactly that
in one default sweep: three quarters of the time went to 8-32 MiB points
already resolved by milliseconds, and the points past the L2 got 8 rounds.
Before that, every point is funded up to the fewest rounds a t interval
is worth reading at (`least`): the dearest points get those and what is
left at the end, cheapest first; their MDE is reported.

A point closes when its MDE is at or below the goal (never because its
interval excludes 0: that would be optional stopping); nothing here reads
the estimates. Nothing here measures or reads a clock either: the command
gives the spreads, costs and the time left, this module says which points
the next rounds measure.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Hashable

from ctxbench.stats import power

# Rounds one plan may ask for before the spreads are looked at again (one
# engine process runs them back to back: its start-up, ~0.5 s, is paid once).
ROUNDS_PER_PLAN = 8


@dataclass
class PointState:
    key: Hashable
    rounds: int          # paired rounds measured so far
    sd_ns: float         # spread of the per-round paired difference
    cost_s: float        # seconds one round of this point takes (measured)
    closed: bool         # MDE at or below the goal
    target_se_ns: float  # the standard error that would close it
    least: int = 0       # rounds it needs before it may close (a t interval over fewer is too short)


def needed_rounds(p: PointState, most: int) -> int:
    """Rounds that bring the point's standard error to its target."""
    se = p.sd_ns / math.sqrt(p.rounds) if p.rounds > 0 else math.nan
    return power.rounds_for(se, p.rounds, p.target_se_ns, most)


def remaining(p: PointState, most: int) -> int:
    """Rounds the point still needs (at least one while it is open: its
    spread may have grown since it was last looked at)."""
    return max(max(needed_rounds(p, most), p.least) - p.rounds, 1)


def plan(points: list[PointState], time_s: float, most: int,
         per_plan: int = ROUNDS_PER_PLAN) -> list[list[Hashable]]:
    """The next rounds, each a list of point keys. Funded in this order
    while `time_s` pays for all the rounds each needs: first every open
    point up to its `least` rounds (the fewest a t interval is worth
    reading at: the 8-32 MiB points, whose goal the budget cannot buy, get
    those and no more), then the rest cheapest to close first. When not
    even the next of them can be paid for whole, those that one round each
    can pay for, in the same order. Round j holds the points that need more
    than j rounds; at most `per_plan` rounds, and their total cost never
    exceeds `time_s`."""
    open_ = [p for p in points if not p.closed and p.cost_s > 0 and math.isfinite(p.sd_ns)
             and p.rounds < most]
    if not open_ or time_s <= 0:
        return []
    short = {p.key: p.least - p.rounds for p in open_ if p.rounds < p.least}
    rem = {p.key: short.get(p.key) or min(remaining(p, most), most - p.rounds) for p in open_}
    open_.sort(key=lambda p: (p.key not in short, rem[p.key] * p.cost_s, p.cost_s))
    funded, spent = [], 0.0
    for p in open_:
        if spent + rem[p.key] * p.cost_s > time_s:
            break
        funded.append(p)
        spent += rem[p.key] * p.cost_s
    chosen = funded or open_
    want = {p.key: rem[p.key] for p in chosen} if funded else {p.key: 1 for p in chosen}
    rounds: list[list[Hashable]] = []
    left = time_s
    for j in range(min(per_plan, max(want.values()))):
        this = []
        for p in chosen:  # in funding order, so a short budget keeps the first
            if want[p.key] > j and p.cost_s <= left:
                this.append(p.key)
                left -= p.cost_s
        if not this:
            break
        rounds.append(this)
    return rounds
