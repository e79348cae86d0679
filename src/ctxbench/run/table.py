"""The results table, hyperfine-like: one row per result with median ± CI,
min … max, CV, samples and verification; sections say what kind of number
each row is (switch cost, wake-up latency, overhead)."""
from __future__ import annotations

import math
import statistics
import sys
import textwrap

from ctxbench.core.model import Result
from ctxbench.run.host import lines as host_lines
from ctxbench.stats.numbers import finite_or_none
from ctxbench.ui.format import fmt_cycles_cell, fmt_time, fmt_vs_fastest

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


def render(results: list[dict], color: bool | None = None, drift: dict | None = None,
           earlier: dict | None = None, host: dict | None = None) -> str:
    """The table; `earlier`: what this host's earlier runs in the store say
    (Lifecycle.earlier), None where the run has no store; `host`: the
    host's state the run keeps (run/host.py), whose block then says the
    clock too."""
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
               f"{'core cycles ± CI':>20}  verified")
        lines.append(_color(hdr, "2", color))
        for d in rows:
            r = Result(d)
            s = r.summary
            med, ci = s.median, s.ci95
            half = (ci[1] - ci[0]) / 2
            ver, failed = r.verified
            if failed:
                ver = _color(ver, "31", color)
            medtxt = f"{fmt_time(med)} ± {fmt_time(half)}"
            if math.isfinite(med) and med < 0:
                medtxt = _color(medtxt, "33", color)
            lines.append(f"  {r.id:<{idw}}  {medtxt:>21}  "
                         f"{fmt_time(s.min) + ' … ' + fmt_time(s.max):>21}  "
                         f"{(f'{s.cv:.1%}' if math.isfinite(s.cv) else 'n/a'):>6}  "
                         f"{s.n:>4}  {fmt_cycles_cell(r):>20}  {ver}")
        if title.startswith("User-level"):
            from ctxbench.run.usergap import gap_lines  # user vs kernel, plain to see
            lines.extend(gap_lines(results))
    lines.append("")
    by_groups = any(Result(r).summary.ci95_resampled == "groups" for r in results)
    lines.append("median ± 95% CI: bootstrap interval of the median over the kept samples"
                 + (" (resampling whole groups)" if by_groups else "") + ".")
    notes = clock_lines(results) + drift_lines(drift)
    lines += [textwrap.fill(n, width=110, break_on_hyphens=False) for n in notes]
    lines += earlier_lines(results, earlier, idw, speed=not host)
    lines += host_lines(host)
    return "\n".join(lines)


def clock_lines(results: list[dict]) -> list[str]:
    """What a core cycle is here, and the clock this run got."""
    views = [Result(r) for r in results if Result(r).cycles.applies]
    if not views:
        return []
    ghz = [v.cycles.ghz for v in views if math.isfinite(v.cycles.ghz)]
    lo = min(v.cycles.clock.get("ghz_min") or math.inf for v in views)
    hi = max(v.cycles.clock.get("ghz_max") or -math.inf for v in views)
    chk = views[0].cycles.clock.get("check") or {}
    method = "counted cycles (PMU)" if all(v.cycles.method == "pmu" for v in views) else \
        "a chain of dependent adds, one cycle each"
    check = (f", checked against a chain of {chk['expected']}-cycle multiplies: {chk['ratio']:.2f}x per op"
             if chk.get("ratio") and chk.get("expected") else "")
    return [f"core cycles: each sample's ns x its group's core clock, timed on the measured CPU before and after "
            f"every group ({method}{check}). This run's clock: {statistics.median(ghz):.3f} GHz "
            f"({lo:.3f}-{hi:.3f} over its groups). ns only: cross-CPU wake-ups (other CPUs' and the "
            "hypervisor's time). See docs/cycles.md."]


def drift_lines(drift: dict | None) -> list[str]:
    if drift is None:
        return []
    rel, rel_c = drift.get("relative_sd"), (drift.get("cycles") or {}).get("relative_sd")
    if rel is None:
        return ["Too few interleaved rounds to estimate the machine's drift within the run."]
    return [f"Drift within the run, common to all ids, over its {drift.get('rounds')} interleaved rounds: sd "
            f"{rel:.2%} in ns" + (f", {rel_c:.2%} in cycles" if rel_c is not None else "")
            + "; added to each interval."]


def earlier_record(earlier: dict) -> dict:
    """Lifecycle.earlier's answer as the results file keeps it (run.between_runs)."""
    speed = earlier.get("speed")
    out = {"store": earlier.get("store"), "why": earlier.get("why"),
           "host_fastest_ghz": speed.fastest_ghz if speed else None, "host_runs_with_clock": speed.runs if speed else 0}
    fin = finite_or_none  # a spread's nan is the file's null
    out["spreads"] = {k: {"runs": s.runs, "ns_rel_sd": fin(s.ns), "cycles_rel_sd": fin(s.cycles),
                          "ns_between_rel_sd": fin(s.tau_ns), "cycles_between_rel_sd": fin(s.tau_cycles)}
                      for k, s in (earlier.get("spreads") or {}).items()}
    out["intervals_widened"] = earlier.get("widened", 0)
    return out


def earlier_lines(results: list[dict], earlier: dict | None, idw: int, speed: bool = True) -> list[str]:
    """How far another run of this host has landed (the store's earlier
    runs), or that the intervals cover this run only; with `speed`, the
    run's clock against the host's fastest (else the host block says it)."""
    earlier = earlier or {}
    out = [""]
    ghz = [Result(r).cycles.ghz for r in results if math.isfinite(Result(r).cycles.ghz)]
    speed = earlier.get("speed") if speed else None
    if speed and ghz:
        now = statistics.median(ghz)
        out.append(f"Host speed: this run {now:.3f} GHz, {fmt_vs_fastest(now, speed.fastest_ghz)} for this host "
                   f"({speed.fastest_ghz:.3f} GHz over {speed.runs} earlier run(s) in the store).")
    if not earlier.get("spreads"):
        why = earlier.get("why") or "no earlier run of this host, kernel and command in the results store"
        return out + [textwrap.fill(f"Intervals cover this run only ({why}): on a shared host the clock the host "
                                    "gives a run moves every CPU-bound id together between runs (10-15% seen on "
                                    "cloud guests), which one run cannot see; the cycles column takes that clock "
                                    "out.", width=110, break_on_hyphens=False)]
    sp = earlier["spreads"]
    n = max(s.runs for s in sp.values())
    out += textwrap.wrap(f"Between runs here: the sd of the medians of this host's last {n} run(s) of this command "
                         f"and kernel in the store ({earlier.get('store')}): how far another run lands, its own "
                         f"error and the host's state together. This run's intervals now hold it, with Student's t "
                         f"over the earlier runs (wide while they are few); 'beyond': its part beyond the runs' "
                         "own intervals.", width=110, break_on_hyphens=False)
    out.append(f"  {'id':<{idw}}  {'sd ns':>7}  {'cycles':>7}  {'beyond':>7}  {'cycles':>7}  runs")
    for r in map(Result, results):
        s = sp.get(r.point_key)
        if s is None or s.runs < 2:
            continue
        cells = (f"{x:.1%}" if math.isfinite(x) else "-" for x in (s.ns, s.cycles, s.tau_ns, s.tau_cycles))
        out.append(f"  {r.id:<{idw}}  " + "  ".join(f"{c:>7}" for c in cells) + f"  {s.runs:>4}")
    return out
