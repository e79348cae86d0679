"""The state of one sweep, held in one object that each step (steps/) is
given: what was asked, set once when it begins, then the points measured
so far and their rounds, the grid, the rounds' log and the clock."""
from __future__ import annotations

from ctxbench.core import model, results
from ctxbench.core.measure import EngineOptions
from ctxbench.sweep import analysis as sweep_analysis
from ctxbench.sweep import cost as sweep_cost
from ctxbench.sweep import fit, rounds
from ctxbench.sweep import plan as sweep_plan
from ctxbench.sweep.steps import resume

# Kept back from the budget for the final analysis and the figures (the
# default grid's bootstrap and eight figures took 19 s on a loaded 2-CPU VM).
FINISH_S = 35
# ... for the default grid; a smaller one finishes sooner (--budget 40 measured for 5 s and then
# kept 35 s for a 24-point analysis that took one): a reserve by the points, FINISH_S at most
# (236 points and six figures took 8 s here unloaded).
FINISH_BASE_S, FINISH_PER_POINT_S = 6.0, 0.12


def finish_s(points: int) -> float:
    """Seconds kept back from the budget to finish a sweep of `points`."""
    return min(FINISH_S, FINISH_BASE_S + FINISH_PER_POINT_S * points)


class Sweep:
    """One sweep, made once (begin.py) and passed to every step: what was
    asked, the points measured and their rounds, the grid, and the clock."""

    def __init__(self, args, life, preset: str, mechs: list[tuple[str, str]], notes: list[str], settings: dict,
                 have: list[dict], old_doc: dict | None, env: dict, t_start: float, opts: EngineOptions):
        # what was asked: set once
        self.args, self.life, self.preset, self.mechs, self.notes = args, life, preset, mechs, notes
        self.settings, self.old_doc, self.t_start, self.opts = settings, old_doc, t_start, opts
        self.ids = [bid for _, bid in mechs]
        self.model = sweep_cost.Model(sweep_cost.Host.from_env(env), args.iterations, args.min_sample_us)
        self.prior_wall = resume.prior_wall(old_doc)  # seconds the resumed runs already spent
        self.deadline = t_start + args.budget - self.prior_wall  # monotonic time the budget ends
        # what is measured: the points by (id, size, stride), and what the engine said of itself
        self.by_key = {sweep_plan.key(r): r for r in have}
        self.next_round = 1 + max((g for r in have for g in rounds.rounds_of(r)), default=-1)
        self.engine_start_s = 0.5  # start-up to the first point, measured by every engine process
        self.finish_s = FINISH_S  # kept back to finish: set by the plan's points (finish_s)
        self.tool = model.Document(old_doc).tool if old_doc else {}
        self.env = env
        self.counters_said = False  # hardware counters unavailable: said once
        self.stopped_at_deadline = 0  # engine processes the deadline stopped
        self.log = list(results.member(resume.section(old_doc), "rounds") or [])  # one entry a round
        # the grid (size -> strides) and its record (sweep.plan): set by begin.py, fitted again by pilot.py
        self.grid: dict[int, tuple[int, ...]] = {}
        self.plan_rec: dict = {}
        self.sizes: list[int] = []
        self.strides: list[int] = []
        self.pts: list[tuple[int, int]] = []
        self.fitted = False  # the grid was fitted to the budget: its first round checks the fit

    def set_grid(self, grid: dict) -> None:
        """Measure `grid`: its sizes, strides and points, and what finishing them takes."""
        self.grid = grid
        self.sizes, self.strides = sorted(grid), sorted({d for ds in grid.values() for d in ds})
        self.pts = fit.points_of(grid)
        self.finish_s = finish_s(len(self.pts) * len(self.ids))

    def pilot_missing(self) -> int:
        """Points that lack their pilot rounds."""
        return sum(1 for b in self.ids for p in self.pts
                   if len(rounds.rounds_of(self.by_key.get((b, *p)))) < self.args.groups)

    def with_indirect(self, only: set | None = None) -> None:
        """Every point (or those whose key is in `only`) made a new one with its indirect cost."""
        self.by_key = dict(zip(self.by_key, sweep_analysis.with_indirect(list(self.by_key.values()), only)))

    def left(self) -> float:
        """Seconds left for measuring."""
        return self.deadline - self.finish_s - self.now()

    def now(self) -> float:
        """Monotonic seconds: the clock the sweep plans by (its engine context's, core/clock.py:
        recorded, replayed)."""
        return self.args.engine.clock.now()

    def wall_s(self) -> float:
        """Seconds the sweep has spent of its budget, its resumed runs' included."""
        return self.prior_wall + self.now() - self.t_start

    def cost(self, bid: str, size: int, stride: int) -> float:
        """Seconds a round of the point takes: measured, else the dearest
        measured at its size (strided or not, as it is), else the cost
        model's (cost.py)."""
        c = rounds.cost(self.by_key.get((bid, size, stride)))
        if c is not None:
            return c
        # a stride-0 point costs its samples' length whatever the size: it says nothing of a pass
        same = [rounds.cost(r) for k, r in self.by_key.items()
                if k[0] == bid and k[1] == size and bool(k[2]) == bool(stride)]
        same = [x for x in same if x is not None]
        return max(same) if same else self.model.round_s(bid, size, stride)

    def plan_cost(self, plan: list[dict[str, list[tuple[int, int]]]]) -> float:
        """Seconds a plan takes: one engine start-up per mechanism, then
        every round's points with their references."""
        bids = {b for rnd in plan for b, v in rnd.items() if v}
        return len(bids) * self.engine_start_s + sum(
            self.cost(b, s, d) for rnd in plan for b, v in rnd.items() if v
            for s, d in sweep_plan.round_points(v))

    def fit(self, plan: list[dict[str, list[tuple[int, int]]]], time_s: float) -> list[dict]:
        """The plan's first rounds that `time_s` pays for; the first round
        that does not fit whole is cut from the end of each mechanism's
        list (its largest sizes or dearest points) and ends the plan."""
        out: list[dict] = []
        for rnd in plan:
            rnd = {b: list(v) for b, v in rnd.items() if v}
            if self.plan_cost(out + [rnd]) <= time_s:
                out.append(rnd)
                continue
            while rnd and self.plan_cost(out + [rnd]) > time_s:
                b = max(rnd, key=lambda b: len(rnd[b]))
                rnd[b].pop()
                if not rnd[b]:
                    del rnd[b]
            if rnd:
                out.append(rnd)
            break
        return out
