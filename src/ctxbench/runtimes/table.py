"""The runtimes table: one row per runtime, mechanism and placement, and
the spawn and memory rows after it."""
from __future__ import annotations

import math
import textwrap

from ctxbench.core.model import Result
from ctxbench.runtimes.analysis import Handoff, estimate, is_handoff
from ctxbench.ui.format import fmt_bytes, fmt_cycles, fmt_time

PLACEMENT = {"pinned": "pinned, 1 CPU", "default": "default, 2 CPUs"}


def _ci(r: Result) -> str:
    """A spawn row's median [interval over groups], a hand-off row's
    estimate [interval] (analysis.estimate: over launches where it has
    them)."""
    s = r.summary
    lo, hi = s.ci95
    x = estimate(s) if r.quantity == "handoff" else s.median
    if not math.isfinite(x):
        return "n/a"
    return fmt_time(x) + (f" [{fmt_time(lo)}, {fmt_time(hi)}]" if math.isfinite(lo) else "")


def _cycles(h: Handoff) -> str:
    """The row's estimate in core cycles with its interval, or "ns only"
    (cycles_lines says why)."""
    if not h.cycles.applies:
        return "ns only"
    lo, hi = h.cycles.summary.ci95
    x = h.estimate_cycles
    if not math.isfinite(x):
        return "n/a"
    num = lambda v: fmt_cycles(v).removesuffix(" cyc")  # noqa: E731
    return fmt_cycles(x) + (f" [{num(lo)}, {num(hi)}]" if math.isfinite(lo) else "")


def _mde(h: "Handoff") -> str:
    c = h.resolution.get("mde_cycles")
    return fmt_time(h.mde) + (f" / {fmt_cycles(c)}" if isinstance(c, (int, float)) and math.isfinite(c) else "")


def _kernel(h: Handoff) -> str:
    k = h.kernel
    if not k:
        return "not counted"
    return f"{k['per_handoff']:.2f} ({k['switch']})"


LAUNCHES_DIFFER = "‡"


def _spread(h: Handoff) -> dict | None:
    return next((w for w in h.warnings_stored() if w.get("code") == "launch_spread"), None)


def _sorted(results: list[dict]) -> list[Handoff]:
    return sorted((Handoff(r) for r in results if is_handoff(r)),
                  key=lambda h: (h.runtime == "c", h.runtime, h.placement != "pinned", h.estimate))


def handoff_rows(results: list[dict]) -> list[list[str]]:
    rows = []
    for h in _sorted(results):
        rows.append([h.runtime, h.mechanism, PLACEMENT.get(h.placement, h.placement),
                     _ci(h) + (f" {LAUNCHES_DIFFER}" if _spread(h) else ""), _cycles(h), _mde(h), _kernel(h),
                     h.version])
    return rows


def launch_lines(results: list[dict]) -> list[str]:
    """The rows whose launches differ, each with its launches' medians."""
    rows = [(h, _spread(h)) for h in _sorted(results)]
    rows = [(h, w) for h, w in rows if w]
    if not rows:
        return []
    out = [f"{LAUNCHES_DIFFER} its launches differ beyond what their groups vary by (a one-way F test, p < 0.01): "
           "what a launch decides moves this row; its interval, over launches, is that wide for it. The "
           "launches' medians:"]
    for h, w in rows:
        medians = (w.get("data") or {}).get("medians") or []
        out.append(f"  {h.runtime} {h.mechanism} ({h.placement}): "
                   + ", ".join(fmt_time(m) for m in medians) + f" (p = {(w.get('data') or {}).get('p', math.nan):.2g})")
    return out


HANDOFF_HEADER = ["runtime", "mechanism", "placement", "ns per hand-off [95% CI]", "core cycles [95% CI]",
                  "MDE ns / cycles", "kernel switches per hand-off", "version"]


def interval_line(results: list[dict]) -> str:
    """What the rows' intervals cover: their launches (and how many), or,
    for rows measured in one launch, that launch's groups only."""
    rows = _sorted(results)
    over = sorted({int(h.summary.launch_interval.get("launches") or 0) for h in rows} - {0})
    single = sum(1 for h in rows if not h.summary.launch_interval)
    parts = []
    if over:
        parts.append(f"A row measured in {'/'.join(map(str, over))} launches: the mean of its launches' medians "
                     "and its 95% CI, Student's t over them (launches - 1 degrees of freedom; Kalibera and Jones "
                     "2013), which covers what differs between launches of a harness (a JIT's choices, where the "
                     "runtime put its threads, the layout, the host's speed that minute) as well as between groups")
    if single:
        parts.append(f"{'the ' + str(single) + ' row(s) ' if over else 'rows '}measured in one launch: the median "
                     "and its 95% CI over groups (a bootstrap), which covers this launch only, not what another "
                     "launch or run would give")
    return "; ".join(parts) + "." if parts else ""


def contention_line(results: list[dict]) -> str:
    """How many launches were launched again because other tasks took
    their CPUs, and the rows that kept a disturbed one anyway."""
    rows = _sorted(results)
    recs = [(h, h.contention) for h in rows if h.contention is not None]
    if not recs:
        return ""
    quiet = recs[0][1].get("quiet", 0)
    tried = {(h.runtime, h.placement, i): t for h, c in recs for i, t in enumerate(c.get("launches_tried") or [])
             if isinstance(t, int)}  # one per harness launch, whatever its mechanisms
    again = sum(t - 1 for t in tried.values())
    kept = [f"{h.runtime} {h.mechanism} launch {', '.join(map(str, c['disturbed']))}"
            for h, c in recs if c.get("disturbed") and h.placement == "pinned"]
    default = [c for h, c in recs if h.placement != "pinned"]
    most = max((x for c in default for x in c.get("others_share") or [] if isinstance(x, (int, float))), default=None)
    machine, most_again = recs[0][1].get("machine_quiet", 0), recs[0][1].get("relaunches", "twice")
    times = f"{most_again} times" if isinstance(most_again, int) else most_again
    return (f"Other tasks: a pinned launch of a harness in which they took more than {quiet:.0%} of its CPU, or more "
            f"than {machine:.0%} of the machine's other CPUs, was launched again (at most {times}, the least "
            f"disturbed kept): {again} relaunch(es) in this run"
            + (f"; still disturbed: {'; '.join(kept)}." if kept else "; none kept disturbed.")
            + (f" Default launches share the other CPU with the rest of the machine and are only counted (others "
               f"took up to {most:.0%} of their two CPUs here)." if most is not None else ""))


def cycles_lines(results: list[dict]) -> list[str]:
    """What a core cycle is in this table, the clock the run got, and why
    the rows without cycles keep ns only."""
    rows = _sorted(results)
    views = [h for h in rows if h.cycles.applies]
    out = []
    if views:
        ghz = sorted(g for h in views for g in (h.cycles.clock.get("ghz_min"), h.cycles.clock.get("ghz_max"))
                     if isinstance(g, (int, float)) and math.isfinite(g))
        method = "counted cycles (PMU)" if all(h.cycles.method == "pmu" for h in views) else \
            "a chain of dependent adds, one cycle each"
        out.append("core cycles: each sample's ns x its launch's core clock on the measured CPU (" + method
                   + "; the engine's rows: per group, before and after it; a harness: before and after its launch"
                   + (f"; {ghz[0]:.3f}-{ghz[-1]:.3f} GHz over this run" if ghz else "") + ").")
    why: dict[str, int] = {}
    for h in rows:
        if not h.cycles.applies:
            why[h.cycles.why] = why.get(h.cycles.why, 0) + 1
    out += [f"ns only ({n} row{'s' if n > 1 else ''}): {w}" for w, n in why.items()]
    return out


def other_rows(results: list[dict]) -> list[list[str]]:
    rows = []
    for r in map(Result, results):
        if r.quantity not in ("spawn", "memory"):
            continue
        what = "spawn + join" if r.quantity == "spawn" else f"memory per parked one ({r.params.get('parked')} parked)"
        value = _ci(r) if r.quantity == "spawn" else fmt_bytes(r.summary.median)
        rows.append([str(r.params.get("runtime")), str(r.params.get("mechanism")),
                     PLACEMENT.get(str(r.params.get("placement")), "?"), what, value])
    return rows


def _text(header: list[str], rows: list[list[str]]) -> list[str]:
    w = [max(len(x) for x in col) for col in zip(header, *rows)]
    fmt = lambda row: "  " + "  ".join(c.ljust(n) for c, n in zip(row, w)).rstrip()  # noqa: E731
    return [fmt(header)] + [fmt(r) for r in rows]


def render(results: list[dict]) -> str:
    lines = _text(HANDOFF_HEADER, handoff_rows(results))
    other = other_rows(results)
    if other:
        lines += [""] + _text(["runtime", "thread", "placement", "measure", "median [95% CI]"], other)
    notes = ["hand-off: one way, total / 2N of N round trips, nothing subtracted; pinned rows ran on one CPU "
             "with the runtime limited to one worker (same-CPU), default rows on two CPUs as the runtime "
             "chooses (a cross-CPU wake-up where it hands to another CPU). Kernel switches: the process's "
             "voluntary + involuntary switches per hand-off (user-level below 0.01). MDE: the smallest change "
             "of the median another run could tell (2.8 standard errors; with launches, the t test's on "
             "their degrees of freedom).", interval_line(results), *cycles_lines(results), contention_line(results)]
    lines += [""] + [textwrap.fill(x, width=110, break_on_hyphens=False) for x in notes if x]
    launches = launch_lines(results)
    return "\n".join(lines + ([""] + launches if launches else []))
