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
from ctxbench.stats import power

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


def analyse(raw: dict) -> dict:
    """A harness record as an analysed result (model.analyse plus `kernel`
    and `resolution`); a virtual thread that pinned its carrier is
    flagged, since its hand-off then blocked a kernel thread."""
    r = model.analyse(raw)
    r["kernel"] = kernel_record(r)
    r["resolution"] = resolution(r)
    pinned = (r.get("jfr") or {}).get("virtual_thread_pinned")
    r["warnings"] = model.Result(r).warnings_stored("vt_pinned")  # re-analysed: said once
    if isinstance(pinned, int) and pinned > 0:
        r["warnings"] = model.Result(r).warnings_stored() + [model.warning(
            "vt_pinned", f"{pinned} jdk.VirtualThreadPinned events while timing: the virtual thread held its "
                         "carrier, so this is not a virtual-thread hand-off", pinned_events=pinned)]
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
