"""ctxbench tasks: seed 000's task pairs with n context switches (METHOD.md
section 5): R_total, R'_total, C, I and I's breakdown per task."""
from __future__ import annotations

import math

from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.ui.format import fmt_time
from ctxbench.tasks import analysis as tasks_analysis
from ctxbench.core import workloads
from ctxbench.ui import options
from ctxbench.ui.command import Lifecycle
from ctxbench.ui.progress import Progress
from ctxbench.ui.warnings import print_warnings

DEFAULT_SWITCHES = "1,25,50,75,99"
DEFAULT_REPEAT = 5  # runs per point, as seed 000
MAX_SWITCHES = 100000


def add_parser(sub):
    p = sub.add_parser("tasks", help="indirect cost of n switches between two real tasks (David et al. 2007)",
                       description="Two tasks (sort, deflate, aes, crc) in two processes on one CPU, "
                                   "switching cooperatively exactly n times: direct cost n*C and indirect "
                                   "cost I = R'_total - (R_total - C) - n*C, broken down per task.")
    p.add_argument("--pair", metavar="A+B,...",
                   help=f"task pairs (default {','.join(workloads.DEFAULT_PAIRS)}; 'all': the six of David et al. 2007)")
    p.add_argument("--switches", metavar="SPEC", default=DEFAULT_SWITCHES, type=options.int_list_type(1, MAX_SWITCHES),
                   help=f"values of n, e.g. 1..99 or 1,25,50 (default {DEFAULT_SWITCHES}; 1 is always added)")
    options.add_repeat(p, DEFAULT_REPEAT, ", as David et al. 2007")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--cold", dest="cold", action="store_true", default=True,
                   help="start each run with caches and TLB emptied as far as user space can (default)")
    g.add_argument("--warm", dest="cold", action="store_false", help="skip the cache flush")
    options.add_scale(p)
    options.add_cpu(p, "CPU for the pair")
    options.add_output(p, "tasks")
    options.add_plot(p, "Figures 2 and 3 of David et al. 2007")
    p.set_defaults(func=run)


def run(args) -> int:
    pairs = workloads.pairs(args.pair)
    ns = sorted(set(args.switches) | {1})
    n_big = max(99, max(ns))
    life = Lifecycle("tasks", args.output)
    suffix = "" if args.cold else "/warm"

    plan = [("empty+empty", 1), ("empty+empty", n_big)] + [(p, n) for p in pairs for n in ns]
    prog = Progress(len(plan), label="tasks ")
    raw: dict[tuple[str, int], dict] = {}
    header: dict = {}
    for k, (pair, n) in enumerate(plan):
        opts = EngineOptions(cpu=args.cpu, groups=1, iterations=args.repeat, n=n, task_scale=args.scale,
                             warmup_ms=None if k == 0 else 0)
        h, res = run_ids([f"tasks/{pair}{suffix}"], opts, None)
        header = header or h
        raw[(pair, n)] = res[0]
        prog.step(f"{pair} n={n}")
    prog.close()

    points, by_pair = [], {}
    for pair in pairs:
        pts = tasks_analysis.pair_points({n: raw[(pair, n)] for n in ns}, raw[("empty+empty", 1)],
                                         raw[("empty+empty", n_big)])
        by_pair[pair] = pts
        points += pts
    maxcv = tasks_analysis.max_cv(points)
    c_results = [dict(raw[("empty+empty", 1)], id="tasks/empty+empty/n=1"),
                 dict(raw[("empty+empty", n_big)], id=f"tasks/empty+empty/n={n_big}")]
    env = header.get("environment", {})
    doc = life.document(header, points + c_results, {
        "pairs": pairs, "switches": ns, "repeat": args.repeat, "cold": args.cold, "scale": args.scale,
        "C_from": f"empty tasks, same runner, n = 1 and n = {n_big}", "max_cv": maxcv})
    life.write(doc)
    if args.plot:  # matplotlib only when figures are asked for (start-up time)
        from ctxbench.tasks import figures as tasks_figures
        life.figures(args.plot, [(tasks_figures.FIG2, tasks_figures.figure2(by_pair, env, maxcv)),
                                 (tasks_figures.FIG3, tasks_figures.figure3(by_pair, env, maxcv))])

    print(render(by_pair, maxcv))
    print_warnings([(f"{p['params']['pair']} n={p['params']['n']}", p["warnings"]) for p in points])
    life.finish()
    return 0


def _ci(s: dict) -> str:
    lo, hi = s["ci95"]
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return ""
    return f"[{fmt_time(lo)}, {fmt_time(hi)}]"


def render(by_pair: dict, maxcv: float) -> str:
    lines = []
    hdr = f"{'pair':<14}{'n':>4}  {'R_prime mean':>13} {'CV':>6}  {'direct n*C':>11}  {'indirect I':>11} {'95% CI':<26}{'I %':>8}"
    lines.append(hdr)
    lines.append("-" * len(hdr))
    for pair, pts in by_pair.items():
        for p in pts:
            q = p["parts"]
            lines.append(f"{pair:<14}{p['params']['n']:>4}  {fmt_time(q['R_prime']['mean']):>13} "
                         f"{q['R_prime']['cv']:>6.2%}  {fmt_time(q['direct']['mean']):>11}  "
                         f"{fmt_time(q['I']['mean']):>11} {_ci(q['I']):<26}{q['I_pct']['mean']:>7.3f}%")
    c = next(iter(by_pair.values()))[0]["parts"]["C"]
    lines.append(f"\nC (direct cost of one switch, empty tasks) = {fmt_time(c['mean'])} {_ci(c)}")
    lines.append(f"Max CV (R'_total, over all points) = {maxcv:.2%}")
    for pair, pts in by_pair.items():
        last = pts[-1]
        lines.append(f"{pair}: at n = {last['params']['n']}, I = {last['parts']['I_pct']['mean']:.3f}% of the "
                     f"combined running time (David et al. 2007: 0.10%-0.18% at 99)")
    return "\n".join(lines)
