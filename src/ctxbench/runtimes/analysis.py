"""What a runtime's hand-off record means: its cost per one-way hand-off
(model.analyse: median, interval over groups), what the kernel did per
hand-off, and whether the row is a user-level or a kernel-assisted switch.

The kernel's part is counted, not assumed: each harness reads the process's
voluntary and involuntary switches around every sample (getrusage, or the
sum over /proc/self/task/*/status), so a runtime whose "lightweight" hand-off
parks a kernel thread underneath shows it."""
from __future__ import annotations

import math

import numpy as np

from ctxbench.core import model
from ctxbench.core.model import Result
from ctxbench.runtimes import rounds
from ctxbench.stats import power
from ctxbench.ui.format import fmt_value

# At most one kernel switch per this many hand-offs and a row is user-level:
# a timer tick or a page fault every 100 hand-offs is the kernel passing by,
# not the kernel doing the hand-off (a blocked thread costs one switch per
# hand-off or more).
USER_LEVEL_BELOW = 0.01
Z95 = power.Z_ALPHA


def kernel_record(r: dict) -> dict:
    """Kernel switches per hand-off (median over samples, and the largest),
    voluntary and involuntary apart; {} when the harness counted none."""
    res = Result(r)
    handoffs = list(res.raw("handoffs"))
    vol, inv = res.counts("voluntary"), res.counts("involuntary")
    rows = [(a, b, h) for a, b, h in zip(vol, inv, handoffs)
            if isinstance(a, (int, float)) and isinstance(b, (int, float)) and isinstance(h, (int, float)) and h > 0]
    if not rows:
        return {}
    per = np.array([(a + b) / h for a, b, h in rows])
    med = float(np.median(per))
    return {"per_handoff": med, "max_per_handoff": float(per.max()),
            "voluntary_per_handoff": float(np.median([a / h for a, _, h in rows])),
            "involuntary_per_handoff": float(np.median([b / h for _, b, h in rows])),
            "samples": len(rows), "source": res.verify_source or "getrusage",
            "switch": "user-level" if med < USER_LEVEL_BELOW else "kernel-assisted"}


def resolution(r: dict) -> dict:
    """The row's standard error (from its 95% interval over groups) and
    the smallest change another run could tell from it (power.mde)."""
    lo, hi = Result(r).summary.ci95
    se = (hi - lo) / (2 * Z95) if math.isfinite(lo) and math.isfinite(hi) else math.nan
    return {"se_ns": se, "mde_ns": power.mde(se)}


LAUNCH_ALPHA = 0.01  # a launch effect is claimed at this level (a one-way ANOVA over launches)


def launch_spread(r: dict) -> dict | None:
    """The median of each of a row's launches (rounds.py), and a warning
    when they differ beyond what the groups within each launch vary by (a
    one-way F test on the group medians). The row's interval is over
    groups, and the groups of one launch share what a launch decides (a
    JIT's choices, where a runtime put its threads, the host's speed that
    minute), so it cannot cover a difference between launches: another run
    can land anywhere among them."""
    parts = rounds.launches(r)
    if len(parts) < 2 or sum(len(x) for x in parts) <= len(parts):
        return None
    from scipy import stats as sps  # here, not at import: the CLI starts without scipy
    medians = [float(np.median(x)) for x in parts]
    spread = max(medians) - min(medians)
    with np.errstate(all="ignore"):
        p = float(sps.f_oneway(*parts).pvalue) if all(parts) else math.nan
    out = {"medians": medians, "spread": spread, "p_launch": p}
    med = Result(r).summary.median
    if math.isfinite(p) and p < LAUNCH_ALPHA and med:
        shown = ", ".join(fmt_value(m, Result(r).unit) for m in medians)
        out["warning"] = model.warning(
            "launch_spread", f"its {len(medians)} launches gave {shown} ({spread / med:.0%} apart; F test "
                             f"p = {p:.2g}): another run can land anywhere among them",
            medians=medians, spread=spread, p=p)
    return out


def analyse(raw: dict) -> dict:
    """A harness record as an analysed result (model.analyse plus `kernel`
    and `resolution`); a virtual thread that pinned its carrier is
    flagged, since its hand-off then blocked a kernel thread."""
    r = model.analyse(raw)
    r["kernel"] = kernel_record(r)
    r["resolution"] = resolution(r)
    pinned = (r.get("jfr") or {}).get("virtual_thread_pinned")
    warnings = model.Result(r).warnings_stored("vt_pinned", "launch_spread")  # re-analysed: said once
    spread = launch_spread(r)
    if spread:
        r["launches"] = {k: v for k, v in spread.items() if k != "warning"}
        warnings += [spread["warning"]] if "warning" in spread else []
    if isinstance(pinned, int) and pinned > 0:
        warnings.append(model.warning(
            "vt_pinned", f"{pinned} jdk.VirtualThreadPinned events in the untimed check of the same loop: the "
                         "virtual thread held its carrier, so this is not a virtual-thread hand-off",
            pinned_events=pinned))
    r["warnings"] = warnings
    return r


def is_handoff(r: dict) -> bool:
    return Result(r).quantity == "handoff"


class Handoff(Result):
    """A runtimes row as its readers see it (table, figure, report)."""
    __slots__ = ()

    runtime = property(lambda s: str(s.params.get("runtime") or "?"))
    mechanism = property(lambda s: str(s.params.get("mechanism") or "?"))
    placement = property(lambda s: str(s.params.get("placement") or "?"))
    kernel = property(lambda s: s.d.get("kernel") if isinstance(s.d.get("kernel"), dict) else {})
    mde = property(lambda s: float((s.d.get("resolution") or {}).get("mde_ns", math.nan)))
    # the toolchain line without its build detail ("rustc 1.95.0 (59807616e 2026-04-14)")
    version = property(lambda s: str(s.params.get("version") or "").split(" (")[0])
