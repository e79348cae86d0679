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

from ctxbench.lifecycle import Lifecycle
from ctxbench.sweep import plan as sweep_plan
from ctxbench.sweep.steps import begin, finish, pilot
from ctxbench.sweep.steps.allocation import allocation
from ctxbench.ui import options, presets

# tests/test_sweep_allocate.py and test_sweep_bad_resume.py read these here

COMPARE_STRIDE = finish.COMPARE_STRIDE
# The least --budget: the smallest grid's reserve and a few seconds to measure
# (a grid whose pilot does not fit is refused before measuring, fit.choose).
MIN_BUDGET_S = 10


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


def run(args) -> int:
    """The steps (steps/__init__.py): what to measure, the pilot, the
    allocation, and the summary; Ctrl-C keeps what was measured."""
    t_start = args.engine.clock.now()  # the budget is the whole command's
    sw = begin.start(args, Lifecycle("sweep", args.output, resumable=True, store=args.store, engine=args.engine),
                     t_start)
    try:
        ended = not pilot.pilot(sw)
        sw.with_indirect()  # the pilot is analysed once, at its end
        if not ended:
            allocation(sw)
    except KeyboardInterrupt:
        return finish.interrupted(sw)
    return finish.finish(sw)
