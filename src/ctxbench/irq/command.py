"""ctxbench irq: the indirect cost of interrupts at a controlled rate
(METHOD.md section 6, seed 000 section 4): a task runs with and without a
timer signal whose handler only counts; I = R'_task - R_task - k*D."""
from __future__ import annotations

import datetime
import math

from ctxbench.core import model as results
from ctxbench.core import writer
from ctxbench.irq.analysis import irq_point
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.ui.progress import Progress
from ctxbench.run.table import fmt_time
from ctxbench.tasks import args as task_args

DEFAULT_RATES = "100,1000,4000,10000"


def add_parser(sub):
    p = sub.add_parser("irq", help="indirect cost of timer interrupts (signals) at controlled rates (seed 000)",
                       description="Each task runs without and with a POSIX timer signal at each rate; the "
                                   "handler only increments a counter. D = direct cost of servicing one "
                                   "(mean of 100, warm); I = R'_task - R_task - k*D.")
    p.add_argument("--task", metavar="T,...", help="tasks (default: all of sort, deflate, aes, crc)")
    p.add_argument("--rates", metavar="HZ,...", default=DEFAULT_RATES,
                   help=f"timer signals per second (default {DEFAULT_RATES})")
    p.add_argument("--repeat", type=int, default=5, help="runs per point (default 5)")
    p.add_argument("--scale", type=float, default=1.0, help="task size multiplier (1: about 0.5 s per task here)")
    p.add_argument("--cpu", type=int, metavar="N", help="CPU to run on (default: the highest allowed)")
    p.add_argument("-o", "--output", metavar="FILE", help="results file (default ctxbench-irq-<time>.json)")
    p.add_argument("--plot", metavar="DIR", help="write seed 000 Figure 5 (PNG, SVG) to DIR")
    p.set_defaults(func=run)


def run(args) -> int:
    started = datetime.datetime.now().isoformat(timespec="seconds")  # before measuring
    task_args.check_common(args)
    tasks = task_args.tasks(args.task)
    rates = task_args.int_list(args.rates, "rates", 1, 100000)
    out = args.output or task_args.default_output("irq")
    writer.check_writable(out)

    plan = [("direct", 1)] + [(t, r) for t in tasks for r in rates]
    prog = Progress(len(plan), label="irq ")
    raw, header = {}, {}
    for k, (task, rate) in enumerate(plan):
        opts = EngineOptions(cpu=args.cpu, groups=1, n=rate, warmup_ms=None if k == 0 else 0,
                             iterations=max(args.repeat, 10) if task == "direct" else args.repeat)
        h, res = run_ids([f"irq/{task}"], opts, None)
        header = header or h
        raw[(task, rate)] = res[0]
        prog.step(f"{task} {rate} Hz")
    prog.close()

    direct = raw[("direct", 1)]
    by_task = {t: [irq_point(raw[(t, r)], direct) for r in rates] for t in tasks}
    points = [p for pts in by_task.values() for p in pts]
    env = header.get("environment", {})
    doc = results.document(header.get("tool", {}), env, [dict(direct, id="irq/direct")] + points, extra={"irq": {
        "tasks": tasks, "rates_hz": rates, "repeat": args.repeat, "scale": args.scale,
        "D": direct["summary"], "started": started}})
    figs = []
    if args.plot:
        from ctxbench.irq.figures import figure5
        figs = figure5(by_task, env, direct["summary"], args.plot)
    writer.write_results(out, doc)

    d = direct["summary"]
    print(f"D (direct cost of servicing one timer signal, mean of 100, warm) = {fmt_time(d['mean'])} "
          f"[{fmt_time(d['ci95'][0])}, {fmt_time(d['ci95'][1])}] (CI of the median over {d['n']} loops)")
    hdr = f"{'task':<9}{'rate':>7}  {'R_task':>10} {'CV':>6}  {'R_prime':>10}  {'k':>6}  {'k*D':>10}  {'I':>10} {'95% CI':<24}{'I %':>8}"
    print(hdr)
    print("-" * len(hdr))
    for t, pts in by_task.items():
        for p in pts:
            q = p["parts"]
            lo, hi = q["I"]["ci95"]
            ci = f"[{fmt_time(lo)}, {fmt_time(hi)}]" if math.isfinite(lo) else ""
            print(f"{t:<9}{p['params']['rate_hz']:>5}Hz  {fmt_time(q['R_task']['mean']):>10} {q['R_task']['cv']:>6.2%}  "
                  f"{fmt_time(q['R_prime']['mean']):>10}  {q['interrupts']['mean']:>6.0f}  "
                  f"{fmt_time(q['direct']['mean']):>10}  {fmt_time(q['I']['mean']):>10} {ci:<24}{q['I_pct']['mean']:>7.3f}%")
    from ctxbench.tasks.command import print_warnings
    print_warnings([(f"{p['params']['task']} {p['params']['rate_hz']} Hz", p["warnings"]) for p in points])
    print("\nThe interrupt is a timer signal delivered to the task's thread (a hardware timer interrupt, then "
          "the kernel's signal delivery and return), not a raw interrupt as in seed 000.")
    print(f"results written to {out}")
    for f in figs:
        print(f"figure: {f}")
    return 0
