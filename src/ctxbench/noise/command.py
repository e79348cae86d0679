"""ctxbench noise: what the system itself takes from a pinned CPU (METHOD.md
section 6): the gaps a tight clock-reading loop sees, with the interrupts
counted on that CPU over the same windows."""
from __future__ import annotations

import datetime

from ctxbench.core import model as results
from ctxbench.core import writer
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.ui.progress import Progress
from ctxbench.run.table import fmt_time
from ctxbench.tasks import args as task_args


def add_parser(sub):
    p = sub.add_parser("noise", help="gaps a pinned tight loop sees, next to /proc/interrupts deltas",
                       description="On a pinned CPU a loop reads the clock; every step above a threshold "
                                   "(20x the loop's own minimum step) is a gap. Reports count, total, "
                                   "longest and a histogram of gap lengths, with the /proc/interrupts "
                                   "deltas of that CPU over the same windows.")
    p.add_argument("--cpu", type=int, metavar="N", help="CPU to watch (default: the highest allowed)")
    p.add_argument("--seconds", type=int, default=10, help="measured time in 1 s windows (default 10)")
    p.add_argument("-o", "--output", metavar="FILE", help="results file (default ctxbench-noise-<time>.json)")
    p.add_argument("--plot", metavar="DIR", help="write the gap histogram (PNG, SVG) to DIR")
    p.set_defaults(func=run)


def run(args) -> int:
    started = datetime.datetime.now().isoformat(timespec="seconds")  # before measuring
    task_args.positive("seconds", args.seconds)
    if args.seconds > 3600:
        from ctxbench.core.errors import UserError
        raise UserError(f"--seconds must be at most 3600, got {args.seconds}")
    args.repeat, args.scale = 1, 1.0
    task_args.check_common(args)
    out = args.output or task_args.default_output("noise")
    writer.check_writable(out)
    prog = Progress(1, label="noise ")
    prog.update(f"{args.seconds + 1} s on the pinned CPU (the first window warms up)")
    header, res = run_ids(["noise/gaps"], EngineOptions(cpu=args.cpu, groups=1, iterations=args.seconds, n=1000,
                                                        warmup_ms=0), None)
    prog.step("done")
    prog.close()
    r = res[0]
    env = header.get("environment", {})
    nz = r.get("noise") or {}
    cpu = r["params"].get("noise_cpu")
    doc = results.document(header.get("tool", {}), env, [r], extra={"noise": {
        "cpu": cpu, "seconds": args.seconds, "started": started}})
    figs = []
    if args.plot:
        from ctxbench.noise.figures import noise_histogram
        figs = noise_histogram(nz, env, cpu, args.plot, r.get("summary"))
    writer.write_results(out, doc)

    win = nz.get("window_ns") or 1
    print(f"CPU {cpu}: {nz.get('count', 0)} gaps above {nz.get('threshold_ns')} ns "
          f"(20 x the loop's minimum step of {nz.get('min_step_ns')} ns) in {win / 1e9:.1f} s; "
          f"{fmt_time(nz.get('total_ns', 0))} lost ({100.0 * nz.get('total_ns', 0) / win:.2f}%), "
          f"longest {fmt_time(nz.get('longest_ns', 0))}")
    print(f"per 1 s window: median {fmt_time(r['summary']['median'])} lost, CV {r['summary']['cv']:.1%}")
    print(f"\n{'gap length':<22}{'gaps':>9}{'time lost':>12}")
    for h in nz.get("histogram") or []:
        print(f"{fmt_time(h['lo_ns']) + ' .. ' + fmt_time(h['hi_ns']):<22}{h['count']:>9}{fmt_time(h['total_ns']):>12}")
    irqs = sorted(nz.get("interrupts") or [], key=lambda x: -x["delta"])
    if irqs:
        print(f"\n/proc/interrupts on CPU {cpu} over the same windows:")
        for x in irqs[:15]:
            print(f"  {x['irq']:>6}: {x['delta']:>9}  {x['desc']}")
    print("\nGaps include preemption by other tasks, not only interrupts: on a shared machine the longest "
          "ones are usually other processes.")
    print(f"results written to {out}")
    for f in figs:
        print(f"figure: {f}")
    return 0
