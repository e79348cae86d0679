"""ctxbench irq: the indirect cost of interrupts at a controlled rate
(METHOD.md section 6, seed 000 section 4): a task runs with and without a
timer signal whose handler only counts; I = R'_task - R_task - k*D."""
from __future__ import annotations

import math

from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.irq.analysis import irq_point
from ctxbench.ui.format import fmt_time
from ctxbench.core import workloads
from ctxbench.ui import options
from ctxbench.ui.command import Lifecycle
from ctxbench.ui.progress import Progress
from ctxbench.ui.warnings import print_warnings

DEFAULT_RATES = "100,1000,4000,10000"
DEFAULT_REPEAT = 5
MAX_RATE_HZ = 100000


def add_parser(sub):
    p = sub.add_parser("irq", help="indirect cost of timer interrupts (signals) at controlled rates (David et al. 2007)",
                       description="Each task runs without and with a POSIX timer signal at each rate; the "
                                   "handler only increments a counter. D = direct cost of servicing one "
                                   "(mean of 100, warm); I = R'_task - R_task - k*D.")
    p.add_argument("--task", metavar="T,...", help="tasks (default: all of sort, deflate, aes, crc)")
    p.add_argument("--rates", metavar="HZ,...", default=DEFAULT_RATES, type=options.int_list_type(1, MAX_RATE_HZ),
                   help=f"timer signals per second (default {DEFAULT_RATES})")
    options.add_repeat(p, DEFAULT_REPEAT)
    options.add_scale(p)
    options.add_cpu(p, "CPU to run on")
    options.add_output(p, "irq")
    options.add_plot(p, "Figure 5 of David et al. 2007")
    p.set_defaults(func=run)


def run(args) -> int:
    tasks = workloads.tasks(args.task)
    rates = args.rates
    life = Lifecycle("irq", args.output)

    plan = [("direct", 1)] + [(t, r) for t in tasks for r in rates]
    prog = Progress(len(plan), label="irq ")
    raw, header = {}, {}
    for k, (task, rate) in enumerate(plan):
        opts = EngineOptions(cpu=args.cpu, groups=1, n=rate, warmup_ms=None if k == 0 else 0, task_scale=args.scale,
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
    doc = life.document(header, [dict(direct, id="irq/direct")] + points, {
        "tasks": tasks, "rates_hz": rates, "repeat": args.repeat, "scale": args.scale, "D": direct["summary"]})
    life.write(doc)
    if args.plot:  # matplotlib only when figures are asked for (start-up time)
        from ctxbench.irq import figures as irq_figures
        life.figures(args.plot, [(irq_figures.NAME, irq_figures.figure5(by_task, env, direct["summary"]))])

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
    print_warnings([(f"{p['params']['task']} {p['params']['rate_hz']} Hz", p["warnings"]) for p in points])
    print("\nThe interrupt is a timer signal delivered to the task's thread (a hardware timer interrupt, then "
          "the kernel's signal delivery and return), not a raw interrupt as in David et al. 2007.")
    life.finish()
    return 0
