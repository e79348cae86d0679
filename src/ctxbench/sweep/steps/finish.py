"""The sweep's last step: every point's indirect cost, the file written
complete, the figures (--plot) and the summary printed; or, on Ctrl-C, the
line that says how to continue."""
from __future__ import annotations

import sys

from ctxbench.core import model
from ctxbench.core.errors import shown
from ctxbench.sweep import analysis as sweep_analysis
from ctxbench.sweep.steps.save import save
from ctxbench.sweep.steps.state import Sweep

COMPARE_STRIDE = 64  # the figure comparing mechanisms: this stride, unless --compare-stride


def finish(sw: Sweep) -> int:
    """Analyse, write, draw and print; the exit status."""
    args = sw.args
    sw.with_indirect()
    doc = save(sw, final=True)
    if args.plot:
        from ctxbench.sweep import figures as figures_sweep
        sw.life.figures(args.plot, figures_sweep.all_figures(
            doc, compare_stride=COMPARE_STRIDE if args.compare_stride is None else args.compare_stride))
    wall = sw.wall_s()  # the whole command, figures included
    res = model.Document(doc).records
    print(sweep_analysis.text_summary(res, sw.env, sw.mechs, wall, args.budget, planned=set(sw.pts)))
    _say_plan(sw)
    status = sweep_analysis.counters_status(res)
    if status and not status.startswith("hardware counters unavailable"):  # that was said once already
        print(status)
    sw.life.finish()
    return 0


def _say_plan(sw: Sweep) -> None:
    """What was planned, what it left out, and the points the budget left without their pilot."""
    groups, rec, n = sw.args.groups, sw.plan_rec, len(sw.pts) * len(sw.ids)
    missing = sw.pilot_missing()
    print(f"plan ({rec.get('fitted', 'as given')}): {len(sw.pts)} points per mechanism, {n} in "
          f"all; {n - missing} with their {groups} pilot rounds"
          + (f"; left out: {'; '.join(rec['left_out'])}" if rec.get("left_out") else ""))
    if missing:
        print(f"{missing} of {n} points lack their {groups} pilot rounds: the budget ended "
              f"(raise --budget and run the same command to continue)")


def interrupted(sw: Sweep) -> int:
    """Ctrl-C (or SIGTERM) while measuring: what was measured is saved (measure.py); how to continue."""
    out = sw.life.output
    again = "run the same command" if sw.life.asked else f"run the same command with -o {shown(out)}"
    print(f"ctxbench: interrupted; {len(sw.by_key)} points saved in {shown(out)}: {again} to continue",
          file=sys.stderr)
    return 130
