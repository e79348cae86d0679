"""What a re-analysis changed, per result: its median, its 95% interval
and its verdict (the verification's, as the tables print it), before and
after, where they differ."""
from __future__ import annotations

import math

from ctxbench.core.model import Result
from ctxbench.ui.format import fmt_value


def _label(v: Result) -> str:
    """The id, with the point's parameters where one id is measured at
    several points (a ring's parties, a sweep's sizes)."""
    return v.point_key or v.id


def _said(v: Result) -> dict[str, str]:
    """A result's median, interval and verdict, as printed."""
    s, unit = v.summary, v.unit or "ns"
    lo, hi = s.ci95 if s else (math.nan, math.nan)
    return {"median": fmt_value(s.median, unit) if s else "n/a",
            "interval": f"[{fmt_value(lo, unit)}, {fmt_value(hi, unit)}]" if s else "n/a",
            "verdict": v.verified[0]}


def changed(old: list, new: list) -> list[str]:
    """One line per result whose median, interval or verdict differs
    between `old` and `new` (the same results, in the same order), saying
    each one that does: old -> new."""
    lines = []
    for a, b in zip(old, new):
        was, now = _said(Result(a)), _said(Result(b))
        diff = [f"{k} {was[k]} -> {now[k]}" for k in was if was[k] != now[k]]
        if diff:
            lines.append(f"{_label(Result(b))}: " + "; ".join(diff))
    return lines
