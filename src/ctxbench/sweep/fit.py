"""The sweep's grid fitted to its budget (issue 22): which sizes and strides
the time pays for, what is left out, and the budget that would include it.

A grid maps each size to its strides. It fits when `rounds` rounds of every
point, the engine start-ups they take, and what finishing the sweep with
that many points takes (analysis, figures: `reserve`) cost no more than
the seconds left (cost: seconds per round of a point, cost.py or what the
point measured). PLAN_ROUNDS is what a default plan is fitted to: the
allocation first brings every point to its CLOSE_ROUNDS (8, the fewest a
t interval is worth reading at), and as much again is left for the points
whose spread needs more (past the L2, where an indirect cost is a fraction
of a percent of the pass: with 12, one default run here left the 16-32M
points at their 8 rounds and 5-10% of the pass unresolved). A grid that cannot have that gets the pilot's
rounds alone, and none at all is refused before measuring.

When the candidate grid does not fit, what costs the most goes first:

1. the size whose points cost the most has its strides thinned, all ->
   0,8,64,256 -> 0,64 (the strides between those interpolate; 64 is the
   comparison figure's), and once at 0,64 it is dropped, as long as no two
   kept sizes are then more than two octaves apart (never the smallest or
   the largest: where the sweep crosses the LLC); then the next dearest,
   and so on: fewer strides and fewer sizes per octave where each point is
   expensive, the cheap sizes untouched as long as the time allows;
2. when even that does not fit, or the largest size's points alone would
   take more than TOP_SHARE of the time, the largest size is lowered, and
   step 1 starts again under it, down to the first size whose array fills
   the L2 alone: below that a sweep says nothing about the caches that
   matter.

Nothing here measures or reads a clock.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from ctxbench.core.errors import UserError
from ctxbench.sweep.allocate import ROUNDS_PER_PLAN
from ctxbench.sweep.cost import Host
from ctxbench.sweep.plan import DEFAULT_STRIDES, fmt_size

Grid = dict  # size -> tuple of strides (0 first)
Cost = Callable[[str, int, int], float]

# Each tier keeps a subset of the one before: what a size's strides thin to.
STRIDE_TIERS = (tuple(DEFAULT_STRIDES), (0, 8, 64, 256), (0, 64))
# Rounds of every point a default plan is fitted to (see the docstring).
PLAN_ROUNDS = 16
MAX_GAP = 4  # kept sizes at most two octaves apart
# The most of the time to measure that the largest size's points may take,
# thinned: a 128M point whose round takes 9 s would otherwise keep its place
# by thinning every size below it to two strides.
TOP_SHARE = 1 / 3
# Points whose rounds cost within this factor of each other count as equally
# dear: below the L2 a round costs its samples' length whatever the size.
COST_STEP = 1.25


@dataclass
class Fit:
    grid: Grid
    rounds: int              # rounds of every point the time pays for
    seconds: float           # what those rounds are predicted to take
    measure_s: float = 0.0   # the time there is to measure them (the rest finishes the sweep)
    left_out: list[str] = field(default_factory=list)
    budget_all: int | None = None   # --budget that fits the whole candidate grid
    budget_top: int | None = None   # --budget that keeps its largest size (when it was lowered)

    def points(self) -> list[tuple[int, int]]:
        return points_of(self.grid)


def points_of(grid: Grid) -> list[tuple[int, int]]:
    """Size-major, stride 0 first (plan.points' order)."""
    return [(s, d) for s in sorted(grid) for d in sorted(grid[s])]


def engine_processes(rounds: int, groups: int) -> int:
    """Engine processes per mechanism for `rounds` rounds: the pilot's first
    round, the rest of the pilot, then allocation plans of ROUNDS_PER_PLAN."""
    return 2 + math.ceil(max(rounds - groups, 0) / ROUNDS_PER_PLAN)


class _Table:
    """Seconds per round of every candidate point, all mechanisms summed."""

    def __init__(self, grid: Grid, ids: list[str], cost: Cost, start_s: float, groups: int, done: int = 0,
                 reserve: Callable[[int], float] = lambda n: 0.0):
        self.c = {(s, d): sum(cost(b, s, d) for b in ids) for s in grid for d in grid[s]}
        self.n_ids, self.start_s, self.groups, self.done, self.reserve = len(ids), start_s, groups, done, reserve

    def finish(self, grid: Grid) -> float:
        """What the sweep keeps back to finish (analysis, figures) with this grid."""
        return self.reserve(self.n_ids * sum(len(ds) for ds in grid.values()))

    def total(self, grid: Grid, rounds: int) -> float:
        """Measuring `rounds` rounds of every point, and finishing."""
        return self.seconds(grid, rounds) + self.finish(grid)

    def per_round(self, grid: Grid) -> float:
        return sum(self.c[(s, d)] for s in grid for d in grid[s])

    def alone(self, size: int, strides: tuple, rounds: int) -> float:
        """What the rounds of one size's points take."""
        return (rounds - self.done) * sum(self.c[(size, d)] for d in strides)

    def seconds(self, grid: Grid, rounds: int) -> float:
        """What `rounds` rounds of every point take, less the `done` first
        rounds already measured (one engine process each)."""
        procs = engine_processes(rounds, self.groups) - min(self.done, 1)
        return (rounds - self.done) * self.per_round(grid) + self.n_ids * self.start_s * procs


def _thinnest(strides: tuple, thin: bool) -> tuple:
    """A size's strides after every step of thinning (as they are if none)."""
    while thin and _thinner(strides):
        strides = _thinner(strides)
    return tuple(strides)


def _thinner(strides: tuple) -> tuple | None:
    """The next tier of a size's strides, or None when none is smaller."""
    for tier in STRIDE_TIERS:
        t = tuple(d for d in strides if d in tier)
        if 0 in t and len(t) > 1 and len(t) < len(strides):
            return t
    return None


def _shrink(grid: Grid, fits: Callable[[Grid], bool], table: _Table, thin: bool,
            drop: bool) -> tuple[Grid, bool]:
    """Step 1 until the grid fits: the grid, and whether it does (False:
    the steps ran out first, and the grid is the thinnest they reach)."""
    g = dict(grid)
    while not fits(g):
        best = None
        sizes = sorted(g)
        for i, s in enumerate(sizes):
            t = _thinner(g[s]) if thin else None
            if t is None and not (drop and 0 < i < len(sizes) - 1 and sizes[i + 1] <= MAX_GAP * sizes[i - 1]):
                continue
            # the dearest point first; among sizes within COST_STEP of each other, the
            # richest strides first (thinned before any size is dropped), then the largest
            dearest = max(table.c[(s, d)] for d in g[s])
            rank = (math.floor(math.log(dearest, COST_STEP)) if dearest > 0 else -math.inf, len(g[s]), s)
            if best is None or rank > best[0]:
                best = (rank, s, t)
        if best is None:
            return g, False
        _, s, t = best
        if t is None:
            del g[s]
        else:
            g[s] = t
    return g, True


def fit(candidate: Grid, ids: list[str], cost: Cost, time_s: float, budget_s: float, groups: int,
        start_s: float, *, thin: bool = True, drop: bool = True, floor: int | None = None,
        most_rounds: int = PLAN_ROUNDS, done: int = 0,
        reserve: Callable[[int], float] = lambda n: 0.0) -> Fit | None:
    """The richest grid under `candidate` whose rounds, and the `reserve`
    its points need to finish the sweep (analysis, figures: seconds for
    that many points), fit the `time_s` seconds left (module docstring), or
    None. `thin`: strides may be thinned; `drop`: sizes may be dropped;
    `floor`: the largest size may be lowered down to it (None: never).
    `budget_s - time_s` is what earlier runs of the sweep spent; `done`:
    rounds every point already has (the pilot's first, when the grid is
    fitted again to what it cost)."""
    table = _Table(candidate, ids, cost, start_s, groups, done, reserve)
    sizes = sorted(candidate)
    tops = [s for s in reversed(sizes) if floor is not None and s >= floor] or [sizes[-1]]
    for rounds in sorted({max(most_rounds, groups), groups}, reverse=True):
        def fits(g, rounds=rounds):
            return table.total(g, rounds) <= time_s
        for top in tops:
            under = {s: candidate[s] for s in sizes if s <= top}
            if top != tops[-1] and (table.alone(top, _thinnest(candidate[top], thin), rounds)
                                    > TOP_SHARE * (time_s - table.finish(under))):
                continue  # one size would take the time the rest of the sweep needs
            g, ok = _shrink({s: tuple(candidate[s]) for s in sizes if s <= top}, fits, table, thin, drop)
            if ok:
                out = Fit(g, rounds, table.seconds(g, rounds), time_s - table.finish(g))
                _explain(out, candidate, table, budget_s - time_s, thin, drop, most_rounds, groups)
                return out
    return None


def _explain(f: Fit, candidate: Grid, table: _Table, overhead_s: float, thin: bool, drop: bool,
             most_rounds: int, groups: int) -> None:
    """What the fit left out of the candidate grid, and the budgets that
    would include it: the whole grid at `most_rounds`, and its largest
    size (the most-thinned grid that keeps it)."""
    sizes = sorted(candidate)
    top = max(f.grid)
    above = [s for s in sizes if s > top]
    dropped = [s for s in sizes if s < top and s not in f.grid]
    if above:
        f.left_out.append(f"sizes {sizes_text(above)} (largest now {fmt_size(top)})")
    if dropped:
        f.left_out.append(f"sizes {sizes_text(dropped)} (at most two octaves between sizes)")
    by: dict[tuple, list[int]] = {}
    for s in sorted(f.grid):
        gone = tuple(d for d in candidate[s] if d not in f.grid[s])
        if gone:
            by.setdefault(gone, []).append(s)
    for gone, ss in by.items():
        f.left_out.append(f"strides {','.join(map(str, gone))} at {sizes_text(ss)}")
    rounds = max(most_rounds, groups)
    if f.left_out or f.rounds < rounds:
        f.budget_all = math.ceil(table.total(candidate, rounds) + overhead_s)
    if above:  # the thinnest grid that keeps the largest size, within its share: the fit tries it first
        g, _ = _shrink(dict(candidate), lambda g: False, table, thin, drop)
        top = max(candidate)
        share = table.alone(top, _thinnest(candidate[top], thin), rounds) / TOP_SHARE + table.finish(candidate)
        f.budget_top = math.ceil(max(table.total(g, rounds), share) + overhead_s)


def sizes_text(ss: list[int]) -> str:
    ss = sorted(ss)
    if len(ss) > 3:
        return f"{fmt_size(ss[0])}..{fmt_size(ss[-1])} ({len(ss)} sizes)"
    return ",".join(fmt_size(s) for s in ss)


def describe(f: Fit) -> str:
    """One line for the plan: its points, what was left out, the budgets."""
    pts = f.points()
    sizes = sorted(f.grid)
    line = (f"{len(pts)} points per mechanism ({len(sizes)} sizes {fmt_size(sizes[0])}..{fmt_size(sizes[-1])}), "
            f"{f.rounds} rounds of each predicted to take {f.seconds:.0f} of the {f.measure_s:.0f} s to measure")
    if f.left_out:
        line += "; left out: " + "; ".join(f.left_out)
    more = []
    if f.budget_top:
        more.append(f"--budget {f.budget_top} keeps the largest size")
    if f.budget_all:
        more.append(f"--budget {f.budget_all} " + ("plans the whole grid" if f.left_out else
                                                  f"pays for {PLAN_ROUNDS} rounds of each"))
    return line + (" (" + ", ".join(more) + ")" if more else "")


def floor_size(env: dict, sizes: list[int]) -> int:
    """The smallest largest size a default plan may have: the first whose
    array alone fills the L2 (1M when the L2 is not known)."""
    l2 = Host.from_env(env).l2 or 1 << 20
    return min([s for s in sizes if s >= l2] or [max(sizes)])


def choose(env: dict, sizes: list[int], strides: list[int], sizes_given: bool, strides_given: bool,
           ids: list[str], cost: Cost, time_s: float, budget_s: float, groups: int, start_s: float,
           reserve: Callable[[int], float] = lambda n: 0.0) -> Fit:
    """The grid a new sweep measures: the candidate (the host's default sizes
    and strides, or what the user gave) fitted to the `time_s` seconds left
    (fit). What the user gave is never thinned: --sizes keeps every size
    (strides may thin), --strides every stride (sizes may go), and a grid
    given whole is measured as given or refused. UserError (exit 2) when
    not even the pilot fits, with the budget that would."""
    candidate = {s: tuple(strides) for s in sizes}
    thin, drop = not strides_given, not sizes_given
    floor = None if sizes_given else floor_size(env, sizes)
    f = fit(candidate, ids, cost, time_s, budget_s, groups, start_s, thin=thin, drop=drop, floor=floor,
            reserve=reserve)
    if f is not None:
        return f
    # the least the plan could be: its steps run out, the largest size at the floor
    least = {s: candidate[s] for s in sizes if floor is None or s <= floor}
    table = _Table(least, ids, cost, start_s, groups, reserve=reserve)
    least, _ = _shrink(least, lambda g: False, table, thin, drop)
    need = math.ceil(table.total(least, groups) + budget_s - time_s)
    n = len(points_of(least))
    what = ("these --sizes and --strides" if sizes_given and strides_given else
            f"the smallest sweep {'with these --sizes' if sizes_given else 'with these --strides' if strides_given else 'this host allows'}"
            f" (sizes up to {fmt_size(max(least))})")
    measure = time_s - table.finish(least)
    raise UserError(f"--budget {budget_s:.0f} leaves {measure:.0f} s to measure (the analysis, figures and earlier "
                    f"runs take the other {budget_s - measure:.0f}); the pilot of {what}, {n} points x {len(ids)} "
                    f"mechanisms x {groups} rounds, needs about {table.seconds(least, groups):.0f} s: use --budget "
                    f"{need} or more" + ("" if not (sizes_given or strides_given) else
                                         ", or fewer points (without --sizes and --strides the grid is fitted "
                                         "to the budget)"))


def refit(grid: Grid, measured: Callable[[str, int, int], bool], ids: list[str], cost: Cost, time_s: float,
          budget_s: float, groups: int, start_s: float, env: dict, sizes_given: bool,
          strides_given: bool, reserve: Callable[[int], float] = lambda n: 0.0) -> tuple[Grid, list[str], bool]:
    """The grid fitted again after the pilot's first round, with what that
    round cost (`cost` now measured): sizes the round did not reach (its
    share of the time ended first) are left out, and so is what the time
    left cannot give its rounds (`done` = 1), by the same steps, down to
    any size if need be. Returns the grid, what was left out, and whether
    the grid's pilot fits (False: not even the smallest does)."""
    reached = {s: ds for s, ds in grid.items() if all(measured(b, s, d) for b in ids for d in ds)}
    lost = sorted(set(grid) - set(reached))
    why = [f"sizes {sizes_text(lost)} (the first round's share of the time ended before them)"] if lost else []
    if not reached:
        return reached, why, False
    floors = [None] if sizes_given else [floor_size(env, sorted(reached)), min(reached)]
    for floor in floors:
        f = fit(reached, ids, cost, time_s, budget_s, groups, start_s, thin=not strides_given,
                drop=not sizes_given, floor=floor, done=1, reserve=reserve)
        if f:
            return f.grid, why + f.left_out, True
    return reached, why, False
