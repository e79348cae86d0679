"""Where the sweep's time goes (issue 11: spend the budget where the
variance is).

A point's indirect cost is the mean of its paired per-round differences
(analysis.py); its standard error falls as sd / sqrt(rounds). After the
pilot (every point in the same few rounds), each further round is spent by
Neyman allocation with costs: the variance summed over the open points,
sum(sd_p^2 / n_p), is smallest for a given time C = sum(n_p * c_p) when

    n_p = C * (sd_p / sqrt(c_p)) / sum_q (sd_q * sqrt(c_q))

(c_p: the seconds one round of point p takes here, measured). A point
closes when its MDE is at or below the goal (never because its interval
excludes 0: that would be optional stopping); a point never gets more rounds than it needs to reach the
goal (`power.rounds_for`), and every open point gets at least `least`
rounds (as the time allows). Nothing here measures or reads a clock: the
command gives the pilot's numbers and the time left, this module says which
points the next round measures.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Hashable

from ctxbench.stats import power


@dataclass
class PointState:
    key: Hashable
    rounds: int          # paired rounds measured so far
    sd_ns: float         # spread of the per-round paired difference
    cost_s: float        # seconds one round of this point takes (measured)
    closed: bool         # resolved, or MDE at or below the goal
    target_se_ns: float  # the standard error that would close it
    least: int = 0       # rounds it needs before it may close (a bootstrap over fewer is too short)


def needed_rounds(p: PointState, most: int) -> int:
    """Rounds that bring the point's standard error to its target."""
    se = p.sd_ns / math.sqrt(p.rounds) if p.rounds > 0 else math.nan
    return power.rounds_for(se, p.rounds, p.target_se_ns, most)


def neyman(points: list[PointState], time_s: float, most: int) -> dict[Hashable, int]:
    """Total rounds per open point that `time_s` seconds more buy (the
    rounds already measured count as spent), each capped at what the point
    needs and at `most`, never below what it has."""
    open_ = [p for p in points if not p.closed and p.cost_s > 0 and math.isfinite(p.sd_ns)]
    if not open_:
        return {}
    spent = sum(p.rounds * p.cost_s for p in open_)
    total = spent + max(time_s, 0.0)
    weight = sum(max(p.sd_ns, 0.0) * math.sqrt(p.cost_s) for p in open_)
    out = {}
    for p in open_:
        share = total * (max(p.sd_ns, 0.0) / math.sqrt(p.cost_s)) / weight if weight > 0 else 0.0
        need = max(needed_rounds(p, most), p.least)
        out[p.key] = max(p.rounds, min(max(int(share), p.least), need, most))
    return out


def next_round(points: list[PointState], time_s: float, most: int) -> list[Hashable]:
    """The points the next round measures: those whose Neyman target is
    above what they have, most behind their target first, as many as the
    time left pays for (one round each)."""
    want = neyman(points, time_s, most)
    by_key = {p.key: p for p in points}
    behind = [(1 - by_key[k].rounds / n, k) for k, n in want.items() if n > by_key[k].rounds]
    behind.sort(key=lambda t: -t[0])
    chosen, used = [], 0.0
    for _, k in behind:
        c = by_key[k].cost_s
        if used + c <= time_s:
            chosen.append(k)
            used += c
    return chosen
