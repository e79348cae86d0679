"""The results table, hyperfine-like: one row per result with median ± CI,
min … max, CV, samples and verification; sections say what kind of number
each row is (switch cost, wake-up latency, overhead)."""
from __future__ import annotations

import math
import sys

from ctxbench.core.model import Result
from ctxbench.ui.format import fmt_time

SECTIONS = [
    ("timer/", None, "Timer overhead (one read)"),
    ("reference/", None, "Machine speed reference (fixed CPU work per 1000 steps; see docs/run.md, 'How repeatable is a run?')"),
    ("baseline/", None, "Baselines (per event, timer overhead subtracted)"),
    ("kernel/", "switch", "Kernel-level switch: direct cost per switch, both parties on one CPU"),
    ("kernel/", "wakeup", "Cross-CPU wake-up latency per hand-off (not a switch cost)"),
    ("user/", None, "User-level switch: direct cost per switch, one kernel thread"),
]


def _section(r: dict) -> str:
    res = Result(r)
    for prefix, qty, title in SECTIONS:
        if res.id.startswith(prefix) and (qty is None or res.quantity == qty):
            return title
    return "Other"


def _color(s: str, code: str, on: bool) -> str:
    return f"\033[{code}m{s}\033[0m" if on else s


def render(results: list[dict], cycle_hz: float | None = None, color: bool | None = None,
           drift: dict | None = None) -> str:
    if color is None:
        color = sys.stdout.isatty()
    lines = []
    order = [t for _, _, t in SECTIONS] + ["Other"]
    by = {}
    for r in results:
        by.setdefault(_section(r), []).append(r)
    idw = max([len(Result(r).id) for r in results] + [10])
    for title in order:
        rows = by.get(title)
        if not rows:
            continue
        lines.append("")
        lines.append(_color(title, "1", color))
        hdr = (f"  {'id':<{idw}}  {'median ± 95% CI':>21}  {'min … max':>21}  {'CV':>6}  {'n':>4}  "
               f"{'cycles':>7}  verified")
        lines.append(_color(hdr, "2", color))
        for d in rows:
            r = Result(d)
            s = r.summary
            med, ci = s.median, s.ci95
            half = (ci[1] - ci[0]) / 2
            ver, failed = r.verified
            if failed:
                ver = _color(ver, "31", color)
            cyc = ""
            hz = r.timing.get("cycle_hz") or cycle_hz
            if hz and math.isfinite(med) and r.quantity in ("switch", "wakeup", "cost"):
                cyc = f"{med * hz / 1e9:.0f}"
            medtxt = f"{fmt_time(med)} ± {fmt_time(half)}"
            if math.isfinite(med) and med < 0:
                medtxt = _color(medtxt, "33", color)
            lines.append(f"  {r.id:<{idw}}  {medtxt:>21}  "
                         f"{fmt_time(s.min) + ' … ' + fmt_time(s.max):>21}  "
                         f"{(f'{s.cv:.1%}' if math.isfinite(s.cv) else 'n/a'):>6}  "
                         f"{s.n:>4}  {cyc:>7}  {ver}")
        if title.startswith("User-level"):
            from ctxbench.run.usergap import gap_lines  # user vs kernel, plain to see
            lines.extend(gap_lines(results))
    lines.append("")
    by_groups = any(Result(r).summary.d.get("ci95_resampled") == "groups" for r in results)
    lines.append("median ± 95% CI: bootstrap interval of the median over the kept samples"
                 + (" (resampling whole groups)" if by_groups else "") + "; cycles: median in TSC/counter ticks.")
    rel = (drift or {}).get("relative_sd")
    if rel is not None:
        lines.append(f"The interval also holds the machine's drift seen over this run's {drift.get('rounds')} "
                     f"interleaved rounds (sd {rel:.2%}, common to all ids): it covers a run at another time.")
    elif drift is not None:
        lines.append("Too few interleaved rounds to estimate the machine's drift: the interval covers this run "
                     "only, not a run at another time.")
    return "\n".join(lines)
