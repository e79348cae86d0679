"""Warnings: a result's typed warnings, and the codes they may have.

A script selects warnings by `code` and reads their numbers from `data`,
never by parsing `text`; `severity` says whether the number it is attached
to is not what it claims ("warning") or stands and the warning says how it
was made ("info"). docs/results-file.md, "Warnings"."""
from __future__ import annotations

from types import MappingProxyType
from typing import Literal

from ctxbench.core.results.base import Closed, Json

# code: what it means (docs/results-file.md, "Warnings").
CODES = MappingProxyType({
    "engine": "written by the engine (a refused setting, a fallback it took)",
    "dropped": "samples disturbed by other load (extra switches, migrations, CPU time), left out",
    "verification": "the result is not verified: the method's switches did not happen, or most samples met other load",
    "outliers": "samples far from the median, kept",
    "negative": "a derived cost below zero, printed as measured",
    "disturbed_runs": "task-pair runs with extra switches (left out, or all kept when too few are clean)",
    "negative_indirect": "a negative indirect cost, printed as measured",
    "ci_includes_zero": "the interval of I includes zero",
    "overruns": "timer expirations merged into a pending signal",
    "self_check": "a result the method rules out (an interrupt making a task faster): which part is biased",
    "below_mde": "an effect smaller than the run's minimum detectable effect: not resolved",
    "untrusted": "a derived cost from a run whose known-zero control failed: not a result (the reason says why)",
    "vt_pinned": "a Java virtual thread pinned its carrier (JFR, in an untimed check of the same loop): not a "
                 "virtual-thread hand-off",
    "clock_probe": "the core-clock probe's check chain disagrees with its latency: the cycles may be a multiple "
                   "of core cycles (the add chain is not one cycle per add on this core)",
    "launch_spread": "the launches of one row (a runtime's processes, the engine's runs) differ beyond their "
                     "groups' spread: the interval does not cover another run",
    "peer_switches": "a peer's processes made other switches per operation than its contents imply (ctxbench "
                     "peers): it did not do what its docs say here",
    "peer_one_cpu": "an unpinned peer's tasks ran on one CPU in some rounds (ctxbench peers): those rounds are a "
                    "same-CPU switch, not the cross-CPU wake-up the row is labelled",
})
# How much each code matters to a reader: "warning" when the number it is
# attached to is not what it claims (not verified, negative, biased, not a
# result), "info" when the number stands and the warning says how it was
# made (samples left out, outliers kept, an effect below what the run
# resolves). The engine's own warnings are refused settings and fallbacks:
# the measurement differs from what was asked.
SEVERITY = MappingProxyType({
    "engine": "warning", "dropped": "info", "verification": "warning", "outliers": "info",
    "negative": "warning", "disturbed_runs": "info", "negative_indirect": "warning",
    "ci_includes_zero": "info", "overruns": "info", "self_check": "warning", "below_mde": "info",
    "untrusted": "warning", "vt_pinned": "warning", "launch_spread": "warning", "clock_probe": "warning",
    "peer_switches": "warning", "peer_one_cpu": "warning",
})


# A code is one of CODES, in the reader and the published schema alike (an
# enum there). Not "any string, shown escaped": what a warning means and how
# much it matters (SEVERITY) are this version's tables, and a warning this
# version cannot explain would be printed as if it could; a newer file's
# code is refused like any member this version does not know (closed
# records), one line naming it.
Code = Literal[tuple(CODES)]


class Warning(Closed, frozen=True):
    code: Code
    severity: Literal["warning", "info"]
    text: str
    data: dict[str, Json]
