"""The host's state under a run's table (issue 48; docs/host-state.md): the
clock and each sensor (core/host_state.py) against the best this host has
recorded in the store, steal and the other CPUs' load, and one line that
names what moved. Printed from the record the run keeps (run.host_state),
so that the report says what the run said."""
from __future__ import annotations

import math
import textwrap

from ctxbench.core import host_state
from ctxbench.stats.numbers import finite_or_nan, finite_or_none
from ctxbench.ui.format import fmt_time

# What a sensor that moved predicts of the ids
EXPECT = {"syscall": "kernel ids higher"}
CLOCK_MOVED = 0.03  # the clock's own spread between runs on a steady host is about 1%: docs/cycles.md
STEAL_SAID = 0.01   # steal worth a line: 1% of the measured CPU's time
BUSY_SAID = 0.5     # the other CPUs' load worth a line


def record(state: host_state.HostState | None, ghz: float, best, fastest_ghz: float | None) -> dict | None:
    """What the run keeps (run.host_state): the state, the best this host
    recorded (`best`: core/store/between.HostBest, None without one), how
    much slower than it each sensor ran with the clock taken out, and the
    line that names what moved."""
    if state is None:
        return None
    out = dict(state.record(), ghz=finite_or_none(ghz))
    if best is None:
        return dict(out, best=None, moved={}, said=_said({}, math.nan))
    clock = fastest_ghz / ghz - 1 if fastest_ghz and math.isfinite(ghz) and ghz > 0 else math.nan
    slower = host_state.moved(state, best.ns)
    # a slower clock slows every sensor in ns alike: what is left is the sensor's own
    own = {k: (1 + v) / (1 + clock) - 1 if math.isfinite(clock) else v for k, v in slower.items()}
    out.update(best=dict({f"{k}_ns": v for k, v in best.ns.items()}, runs=best.runs,
                         ghz=finite_or_none(fastest_ghz)),
               moved={k: round(v, 4) for k, v in own.items()}, clock_slower=finite_or_none(clock))
    return dict(out, said=_said(own, clock))


def _said(own: dict[str, float], clock: float) -> str:
    """One line naming what moved, "" where nothing did."""
    moved = sorted(((v, k) for k, v in own.items() if v >= host_state.MOVED), reverse=True)
    if not moved:
        return ""
    names = "; ".join(f"{host_state.WHAT[k]} {v:.0%} slower than this host's best" for v, k in moved)
    held = ("the clock held" if math.isfinite(clock) and abs(clock) < CLOCK_MOVED else
            f"the clock {abs(clock):.0%} {'slower' if clock > 0 else 'faster'}, taken out" if math.isfinite(clock)
            else "the clock not known")
    expect = ", ".join(dict.fromkeys(EXPECT[k] for _, k in moved))
    return f"{names}; {held}: expect {expect}; see docs/host-state.md"


def lines(rec: dict | None) -> list[str]:
    """The block under the table, from what the run kept."""
    if not rec:
        return []
    best = rec.get("best") or {}
    out = ["", "Host state while it ran (best: the least this host read over "
               f"{best.get('runs', 0)} earlier run(s) in the store on this kernel and CPU; beyond the clock: how "
               "much slower than that, the clock's own change taken out; docs/host-state.md):" if best else
           "Host state while it ran (nothing to hold it against: no results store, or no earlier run of this host "
           "and kernel with sensors in it; docs/host-state.md):"]
    ghz = finite_or_nan(rec.get("ghz"))
    if math.isfinite(ghz):
        fast = finite_or_nan(best.get("ghz"))
        out.append(f"  {'core clock':<36} {ghz:8.3f} GHz" + (f"   fastest {fast:.3f} GHz" if math.isfinite(fast) else ""))
    for name in host_state.NAMES:
        now, b = finite_or_nan(rec.get(f"{name}_ns")), finite_or_nan(best.get(f"{name}_ns"))
        if not math.isfinite(now):
            continue
        moved = (rec.get("moved") or {}).get(name)
        tail = f"   best {fmt_time(b):>9}" + (f"   {moved:+.0%} beyond the clock" if moved is not None else "") \
            if math.isfinite(b) else ""
        out.append(f"  {host_state.WHAT[name]:<36} {fmt_time(now):>12}{tail}")
    steal, busy = finite_or_nan(rec.get("steal_share")), finite_or_nan(rec.get("others_busy_share"))
    shares = [f"steal {steal:.1%} of the measured CPU" if math.isfinite(steal) else "",
              f"the other CPUs {busy:.0%} busy" if math.isfinite(busy) else ""]
    if any(shares):
        out.append("  " + "; ".join(s for s in shares if s))
    said = rec.get("said") or ""
    if said:
        out += textwrap.wrap("What moved: " + said, width=110, break_on_hyphens=False)
    if math.isfinite(steal) and steal >= STEAL_SAID:
        out.append(f"The hypervisor took {steal:.1%} of the measured CPU's time (steal): every id is slower by "
                   "what it took, and its samples noisier.")
    if math.isfinite(busy) and busy >= BUSY_SAID:
        out.append(f"The other CPUs were {busy:.0%} busy: what runs there shares the memory system and the "
                   "hypervisor with this run.")
    return out


def rows(rec: dict) -> list[list[str]]:
    """The block as table rows (the report): what, this run, the best, beyond the clock."""
    best, moved = rec.get("best") or {}, rec.get("moved") or {}
    out = []
    ghz, fast = finite_or_nan(rec.get("ghz")), finite_or_nan(best.get("ghz"))
    if math.isfinite(ghz):
        out.append(["core clock", f"{ghz:.3f} GHz", f"{fast:.3f} GHz" if math.isfinite(fast) else "-", ""])
    for name in host_state.NAMES:
        now, b = finite_or_nan(rec.get(f"{name}_ns")), finite_or_nan(best.get(f"{name}_ns"))
        if math.isfinite(now):
            out.append([host_state.WHAT[name], fmt_time(now), fmt_time(b) if math.isfinite(b) else "-",
                        f"{moved[name]:+.0%}" if name in moved else ""])
    for key, what in (("steal_share", "steal (the measured CPU)"), ("others_busy_share", "the other CPUs busy")):
        x = finite_or_nan(rec.get(key))
        if math.isfinite(x):
            out.append([what, f"{x:.1%}", "", ""])
    return out
