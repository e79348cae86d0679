"""The sweep's results file, rewritten whole (atomically, by the lifecycle)
after every engine process and at the end: an interrupted sweep keeps what
it measured, and continues from it."""
from __future__ import annotations

import datetime

from ctxbench.sweep import analysis as sweep_analysis
from ctxbench.sweep import plan as sweep_plan
from ctxbench.sweep.steps.goals import CLOSE_ROUNDS, MDE_GOAL_FRAC, WORK_GOAL_FRAC
from ctxbench.sweep.steps.state import Sweep


def save(sw: Sweep, final: bool = False) -> dict:
    """Write the sweep as it is now (`final`: complete); its document."""
    wall = sw.wall_s()
    sec = {
        "mechanisms": [{"name": n, "id": i} for n, i in sw.mechs],
        "preset": sw.preset, "sizes": sw.sizes, "strides": sw.strides, "plan": sw.plan_rec,
        "settings": sw.settings, "budget_s": sw.args.budget,
        "pilot_rounds": sw.args.groups, "engine_args": sw.opts.args(), "wall_s": wall, "complete": final,
        "skipped": sw.notes, "mde_goal_fraction_of_direct": MDE_GOAL_FRAC,
        "mde_goal_fraction_of_work": WORK_GOAL_FRAC, "close_rounds": CLOSE_ROUNDS,
        "rounds": sw.log, "stopped_at_deadline": sw.stopped_at_deadline,
        "indirect_method": sweep_analysis.PAIRED, "stride0_check": sweep_analysis.PLACEBO,
        "updated": datetime.datetime.now().isoformat(timespec="seconds")}
    doc = sw.life.document({"tool": sw.tool, "environment": sw.env}, _ordered(sw), sec)
    sw.life.write(doc)
    return doc


def _ordered(sw: Sweep) -> list[dict]:
    """The points in the plan's order (mechanism, then size and stride), any others after."""
    order = {(bid, s, d): i for i, (bid, (s, d)) in enumerate((b, p) for b in sw.ids for p in sw.pts)}
    return sorted(sw.by_key.values(), key=lambda r: order.get(sweep_plan.key(r), len(order)))
