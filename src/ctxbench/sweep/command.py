"""ctxbench sweep: the indirect cost of a switch over working-set sizes and
strides (docs/method.md#working-set-sweep; Chen et al.), with figures.

The sweep measures in rounds within a time budget (default 5 minutes, the
whole command): a round measures its points size by size, each size's
stride-0 reference just before its strided points (analysis.py pairs them
by round); one engine process per mechanism runs a plan's rounds back to
back.

1. Pilot: every point in the same `--groups` rounds.
2. Then the time left goes to the points it can bring to their goal
   (an MDE of a tenth of the direct cost or one percent of the work
   between switches), cheapest to close first, each given the rounds its
   own spread needs (allocate.py), re-planned every few rounds, until every
   point is at its goal or the budget ends. Whether a point is resolved
   never decides whether it is measured again (that would be optional
   stopping): every point is tested once, at the end. A round
   is trimmed to what the time left pays for (measured costs), and the
   engine is stopped at the deadline whatever it is doing.

What each engine process measured is saved when it ends, also on Ctrl-C
(atomic rewrite of the results file), so an interrupted sweep keeps it; the
same command with -o naming that file continues it: the pilot's missing
rounds first, then the allocation, within what is left of the budget
(`--budget` may be raised to spend more). Like every measuring command it
goes through the lifecycle (lifecycle.py): without -o the file is kept in
the data directory, and figures are drawn only with --plot.
"""
from __future__ import annotations

import datetime
import math
import os
import sys

from ctxbench.core import clock, engine
from ctxbench.core import model, reader, results
from ctxbench.core.errors import UserError, shown
from ctxbench.core.measure import EngineOptions
from ctxbench.stats import power
from ctxbench.sweep import allocate
from ctxbench.sweep import analysis as sweep_analysis
from ctxbench.sweep import cost as sweep_cost
from ctxbench.sweep import fit
from ctxbench.core import memory
from ctxbench.sweep import plan as sweep_plan
from ctxbench.sweep import rounds
from ctxbench.ui import options, presets
from ctxbench.lifecycle import Lifecycle
from ctxbench.ui.progress import Progress

# CPU warm-up per engine process (ms). The pilot's rounds, samples per
# round, shortest sample and the budget are the presets' (ui/presets.py).
WARMUP_MS = 200
# Kept back from the budget for the final analysis and the figures (the
# default grid's bootstrap and eight figures took 19 s on a loaded 2-CPU VM).
FINISH_S = 35
# ... for the default grid; a smaller one finishes sooner (--budget 40 measured for 5 s and then
# kept 35 s for a 24-point analysis that took one): a reserve by the points, FINISH_S at most
# (236 points and six figures took 8 s here unloaded).
FINISH_BASE_S, FINISH_PER_POINT_S = 6.0, 0.12
# The least --budget: the smallest grid's reserve and a few seconds to measure
# (a grid whose pilot does not fit is refused before measuring, fit.choose).
MIN_BUDGET_S = 10
# A point closes (resolved, or MDE at the goal) only after this many rounds:
# the interval over rounds (stats.power.effect) is calibrated at any n, but
# with fewer rounds its t(n-1) interval is wide (t = 4.3 at 3 rounds) and
# "resolved" (and the stride-0 check) a weak statement.
CLOSE_ROUNDS = 8
# The MDE that is small enough: a tenth of the mechanism's direct cost.
MDE_GOAL_FRAC = 0.1
# ... or, for a strided point, this fraction of the work between two switches (goal_ns).
WORK_GOAL_FRAC = 0.01
MOST_ROUNDS = 1000
COMPARE_STRIDE = 64
# Settings that must match for a resumed sweep to add to an existing file.
SETTINGS = ("iterations", "min_sample_us", "cpu")


def add_parser(sub):
    p = sub.add_parser("sweep", help="indirect cost over working-set sizes and strides, with figures",
                       description="Measure the total and indirect cost per switch while both parties "
                                   "traverse their own array of SIZE bytes at STRIDE bytes between messages.")
    p.add_argument("--mechanism", metavar="M,...", type=options.nonempty_list,
                   help=f"mechanisms (default {','.join(sweep_plan.DEFAULT_MECHANISMS)}; with --quick "
                        f"{presets.PRESETS['sweep'].knob('mechanism').quick}; known: {', '.join(sweep_plan.MECHANISMS)})")
    p.add_argument("--sizes", metavar="LIST", type=options.nonempty_list,
                   help="sizes per party: a range of powers of two like 1K..16M, or a list like 1K,48K,64K "
                        "(default: 1K until one party's array is the whole last-level cache, plus points at "
                        "the L1/L2 sizes, fitted to --budget: the dearest left out first, and said; with --quick "
                        f"{presets.PRESETS['sweep'].knob('sizes').quick})")
    p.add_argument("--strides", metavar="LIST", type=options.nonempty_list,
                   help="strides in bytes, must include 0 (default 0,8,16,32,64,128,256, fewer where a point "
                        "is expensive, fitted to --budget); --sizes with --strides is measured as given, "
                        "or refused before measuring if its pilot does not fit --budget; with --quick "
                        f"{presets.PRESETS['sweep'].knob('strides').quick})")
    options.add_output(p, "results file; if it exists, the sweep in it is continued")
    options.add_plot(p, "the figures")
    p.add_argument("--compare-stride", type=options.count(0, 1 << 30), metavar="D",
                   help=f"stride of the figure comparing mechanisms, one of --strides "
                        f"(default {COMPARE_STRIDE}, or the middle stride when {COMPARE_STRIDE} is not measured)")
    p.add_argument("--groups", type=options.count(2, 1000), metavar="G",
                   help=presets.flag_help("sweep", "groups", "pilot rounds: every point is measured in G rounds "
                                          "(one group each) before the rest of the budget goes to the noisy points"))
    p.add_argument("--iterations", type=options.count(1, 1000), metavar="N",
                   help=presets.flag_help("sweep", "iterations", "samples per point and round"))
    p.add_argument("--budget", type=options.count(MIN_BUDGET_S, 24 * 3600), metavar="S",
                   help=presets.flag_help("sweep", "budget", "seconds for the whole sweep, resumed runs included"))
    p.add_argument("--min-sample-us", type=options.count(1, 10_000_000), metavar="US",
                   help=presets.flag_help("sweep", "min_sample_us", "shortest sample, µs"))
    presets.add_flags(p, "sweep")
    options.add_cpu(p)
    options.add_host(p)
    p.add_argument("--no-counters", action="store_true", help="do not ask for hardware counters")
    p.set_defaults(func=run)


def _existing(path: str, settings: dict) -> tuple[list[dict], dict | None]:
    """Results already in `path` (to continue) and its document."""
    if not os.path.exists(path):
        return [], None
    doc = reader.load(path)
    sw = model.Document(doc).section("sweep")
    if sw is None:
        raise UserError(f"'{path}' exists and is not a sweep results file: choose another -o")
    _check_resumable(path, sw)
    old = results.member(sw, "settings") or {}
    diff = [k for k in SETTINGS if old.get(k) != settings.get(k)]
    if diff:
        raise UserError(f"'{path}' was measured with different settings ({', '.join(diff)}): "
                        f"resume with the same options, or choose another -o")
    return [r for r in model.Document(doc).records if sweep_plan.key(r)], doc


def _check_resumable(path: str, sw) -> None:
    """What a resumed sweep trusts beyond the members' types (the reader
    checked those against core/results): a negative wall time extended
    the budget (-1e9 made the default sweep unbounded)."""
    wall = results.member(sw, "wall_s", 0.0)
    if wall is not None and not (math.isfinite(wall) and wall >= 0):
        raise UserError(f"'{shown(path)}' is malformed: sweep.wall_s must be the seconds already spent "
                        f"(a number >= 0), not {shown(repr(wall)[:40])}")


def _prior_wall(old_doc: dict | None) -> float:
    """Seconds the resumed runs already spent (checked by _check_resumable)."""
    return float(results.member(_section(old_doc), "wall_s") or 0.0)


def _section(old_doc) -> results.sections.Section | None:
    """The resumed file's sweep section, None for a new sweep."""
    return model.Document(old_doc).section("sweep") if old_doc else None


class Sweep:
    """The points of one sweep, their rounds, and the clock."""

    def __init__(self, args, mechs, have, old_doc, t_start, model: sweep_cost.Model):
        self.args, self.mechs, self.model = args, mechs, model
        self.by_key = {sweep_plan.key(r): r for r in have}
        prior = _prior_wall(old_doc)
        self.deadline = t_start + args.budget - prior  # monotonic time the budget ends
        self.next_round = 1 + max((g for r in have for g in rounds.rounds_of(r)), default=-1)
        self.engine_start_s = 0.5  # start-up to the first point, measured by every engine process
        self.finish_s = FINISH_S  # kept back to finish: set by the plan's points (finish_s)

    def with_indirect(self, only: set | None = None) -> None:
        """Every point (or those whose key is in `only`) made a new one with its indirect cost."""
        self.by_key = dict(zip(self.by_key, sweep_analysis.with_indirect(list(self.by_key.values()), only)))

    def left(self) -> float:
        """Seconds left for measuring."""
        return self.deadline - self.finish_s - clock.now()

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


def finish_s(points: int) -> float:
    """Seconds kept back from the budget to finish a sweep of `points`."""
    return min(FINISH_S, FINISH_BASE_S + FINISH_PER_POINT_S * points)


def _grid(args, env: dict, ids: list[str], sw: Sweep, old_doc: dict | None, out: str) -> tuple[dict, dict]:
    """The grid this run measures (size -> strides) and its record
    (sweep.plan): a resumed file's own plan, else the host's default grid
    or the user's, fitted to the budget (fit.py) and refused before
    measuring when not even its pilot fits."""
    given = (bool(args.sizes), bool(args.strides))
    if old_doc and not any(given):  # continued as it was planned, whatever the budget now
        old_plan = results.member(_section(old_doc), "plan")
        grid = sweep_plan.grid_of_file(old_plan, out) or {s: tuple(sweep_plan.DEFAULT_STRIDES)
                                                     for s in sweep_plan.default_sizes(env)}
        rec = dict(old_plan or {})  # a file from before issue 22 says it was not fitted (core/results/upgrade)
        return grid, dict(rec, strides_by_size={str(s): list(d) for s, d in grid.items()})
    strides = sweep_plan.parse_strides(args.strides) if args.strides else list(sweep_plan.DEFAULT_STRIDES)
    sizes = sweep_plan.parse_sizes(args.sizes) if args.sizes else sweep_plan.default_sizes(env)
    if old_doc:  # the grid given again: it was checked against the budget when the sweep began
        grid = {s: tuple(strides) for s in sizes}
        return grid, {"fitted": "as given", "strides_by_size": {str(s): list(d) for s, d in grid.items()}}
    f = fit.choose(env, sizes, strides, *given, ids, sw.cost, sw.deadline - clock.now(), args.budget,
                   args.groups, sw.engine_start_s, finish_s)
    by = ("host and budget" if not any(given) else "as given" if all(given) else
          "--sizes as given, strides fitted to the budget" if given[0] else
          "--strides as given, sizes fitted to the budget")
    line = fit.describe(f)
    if not all(given) or f.rounds < fit.PLAN_ROUNDS:
        print(f"note: plan ({by}): {line}", file=sys.stderr)
    return f.grid, {"fitted": by, "strides_by_size": {str(s): list(d) for s, d in f.grid.items()},
                    "rounds": f.rounds, "predicted_s": round(f.seconds, 1), "left_out": f.left_out,
                    "budget_for_whole_grid": f.budget_all, "budget_for_largest_size": f.budget_top,
                    "note": line, "cost_model": sw.model.describe(), "refit": []}


def run(args) -> int:
    t_start = clock.now()
    life = Lifecycle("sweep", args.output, resumable=True, store=args.store)
    preset = presets.apply(args, "sweep").preset
    out = life.output
    known = {b["id"] for b in engine.list_benchmarks(all_=True)}
    mechs, notes = sweep_plan.resolve_mechanisms(args.mechanism, known)
    asked = sweep_plan.parse_strides(args.strides) if args.strides else list(sweep_plan.DEFAULT_STRIDES)
    if args.compare_stride is not None and args.compare_stride not in asked:
        raise UserError(f"--compare-stride {args.compare_stride} is not one of the strides measured "
                        f"({','.join(map(str, asked))})")
    settings = {"iterations": args.iterations, "min_sample_us": args.min_sample_us, "cpu": args.cpu}
    have, old_doc = _existing(out, settings)
    env = ((model.Document(old_doc).environment.as_dict() if old_doc else {})
           or model.Document(engine.environment()).environment.as_dict())
    ids = [bid for _, bid in mechs]
    cost_model = sweep_cost.Model(sweep_cost.Host.from_env(env), args.iterations, args.min_sample_us)
    sw = Sweep(args, mechs, have, old_doc, t_start, cost_model)
    grid, plan_rec = _grid(args, env, ids, sw, old_doc, out)
    sizes, strides, pts = sorted(grid), sorted({d for ds in grid.values() for d in ds}), fit.points_of(grid)
    sw.finish_s = finish_s(len(pts) * len(ids))
    # both parties hold the size, locked; only the process ping-pong splits them
    memory.check([memory.Need(2 * size, size if "/process/" in bid else 2 * size,
                              f"{bid} at {memory.gib(size)} per party") for bid in ids for size in sizes],
                 "sweep", "lower the largest of --sizes")
    fitted = not old_doc and not (args.sizes and args.strides)  # its first round checks the fit
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    if have:
        piloted = sum(1 for b in ids for p in pts if len(rounds.rounds_of(sw.by_key.get((b, *p)))) >= args.groups)
        print(f"resuming {out}: {piloted} of {len(pts) * len(ids)} points have their {args.groups} pilot rounds; "
              f"{max(sw.left() + sw.finish_s, 0):.0f} s of the {args.budget} s budget left", file=sys.stderr)

    opts = EngineOptions(cpu=args.cpu, groups=1, iterations=args.iterations,
                         min_sample_us=args.min_sample_us, warmup_ms=WARMUP_MS,
                         extra=[] if args.no_counters else ["--counters"])
    state = {"tool": model.Document(old_doc).tool if old_doc else {}, "env": env, "counters_said": False,
             "stopped_at_deadline": 0, "log": list(results.member(_section(old_doc), "rounds") or [])}
    prior_wall = _prior_wall(old_doc)

    def ordered():
        order = {(bid, s, d): i for i, (bid, (s, d)) in enumerate((b, p) for b in ids for p in pts)}
        return sorted(sw.by_key.values(), key=lambda r: order.get(sweep_plan.key(r), len(order)))

    def save(final=False):
        wall = prior_wall + clock.now() - t_start
        sec = {
            "mechanisms": [{"name": n, "id": i} for n, i in mechs],
            "preset": preset, "sizes": sizes, "strides": strides, "plan": plan_rec, "settings": settings,
            "budget_s": args.budget,
            "pilot_rounds": args.groups, "engine_args": opts.args(), "wall_s": wall, "complete": final,
            "skipped": notes, "mde_goal_fraction_of_direct": MDE_GOAL_FRAC,
            "mde_goal_fraction_of_work": WORK_GOAL_FRAC, "close_rounds": CLOSE_ROUNDS,
            "rounds": state["log"], "stopped_at_deadline": state["stopped_at_deadline"],
            "indirect_method": sweep_analysis.PAIRED, "stride0_check": sweep_analysis.PLACEBO,
            "updated": datetime.datetime.now().isoformat(timespec="seconds")}
        doc = life.document({"tool": state["tool"], "environment": state["env"]}, ordered(), sec)
        life.write(doc)
        return doc

    def take(name, bid, plist, arrived, t_prev, phase, prog):
        """Merge what one engine process answered into the points, and save."""
        got = set()
        # The engine measures the points in the order given, one result each: the i-th
        # result is plist[i] (the same point recurs once per round).
        for (raw, now), (rno, (size, stride)) in zip(arrived, plist):
            if raw is None:  # the engine failed this point: its own message ends the sweep (stream)
                t_prev[0] = now
                continue
            params = dict(model.Result(raw).params.items())
            if "size" in params and "stride" in params:
                if (int(params["size"]), int(params["stride"])) != (size, stride):
                    raise UserError(f"engine answered point {params['size']}:{params['stride']}, "
                                    f"not {size}:{stride} as asked for {bid}", code=1)
            else:  # an id that does not echo size/stride
                params.update(size=size, stride=stride)
            params["mechanism_name"] = name
            # where both parties' arrays fit: past the LLC the misses go to DRAM, whose latency is
            # time, not core cycles (core/cycles.py keeps such points in ns)
            params["working_set_level"] = cost_model.host.level(2 * size) if stride else "none"
            k = (bid, size, stride)
            cost = now - t_prev[0]
            t_prev[0] = now
            sw.by_key[k] = rounds.merge(sw.by_key.get(k), dict(raw, params=params), rno, max(cost, 0.0))
            got.add(k)
        # once per point and engine process (its summary's bootstrap took 30 ms a point, and
        # per result that was half of one default sweep's time)
        for k in got:
            r = sw.by_key[k] = sweep_analysis.with_counter_rates(model.analyse(sw.by_key[k]))
            if not state["counters_said"] and model.Result(r).counters:
                state["counters_said"] = True
                c = model.Result(r).counters
                if not c.get("available"):
                    prog.close()
                    print(f"note: hardware counters unavailable ({c.get('error') or 'refused'}): "
                          f"the sweep runs without them", file=sys.stderr)
        if phase != "pilot":  # the pilot is analysed once, at its end (a bootstrap per point costs time)
            sw.with_indirect(only=got)
        save()

    def measure_rounds(plan: list[dict[str, list[tuple[int, int]]]], phase: str, until: float | None = None) -> bool:
        """Consecutive rounds, one engine process per mechanism for all of
        them: round j measures plan[j][mechanism]'s points (references
        added), size by size. False if the budget ended during them, or
        `until` (monotonic time, shared out among the mechanisms still to
        measure by what their points are predicted to take) stopped one of
        them."""
        first = sw.next_round
        sw.next_round += len(plan)
        per_mech = {bid: [(first + j, pt) for j, rnd in enumerate(plan) if rnd.get(bid)
                          for pt in sweep_plan.round_points(rnd[bid])] for bid in ids}
        label = f"sweep {phase} round{'s' if len(plan) > 1 else ''} {first}" + (
            f"-{first + len(plan) - 1}" if len(plan) > 1 else "")
        prog = Progress(sum(len(v) for v in per_mech.values()), label=label + " ")
        for j, rnd in enumerate(plan):
            state["log"].append({"round": first + j, "phase": phase,
                                 "points": sum(len(sweep_plan.round_points(v)) for v in rnd.values() if v)})
        complete = True
        for i, (name, bid) in enumerate(mechs):
            plist = per_mech.get(bid)
            if not plist:
                continue
            t_prev = [clock.now()]
            limit = sw.left()
            if until is not None:  # its share of what is left, by what its points are predicted to take
                pred = {b: sw.engine_start_s + sum(sw.cost(b, s, d) for _, (s, d) in per_mech[b])
                        for _, b in mechs[i:] if per_mech.get(b)}
                limit = min(limit, (until - t_prev[0]) * pred[bid] / sum(pred.values()))
            t_call = t_prev[0]

            def on_header(h, t_call=t_call):
                # the engine probed the machine and calibrated; the CPU warm-up follows
                t_prev[0] = clock.now() + WARMUP_MS / 1000
                sw.engine_start_s = t_prev[0] - t_call
                got = model.Document(h)
                if got.environment.as_dict() and not old_doc:
                    state["env"] = got.environment.as_dict()
                if got.tool:
                    state["tool"] = got.tool

            arrived: list = []

            def on_result(raw, arrived=arrived):
                # Only note it while the engine measures: merging and analysing here would run
                # beside the next point, maybe on its CPU, a third task the switch counts miss
                # (it inflated later stride-0 points by 40% in one run).
                arrived.append((raw, clock.now()))
                p = model.Result(raw).params
                prog.step(f"{name} {sweep_plan.fmt_size(int(p.get('size', 0)))}:{p.get('stride', '?')}")

            prog.update(f"{name} starting")
            arg = ",".join(f"{s}:{d}" for _, (s, d) in plist)
            finished = False
            try:
                # a failed point holds its place, so that the next results stay paired with their points
                finished = engine.stream(["run", bid, "--points", arg, *opts.args()], on_header, on_result,
                                         deadline_s=max(limit, 0.0),
                                         on_failed_job=lambda f, arrived=arrived: arrived.append((None, clock.now())))
            finally:  # what arrived is kept, also when Ctrl-C ends the plan
                take(name, bid, plist, arrived, t_prev, phase, prog)
            if not finished:
                prog.close()
                state["stopped_at_deadline"] += 1
                cut = plist[len(arrived)][0] if len(arrived) < len(plist) else plist[-1][0]
                for e in state["log"]:  # the rounds this engine process did not finish
                    if e["round"] >= cut:
                        e["stopped_at_deadline"] = True
                complete = False
                if until is None or sw.left() <= 0:
                    return False
        prog.close()
        return complete

    def first_round() -> bool:
        """The pilot's first round of a fitted grid, within the share of the
        time that lets the pilot's other rounds follow, then the grid fitted
        again to what the round cost (issue 22: the cost model is another
        host's): sizes the round did not reach, and points the time left
        cannot give their rounds, are left out (their round is dropped).
        False if the budget ended."""
        nonlocal grid, sizes, strides, pts
        measure_rounds([{b: list(pts) for b in ids}], "pilot", until=clock.now() + sw.left() / args.groups)
        if sw.left() <= 0:
            return False
        old = grid
        new, why, ok = fit.refit(grid, lambda b, s, d: (b, s, d) in sw.by_key, ids, sw.cost,
                                 sw.deadline - clock.now(), args.budget, args.groups, sw.engine_start_s,
                                 state["env"], bool(args.sizes), bool(args.strides), finish_s)
        if why or not ok:
            done = [(b, s, d) for b in ids for s, d in fit.points_of(old) if (b, s, d) in sw.by_key]
            line = (f"the first pilot round cost {sum(sw.cost(*k) for k in done):.1f} s where it reached "
                    f"(the model said {sum(sw.model.round_s(*k) for k in done):.1f} s)"
                    + (f": left out {'; '.join(why)}" if why else "")
                    + ("" if ok else "; not even the pilot of what is left is sure to fit: raise --budget"))
            print(f"note: {line}", file=sys.stderr)
            plan_rec["refit"].append(line)
            plan_rec["left_out"] = list(plan_rec.get("left_out") or []) + why
        grid = new or grid  # nothing reached: the budget ended, the plan stays as it was
        sizes, strides, pts = sorted(grid), sorted({d for ds in grid.values() for d in ds}), fit.points_of(grid)
        sw.finish_s = finish_s(len(pts) * len(ids))
        plan_rec["strides_by_size"] = {str(s): list(d) for s, d in grid.items()}
        keep = set(pts)
        for k in [k for k in sw.by_key if (k[1], k[2]) not in keep]:
            del sw.by_key[k]
        save()
        return True

    try:
        # 1. pilot: every point in the same G rounds (those it lacks), one engine process per mechanism;
        # a grid fitted to the budget is checked by its first round first
        budget_ended = fitted and not first_round()
        lacking = {(b, p): args.groups - len(rounds.rounds_of(sw.by_key.get((b, *p)))) for b in ids for p in pts}
        pilot = [{b: [p for p in pts if lacking[(b, p)] > j] for b in ids} for j in range(args.groups)]
        pilot = [rnd for rnd in pilot if any(rnd.values())]
        if pilot and not budget_ended:
            paid = sw.fit(pilot, sw.left())
            n_fit = sum(len(v) for rnd in paid for v in rnd.values())
            n_want = sum(len(v) for rnd in pilot for v in rnd.values())
            if n_fit < n_want:
                print(f"note: the budget pays for {n_fit} of the pilot's {n_want} point-rounds (the largest "
                      f"sizes left out): raise --budget to measure them", file=sys.stderr)
            budget_ended = (not paid or not measure_rounds(paid, "pilot", until=sw.deadline - sw.finish_s)
                            or n_fit < n_want)
        # 2. the rest of the budget to the points it can bring to their goal (allocate.py)
        sw.with_indirect()
        while not budget_ended:
            states = point_states(sw, ids, pts)
            keys = allocate.plan(states, sw.left() - len(ids) * sw.engine_start_s, MOST_ROUNDS)
            plan: list[dict[str, list[tuple[int, int]]]] = []
            for rnd_keys in keys:
                rnd: dict[str, list[tuple[int, int]]] = {}
                for b, s, d in rnd_keys:
                    rnd.setdefault(b, []).append((s, d))
                for b in rnd:  # a stride-0 check needs its neighbours in the round: all of them (cheap)
                    if any(d == 0 for _, d in rnd[b]):
                        rnd[b] += [(s, 0) for s in sizes if (s, 0) not in rnd[b]]
                plan.append(rnd)
            paid = sw.fit(plan, sw.left())
            if not paid:
                break
            # each mechanism gets its share of the time left: rounds that cost more than
            # measured so far (other load) cut every mechanism's tail, not the last one whole
            done = measure_rounds(paid, "allocation", until=sw.deadline - sw.finish_s)
            budget_ended = not done and sw.left() <= len(ids) * sw.engine_start_s
    except KeyboardInterrupt:
        n_have = len(sw.by_key)
        again = "run the same command" if life.asked else f"run the same command with -o {shown(out)}"
        print(f"ctxbench: interrupted; {n_have} points saved in {shown(out)}: {again} to continue",
              file=sys.stderr)
        return 130

    sw.with_indirect()
    doc = save(final=True)

    if args.plot:
        from ctxbench.sweep import figures as figures_sweep
        life.figures(args.plot, figures_sweep.all_figures(
            doc, compare_stride=COMPARE_STRIDE if args.compare_stride is None else args.compare_stride))
    wall = prior_wall + clock.now() - t_start  # the whole command, figures included
    res = model.Document(doc).records
    print(sweep_analysis.text_summary(res, state["env"], mechs, wall, args.budget, planned=set(pts)))
    missing = sum(1 for b in ids for p in pts if len(rounds.rounds_of(sw.by_key.get((b, *p)))) < args.groups)
    print(f"plan ({plan_rec.get('fitted', 'as given')}): {len(pts)} points per mechanism, {len(pts) * len(ids)} in "
          f"all; {len(pts) * len(ids) - missing} with their {args.groups} pilot rounds"
          + (f"; left out: {'; '.join(plan_rec['left_out'])}" if plan_rec.get("left_out") else ""))
    if missing:
        print(f"{missing} of {len(pts) * len(ids)} points lack their {args.groups} pilot rounds: the budget ended "
              f"(raise --budget and run the same command to continue)")
    status = sweep_analysis.counters_status(res)
    if status and not status.startswith("hardware counters unavailable"):  # that was said once already
        print(status)
    life.finish()
    return 0


def point_states(sw: Sweep, ids: list[str], pts: list[tuple[int, int]]) -> list[allocate.PointState]:
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
