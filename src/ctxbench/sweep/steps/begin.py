"""The sweep's first step: what it measures. The mechanisms the engine
knows, a resumed file's points (resume.py), and the grid: the file's own,
or the host's default or the user's fitted to the budget (fit.py), refused
before measuring when not even its pilot fits or its memory is not there."""
from __future__ import annotations

import sys

from ctxbench.core import memory, model, results
from ctxbench.core.engine import Engine
from ctxbench.core.errors import UserError
from ctxbench.core.measure import EngineOptions
from ctxbench.lifecycle import Lifecycle
from ctxbench.sweep import fit
from ctxbench.sweep import plan as sweep_plan
from ctxbench.sweep.steps import resume
from ctxbench.sweep.steps.measure import WARMUP_MS
from ctxbench.sweep.steps.state import Sweep, finish_s
from ctxbench.ui import presets


def start(args, life: Lifecycle, t_start: float) -> Sweep:
    """The sweep asked for by `args` (begun at `t_start`, kept by `life`),
    its grid set, with what it has measured already when its file is
    continued."""
    preset = presets.apply(args, "sweep").preset
    out = life.output
    mechs, notes = sweep_plan.resolve_mechanisms(args.mechanism, _known_ids(args.engine))
    _check_compare_stride(args)
    settings = {"iterations": args.iterations, "min_sample_us": args.min_sample_us, "cpu": args.cpu}
    have, old_doc = resume.existing(out, settings)
    env = (model.Document(old_doc).environment.as_dict() if old_doc else {}) or _host_environment(args.engine)
    opts = EngineOptions(cpu=args.cpu, groups=1, iterations=args.iterations,
                         min_sample_us=args.min_sample_us, warmup_ms=WARMUP_MS,
                         extra=[] if args.no_counters else ["--counters"])
    sw = Sweep(args, life, preset, mechs, notes, settings, have, old_doc, env, t_start, opts)
    grid, sw.plan_rec = _grid(sw, out)
    sw.set_grid(grid)
    _check_memory(sw)
    sw.fitted = not old_doc and not (args.sizes and args.strides)  # its first round checks the fit
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    if have:
        print(f"resuming {out}: {len(sw.pts) * len(sw.ids) - sw.pilot_missing()} of {len(sw.pts) * len(sw.ids)} "
              f"points have their {args.groups} pilot rounds; "
              f"{max(sw.left() + sw.finish_s, 0):.0f} s of the {args.budget} s budget left", file=sys.stderr)
    return sw


def _known_ids(eng: Engine) -> set[str]:
    """The ids the engine measures (the mechanisms are looked up in them)."""
    return {b["id"] for b in eng.list_benchmarks(all_=True)}


def _host_environment(eng: Engine) -> dict:
    """The environment of the host the engine runs on (a new sweep's grid is its caches')."""
    return model.Document(eng.host_environment()).environment.as_dict()  # asked once: memory.check reads it too


def _check_compare_stride(args) -> None:
    """--compare-stride must be one of the strides asked for (the figure compares them)."""
    asked = sweep_plan.parse_strides(args.strides) if args.strides else list(sweep_plan.DEFAULT_STRIDES)
    if args.compare_stride is not None and args.compare_stride not in asked:
        raise UserError(f"--compare-stride {args.compare_stride} is not one of the strides measured "
                        f"({','.join(map(str, asked))})")


def _check_memory(sw: Sweep) -> None:
    """Refused before measuring when the largest size's arrays cannot be held."""
    # both parties hold the size, locked; only the process ping-pong splits them
    memory.check([memory.Need(2 * size, size if "/process/" in bid else 2 * size,
                              f"{bid} at {memory.gib(size)} per party") for bid in sw.ids for size in sw.sizes],
                 "sweep", "lower the largest of --sizes", eng=sw.args.engine)


def _grid(sw: Sweep, out: str) -> tuple[dict, dict]:
    """The grid this run measures (size -> strides) and its record
    (sweep.plan): a resumed file's own plan, else the host's default grid
    or the user's, fitted to the budget (fit.py) and refused before
    measuring when not even its pilot fits."""
    args, env, old_doc = sw.args, sw.env, sw.old_doc
    given = (bool(args.sizes), bool(args.strides))
    if old_doc and not any(given):  # continued as it was planned, whatever the budget now
        old_plan = results.member(resume.section(old_doc), "plan")
        grid = sweep_plan.grid_of_file(old_plan, out) or {s: tuple(sweep_plan.DEFAULT_STRIDES)
                                                          for s in sweep_plan.default_sizes(env)}
        rec = dict(old_plan or {})  # a file from before issue 22 says it was not fitted (core/results/upgrade)
        return grid, dict(rec, strides_by_size={str(s): list(d) for s, d in grid.items()})
    strides = sweep_plan.parse_strides(args.strides) if args.strides else list(sweep_plan.DEFAULT_STRIDES)
    sizes = sweep_plan.parse_sizes(args.sizes) if args.sizes else sweep_plan.default_sizes(env)
    if old_doc:  # the grid given again: it was checked against the budget when the sweep began
        grid = {s: tuple(strides) for s in sizes}
        return grid, {"fitted": "as given", "strides_by_size": {str(s): list(d) for s, d in grid.items()}}
    f = fit.choose(env, sizes, strides, *given, sw.ids, sw.cost, sw.deadline - sw.now(), args.budget,
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
