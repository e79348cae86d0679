"""The runtimes table: one row per runtime, mechanism and placement, and
the spawn and memory rows after it."""
from __future__ import annotations

import math

from ctxbench.core.model import Result
from ctxbench.runtimes.analysis import Handoff, is_handoff
from ctxbench.ui.format import fmt_bytes, fmt_time

PLACEMENT = {"pinned": "pinned, 1 CPU", "default": "default, 2 CPUs"}


def _ci(r: Result) -> str:
    s = r.summary
    lo, hi = s.ci95
    if not math.isfinite(s.median):
        return "n/a"
    return fmt_time(s.median) + (f" [{fmt_time(lo)}, {fmt_time(hi)}]" if math.isfinite(lo) else "")


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
                  key=lambda h: (h.runtime == "c", h.runtime, h.placement != "pinned", h.summary.median))


def handoff_rows(results: list[dict]) -> list[list[str]]:
    rows = []
    for h in _sorted(results):
        rows.append([h.runtime, h.mechanism, PLACEMENT.get(h.placement, h.placement),
                     _ci(h) + (f" {LAUNCHES_DIFFER}" if _spread(h) else ""), fmt_time(h.mde), _kernel(h), h.version])
    return rows


def launch_lines(results: list[dict]) -> list[str]:
    """The rows whose launches differ, each with its launches' medians."""
    rows = [(h, _spread(h)) for h in _sorted(results)]
    rows = [(h, w) for h, w in rows if w]
    if not rows:
        return []
    out = [f"{LAUNCHES_DIFFER} its launches differ beyond what their groups vary by (a one-way F test, p < 0.01; "
           "the interval is over groups, so it does not cover this): another run can land anywhere among them"]
    for h, w in rows:
        medians = (w.get("data") or {}).get("medians") or []
        out.append(f"  {h.runtime} {h.mechanism} ({h.placement}): "
                   + ", ".join(fmt_time(m) for m in medians) + f" (p = {(w.get('data') or {}).get('p', math.nan):.2g})")
    return out


HANDOFF_HEADER = ["runtime", "mechanism", "placement", "ns per hand-off [95% CI]", "MDE",
                  "kernel switches per hand-off", "version"]


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
    lines += ["", "hand-off: one way, total / 2N of N round trips, nothing subtracted; pinned rows ran on one CPU "
                  "with the runtime limited to one worker (same-CPU), default rows on two CPUs as the runtime "
                  "chooses (a cross-CPU wake-up where it hands to another CPU). Kernel switches: the process's "
                  "voluntary + involuntary switches per hand-off (user-level below 0.01). MDE: the smallest change "
                  "of the median another run could tell (2.8 standard errors)."]
    launches = launch_lines(results)
    return "\n".join(lines + ([""] + launches if launches else []))
