"""What a re-analysis changed, per result: what the tables and the report
print of it (median, 95% interval, n, range, CV, the same in core cycles,
the verification's verdict, the warnings' codes), before and after, where
they differ as printed."""
from __future__ import annotations

import math

from ctxbench.core.model import Result
from ctxbench.ui.format import fmt_value


def _label(v: Result) -> str:
    """The id, with the point's parameters where one id is measured at
    several points (a ring's parties, a sweep's sizes)."""
    return v.point_key or v.id


def _summary(s, unit: str, prefix: str = "") -> dict[str, str]:
    lo, hi = s.ci95 if s else (math.nan, math.nan)
    return {f"{prefix}median": fmt_value(s.median, unit) if s else "n/a",
            f"{prefix}interval": f"[{fmt_value(lo, unit)}, {fmt_value(hi, unit)}]" if s else "n/a",
            f"{prefix}n": str(s.n) if s else "n/a",
            f"{prefix}range": f"{fmt_value(s.min, unit)} .. {fmt_value(s.max, unit)}" if s else "n/a",
            f"{prefix}CV": f"{s.cv:.1%}" if s and math.isfinite(s.cv) else "n/a"}


def _said(v: Result) -> dict[str, str]:
    """What is printed of a result: its summary, in ns and in cycles, its
    verdict and its warnings' codes."""
    c = v.cycles
    cyc = _summary(c.summary, "cycles", "cycles ") if c.applies else {"cycles": c.why or "not in cycles"}
    return {**_summary(v.summary, v.unit or "ns"), **cyc, "verdict": v.verified[0],
            "warnings": ", ".join(sorted({w.code for w in v.warnings})) or "none"}


def changed(old: list, new: list) -> list[str]:
    """One line per result where anything _said prints differs
    between `old` and `new` (the same results, in the same order), saying
    each one that does: old -> new."""
    lines = []
    for a, b in zip(old, new):
        was, now = _said(Result(a)), _said(Result(b))
        diff = [f"{k} {was[k]} -> {now[k]}" for k in was if was[k] != now[k]]
        if diff:
            lines.append(f"{_label(Result(b))}: " + "; ".join(diff))
    return lines
