"""Numbers for people: a time in the unit that keeps it short, an effect
(stats.power.effect) as one phrase."""
from __future__ import annotations

import math


def fmt_time(ns: float, width: int = 0) -> str:
    if ns is None or not math.isfinite(ns):
        s = "n/a"
    elif abs(ns) >= 1e12:  # over 1000 s: no switch takes that; print it, but short
        s = f"{ns / 1e9:.3g} s"
    elif abs(ns) >= 1e6:
        s = f"{ns / 1e6:.2f} ms"
    elif abs(ns) >= 1e4:
        s = f"{ns / 1e3:.1f} µs"
    elif abs(ns) >= 1e3:
        s = f"{ns / 1e3:.2f} µs"
    elif abs(ns) >= 100:
        s = f"{ns:.0f} ns"
    else:
        s = f"{ns:.1f} ns"
    return s.rjust(width) if width else s


def fmt_bytes(b: float) -> str:
    if b is None or not math.isfinite(b):
        return "n/a"
    return f"{b / 1024:.1f} KiB" if abs(b) >= 1024 else f"{b:.0f} B"


def fmt_cycles(c: float) -> str:
    """Core cycles, short: 16.2 cyc, 8448 cyc, 345678 cyc, -3.33 Mcyc."""
    if c is None or not math.isfinite(c):
        return "n/a"
    if abs(c) >= 1e6:
        return f"{c / 1e6:.3g} Mcyc"
    if abs(c) >= 100:
        return f"{c:.0f} cyc"
    return f"{c:.3g} cyc"


def fmt_cycles_pm(median: float, half: float) -> str:
    """A median in core cycles with half its interval, both to the
    median's decimals: 6941 ± 27 cyc, 16.2 ± 0.0 cyc."""
    if median is None or not math.isfinite(median):
        return "n/a"
    d = 0 if abs(median) >= 100 else 1 if abs(median) >= 10 else 2
    h = f"{half:.{d}f}" if half is not None and math.isfinite(half) else "n/a"
    return f"{median:.{d}f} ± {h} cyc"


def fmt_cycles_cell(r) -> str:
    """A result's median in core cycles with half its interval (a
    model.Result), "ns only" where cycles are the wrong unit for it
    (core/cycles.py says why), "-" where it has no probe."""
    from ctxbench.core import cycles
    c = r.cycles
    if not c.applies:
        return "-" if c.why == cycles.NO_PROBE else "ns only"
    s = c.summary
    return fmt_cycles_pm(s.median, (s.ci95[1] - s.ci95[0]) / 2)


def fmt_vs_fastest(ghz: float, fastest: float) -> str:
    """A run's core clock against the fastest its host has recorded: "2.1%
    below the fastest recorded", or "faster than any recorded" (the store
    may not hold this run yet)."""
    if ghz >= fastest:
        return "as fast as the fastest recorded" if ghz == fastest else \
            f"{ghz / fastest - 1:.1%} faster than any recorded"
    return f"{1 - ghz / fastest:.1%} below the fastest recorded"


def fmt_value(x: float, unit: str) -> str:
    """A result's number in its own unit: a time (ns), a size (bytes), or
    the number with its unit."""
    if unit in ("ns", ""):
        return fmt_time(x)
    if unit == "bytes":
        return fmt_bytes(x)
    if unit == "cycles":
        return fmt_cycles(x)
    return f"{x:.4g} {unit}" if x is not None and math.isfinite(x) else "n/a"


def fmt_effect(e: dict) -> str:
    """One phrase for a table: the estimate with its interval, or what the run
    could not resolve."""
    est, (lo, hi), m = e.get("estimate_ns"), e.get("ci95") or [math.nan, math.nan], e.get("mde_ns")
    if est is None or not math.isfinite(est):
        return "n/a"
    if e.get("below_mde"):
        return f"below {fmt_time(m)} (MDE; measured {fmt_time(est)})"
    out = f"{fmt_time(est)} [{fmt_time(lo)}, {fmt_time(hi)}]"
    if math.isfinite(lo) and (hi - lo) / 2 > 0.5 * abs(est):  # detected, not yet measured
        out += " (above its MDE, interval wider than +-50%: more rounds)"
    return out
