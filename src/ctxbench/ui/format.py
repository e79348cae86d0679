"""Numbers for people: a time in the unit that keeps it short."""
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
