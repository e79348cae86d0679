"""ctxbench sweep: the indirect cost of a switch over working-set sizes and
strides (METHOD.md section 4, seed 001), with figures.

Every finished point is saved at once (atomic rewrite of the results file),
so an interrupted sweep keeps what it measured; the same command again
measures only the missing points. One engine process per mechanism runs
all of its points (--points), so TSC calibration, the environment probe and
the CPU warm-up are paid once, not per point.
"""
from __future__ import annotations

import datetime
import os
import sys
import time

from ctxbench.core import engine
from ctxbench.core import model as results, reader
from ctxbench.core import writer
from ctxbench.sweep import analysis as sweep_analysis
from ctxbench.sweep import plan as sweep_plan
from ctxbench.core.errors import UserError
from ctxbench.core.measure import EngineOptions
from ctxbench.ui import options
from ctxbench.ui.progress import Progress

# groups x iterations per point, shortest sample (µs): sized so that the
# default sweep (3 mechanisms x 16 sizes x 7 strides) stays within ~5 min
# on a busy 2-CPU machine.
GROUPS, ITERATIONS, MIN_SAMPLE_US, WARMUP_MS = 5, 8, 500, 200
COMPARE_STRIDE = 64
CV_TARGET = 0.05
# Settings that must match for a resumed sweep to add to an existing file.
SETTINGS = ("groups", "iterations", "min_sample_us", "cpu")


def add_parser(sub):
    p = sub.add_parser("sweep", help="indirect cost over working-set sizes and strides, with figures",
                       description="Measure the total and indirect cost per switch while both parties "
                                   "traverse their own array of SIZE bytes at STRIDE bytes between messages.")
    p.add_argument("--mechanism", metavar="M,...",
                   help=f"mechanisms (default {','.join(sweep_plan.DEFAULT_MECHANISMS)}; "
                        f"known: {', '.join(sweep_plan.MECHANISMS)})")
    p.add_argument("--sizes", metavar="LIST",
                   help="sizes per party: a range of powers of two like 1K..16M, or a list like 1K,48K,64K "
                        "(default: 1K to twice the L2 and the dTLB reach, plus points at the cache sizes)")
    p.add_argument("--strides", metavar="LIST", help="strides in bytes, must include 0 (default 0,8,16,32,64,128,256)")
    p.add_argument("-o", "--output", metavar="FILE", default="sweep.json",
                   help="results file; if it exists, its missing points are measured (default sweep.json)")
    p.add_argument("--plot", metavar="DIR", type=options.plot_dir, help="figures directory (default: <output>-figures)")
    p.add_argument("--no-plot", action="store_true", help="no figures")
    p.add_argument("--compare-stride", type=options.count(0, 1 << 30), metavar="D",
                   help=f"stride of the figure comparing mechanisms, one of --strides "
                        f"(default {COMPARE_STRIDE}, or the middle stride when {COMPARE_STRIDE} is not measured)")
    options.add_samples(p, GROUPS, ITERATIONS)
    p.add_argument("--min-sample-us", type=options.count(1, 10_000_000), default=MIN_SAMPLE_US, metavar="US",
                   help=f"shortest sample (default {MIN_SAMPLE_US})")
    options.add_cpu(p)
    p.add_argument("--no-counters", action="store_true", help="do not ask for hardware counters")
    p.set_defaults(func=run)


def _existing(path: str, settings: dict) -> tuple[list[dict], dict | None]:
    """Results already in `path` (for resume) and its environment."""
    if not os.path.exists(path):
        return [], None
    doc = reader.load(path)
    sw = doc.get("sweep")
    if not isinstance(sw, dict):
        raise UserError(f"'{path}' exists and is not a sweep results file: choose another -o")
    old = sw.get("settings") or {}
    diff = [k for k in SETTINGS if old.get(k) != settings.get(k)]
    if diff:
        raise UserError(f"'{path}' was measured with different settings ({', '.join(diff)}): "
                        f"resume with the same options, or choose another -o")
    return [r for r in doc["results"] if sweep_plan.key(r)], doc


def run(args) -> int:
    t_start = time.monotonic()
    out = args.output
    writer.check_writable(out)
    started = datetime.datetime.now().isoformat(timespec="seconds")  # before measuring
    known = {b["id"] for b in engine.list_benchmarks(all_=True)}
    mechs, notes = sweep_plan.resolve_mechanisms(args.mechanism, known)
    strides = sweep_plan.parse_strides(args.strides) if args.strides else list(sweep_plan.DEFAULT_STRIDES)
    if args.compare_stride is not None and args.compare_stride not in strides:
        raise UserError(f"--compare-stride {args.compare_stride} is not one of the strides measured "
                        f"({','.join(map(str, strides))})")
    settings = {"groups": args.groups, "iterations": args.iterations, "min_sample_us": args.min_sample_us,
                "cpu": args.cpu}
    have, old_doc = _existing(out, settings)
    env = (old_doc or {}).get("environment") or engine.environment().get("environment", {})
    sizes = sweep_plan.parse_sizes(args.sizes) if args.sizes else sweep_plan.default_sizes(env)
    pts = sweep_plan.points(sizes, strides)
    ids = [bid for _, bid in mechs]
    todo = sweep_plan.missing(ids, pts, have)
    n_todo = sum(len(v) for v in todo.values())
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    if have:
        print(f"resuming {out}: {len(pts) * len(ids) - n_todo} of {len(pts) * len(ids)} points already measured",
              file=sys.stderr)

    opts = EngineOptions(cpu=args.cpu, groups=args.groups, iterations=args.iterations,
                         min_sample_us=args.min_sample_us, warmup_ms=WARMUP_MS,
                         extra=[] if args.no_counters else ["--counters"])
    state = {"results": list(have), "tool": (old_doc or {}).get("tool") or {}, "env": env,
             "counters_said": False}
    prior_wall = float(((old_doc or {}).get("sweep") or {}).get("wall_s") or 0.0)

    def save(final=False):
        wall = prior_wall + time.monotonic() - t_start
        extra = {"sweep": {
            "mechanisms": [{"name": n, "id": i} for n, i in mechs],
            "sizes": sizes, "strides": strides, "settings": settings,
            "engine_args": opts.args(), "wall_s": wall, "complete": final,
            "skipped": notes, "cv_target": CV_TARGET,
            "indirect_method": "total - direct; direct = pooled stride-0 samples at this size and its "
                               "neighbouring sizes (for a stride-0 point: up to two sizes each side, "
                               "not itself); CI: independent bootstrap of the difference of medians",
            "started": started, "updated": datetime.datetime.now().isoformat(timespec="seconds")}}
        doc = results.document(state["tool"], state["env"], state["results"], extra=extra)
        writer.write_results(out, doc)
        return doc

    prog = Progress(max(n_todo, 1), label="sweep ")
    try:
        for name, bid in mechs:
            plist = todo[bid]
            if not plist:
                continue
            arg = ",".join(f"{s}:{d}" for s, d in plist)
            got = []

            def on_header(h):
                if h.get("environment") and not old_doc:
                    state["env"] = h["environment"]
                if h.get("tool"):
                    state["tool"] = h["tool"]

            def on_result(raw, name=name, bid=bid, plist=plist, got=got):
                raw = dict(raw)
                params = dict(raw.get("params") or {})
                if "size" in params and "stride" in params:
                    size, stride = int(params["size"]), int(params["stride"])
                    if (size, stride) not in plist:
                        raise UserError(f"engine answered point {size}:{stride}, not asked for {bid}", code=1)
                else:  # an id that does not echo size/stride: the points come in order
                    size, stride = plist[len(got)]
                    params.update(size=size, stride=stride)
                params["mechanism_name"] = name
                raw["params"] = params
                r = results.analyse(raw)
                sweep_analysis.add_counter_rates(r)
                got.append(r)
                state["results"] = [x for x in state["results"] if sweep_plan.key(x) != (bid, size, stride)]
                state["results"].append(r)
                sweep_analysis.add_indirect(state["results"], only={(bid, size, stride)})
                save()
                if not state["counters_said"] and isinstance(r.get("counters"), dict):
                    state["counters_said"] = True
                    c = r["counters"]
                    if not c.get("available"):
                        prog.close()
                        print(f"note: hardware counters unavailable ({c.get('error') or 'refused'}): "
                              f"the sweep runs without them", file=sys.stderr)
                prog.step(f"{name} {sweep_plan.fmt_size(size)}:{stride}")

            prog.update(f"{name} starting")
            engine.stream(["run", bid, "--points", arg, *opts.args()], on_header, on_result)
    except KeyboardInterrupt:
        prog.close()
        n_have = len([r for r in state["results"] if sweep_plan.key(r)])
        print(f"ctxbench: interrupted; {n_have} points saved in {out}: run the same command to resume",
              file=sys.stderr)
        return 130
    prog.close()

    # Final analysis over everything (stride-0 references are pooled now).
    order = {(bid, s, d): i for i, (bid, (s, d)) in enumerate((b, p) for b in ids for p in pts)}
    state["results"].sort(key=lambda r: order.get(sweep_plan.key(r), len(order)))
    sweep_analysis.add_indirect(state["results"])
    doc = save(final=True)

    figs = []
    if not args.no_plot:
        from ctxbench.sweep import figures as figures_sweep
        from ctxbench.ui.figures import save
        plot_dir = args.plot or (os.path.splitext(out)[0] + "-figures")
        try:
            figs = [p for name, fig in figures_sweep.all_figures(
                doc, compare_stride=COMPARE_STRIDE if args.compare_stride is None else args.compare_stride)
                    for p in save(fig, plot_dir, name)]
        except OSError as e:
            raise UserError(f"results written to {out}, but the figures could not be written to "
                            f"'{plot_dir}': {e.strerror or e}", code=1)
    wall = prior_wall + time.monotonic() - t_start  # the whole command, figures included

    print(sweep_analysis.text_summary(state["results"], state["env"], mechs, wall, CV_TARGET))
    status = sweep_analysis.counters_status(state["results"])
    if status and not status.startswith("hardware counters unavailable"):  # that was said once already
        print(status)
    print(f"results written to {out}")
    if figs:
        print(f"figures: {len(figs)} files in {os.path.dirname(figs[0])}")
    return 0
