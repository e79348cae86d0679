"""ctxbench noise: what the system itself takes from a pinned CPU
(docs/method.md#system-noise): the gaps a tight clock-reading loop sees,
with the interrupts counted on that CPU over the same windows."""
from __future__ import annotations

from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.core.model import Document, Result
from ctxbench.ui.format import fmt_time
from ctxbench.ui import options, presets
from ctxbench.lifecycle import Lifecycle
from ctxbench.ui.progress import Progress

MAX_SECONDS = 3600


def add_parser(sub):
    p = sub.add_parser("noise", help="gaps a pinned tight loop sees, next to /proc/interrupts deltas",
                       description="On a pinned CPU a loop reads the clock; every step above a threshold "
                                   "(20x the loop's own minimum step) is a gap. Reports count, total, "
                                   "longest and a histogram of gap lengths, with the /proc/interrupts "
                                   "deltas of that CPU over the same windows.")
    options.add_cpu(p, "CPU to watch")
    options.add_host(p)
    p.add_argument("--seconds", type=options.count(1, MAX_SECONDS), metavar="S",
                   help=presets.flag_help("noise", "seconds", "measured time in 1 s windows"))
    presets.add_flags(p, "noise")
    options.add_output(p)
    options.add_plot(p, "the gap histogram")
    p.set_defaults(func=run)


def run(args) -> int:
    life = Lifecycle("noise", args.output, store=args.store, engine=args.engine)
    preset = presets.apply(args, "noise").preset
    prog = Progress(1, label="noise ")
    prog.update(f"{args.seconds + 1} s on the pinned CPU (the first window warms up)")
    header, res = run_ids(args.engine, ["noise/gaps"], EngineOptions(cpu=args.cpu, groups=1, iterations=args.seconds, n=1000,
                                                        warmup_ms=0), None)
    prog.step("done")
    prog.close()
    r = Result(res[0])
    env = Document(header).environment
    nz = r.noise
    cpu = r.params.get("noise_cpu")
    life.write(life.document(header, res[:1], {"preset": preset, "cpu": cpu, "seconds": args.seconds}))
    if args.plot:  # matplotlib only when figures are asked for (start-up time)
        from ctxbench.noise import figures as noise_figures
        life.figures(args.plot, [(noise_figures.NAME, noise_figures.noise_histogram(nz, env, cpu, r.summary))])

    win = nz.get("window_ns") or 1
    print(f"CPU {cpu}: {nz.get('count', 0)} gaps above {nz.get('threshold_ns')} ns "
          f"(20 x the loop's minimum step of {nz.get('min_step_ns')} ns) in {win / 1e9:.1f} s; "
          f"{fmt_time(nz.get('total_ns', 0))} lost ({100.0 * nz.get('total_ns', 0) / win:.2f}%), "
          f"longest {fmt_time(nz.get('longest_ns', 0))}")
    print(f"per 1 s window: median {fmt_time(r.summary.median)} lost, CV {r.summary.cv:.1%}")
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
    life.finish()
    return 0
