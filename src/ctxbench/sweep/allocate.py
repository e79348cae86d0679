"""Where the sweep's time goes (issue 11: spend the budget where the
variance is).

A point's indirect cost is the mean of its paired per-round differences
(analysis.py); its standard error falls as sd / sqrt(rounds), so the rounds
a point needs to bring its MDE to its goal follow from its own spread:

    need_p = rounds_p * (se_p / target_se_p)^2        (power.rounds_for)

and bringing it there costs (need_p - rounds_p) * c_p seconds (c_p: what
one round of the point takes here, measured).

Every point is first funded up to the fewest rounds a t interval is worth
reading at (`least`). The time left is then shared out evenly among the
open points whose goal it can buy, each capped at what closes it (a water
level): a point that needs less than its share closes, and the others get
the same seconds each, so the noisier a point the more rounds it needs and
the cheaper a round the more it gets. The points whose goal costs more
than all the time left (the 8-32 MiB points, whose rounds take a second
and vary by tens of percent) get what the others leave: a Neyman
allocation (the sum of the points' variances in ns^2 made smallest) gave
three quarters of one default sweep to 8-32 MiB points already resolved by
milliseconds, and the points past the L2 got 8 rounds. Funding the points
cheapest to close first (issue 11) then did the same the other way (issue
22): with 118 points per mechanism the points under the L2, whose goal is
cheap, took rounds up to 64 while 11 of 21 points past it stayed at their 8
and unresolved, their goal (1% of a pass) a few seconds each.

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


def level(needs: list[float], time_s: float) -> float:
    """The water level L at which min(need, L) summed over `needs` is
    `time_s` (the largest need when all of them fit)."""
    left, m = time_s, len(needs)
    for n in sorted(needs):
        if n * m > left:
            return left / m
        left -= n
        m -= 1
    return max(needs, default=0.0)


def plan(points: list[PointState], time_s: float, most: int,
         per_plan: int = ROUNDS_PER_PLAN) -> list[list[Hashable]]:
    """The next rounds, each a list of point keys. First every open point
    up to its `least` rounds (the fewest a t interval is worth reading at),
    cheapest first, while `time_s` pays for all the rounds each needs; then
    the time left is shared out evenly among the other open points whose
    goal it can buy, each capped at what closes it (`level`): the points
    that need less close, and the rest get the same time each; what they
    leave goes the same way to the points whose goal costs more than all
    of it. When not even that pays for a round, those that one round each
    can pay for, cheapest to close first. Round j holds the points that need more than
    j rounds; at most `per_plan` rounds, and their total cost never
    exceeds `time_s`."""
    # a point short of its least is funded without a spread (it may have none yet)
    open_ = [p for p in points if not p.closed and p.cost_s > 0 and p.rounds < most
             and (math.isfinite(p.sd_ns) or p.rounds < p.least)]
    if not open_ or time_s <= 0:
        return []
    short = {p.key: p.least - p.rounds for p in open_ if p.rounds < p.least}
    rem = {p.key: short.get(p.key) or min(remaining(p, most), most - p.rounds) for p in open_}
    open_.sort(key=lambda p: (p.key not in short, rem[p.key] * p.cost_s, p.cost_s))
    want: dict[Hashable, int] = {}
    spent = 0.0
    for p in (p for p in open_ if p.key in short):
        if spent + rem[p.key] * p.cost_s > time_s:
            break
        want[p.key] = rem[p.key]
        spent += rem[p.key] * p.cost_s
    if len(want) == len(short):
        rest = [p for p in open_ if p.key not in short]
        left = time_s - spent
        # the points whose goal the time left can buy first, then those it cannot (their goal
        # costs more than all of it: they get what the others leave)
        for group in ([p for p in rest if rem[p.key] * p.cost_s <= left],
                      [p for p in rest if rem[p.key] * p.cost_s > left]):
            fill = level([rem[p.key] * p.cost_s for p in group], time_s - spent)
            for p in group:
                k = min(rem[p.key], int(fill / p.cost_s * (1 + 1e-9)))
                if k > 0:
                    want[p.key] = k
                    spent += k * p.cost_s
    chosen = [p for p in open_ if p.key in want] or open_
    if not want:
        want = {p.key: 1 for p in chosen}
    rounds: list[list[Hashable]] = []
    left = time_s
    for j in range(min(per_plan, max(want.values()))):
        this = []
        for p in chosen:  # in funding order, so a short budget keeps the first
            if want[p.key] > j and p.cost_s <= left + 1e-9 * time_s:  # rounding, not a round more
                this.append(p.key)
                left -= p.cost_s
        if not this:
            break
        rounds.append(this)
    return rounds
