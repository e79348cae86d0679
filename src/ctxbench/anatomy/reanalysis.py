"""ctxbench reanalyse's step for an anatomy file (reanalyse/analysis.py):
after its rungs were analysed again and the run's drift derived again,
the section's parts, sum check, cross-CPU wake-up, what was not
available and the attribution are derived again from them by the
command's own arithmetic (analysis.measured_rungs, analysis.anatomy), so
the report of the new file draws them as this ctxbench makes them. What
the command kept of the machine (pcid, the rungs it ran, the probe's
refusals) is kept."""
from __future__ import annotations

import msgspec
from msgspec import UNSET

from ctxbench.anatomy import analysis
from ctxbench.core import results

# the members analysis.anatomy makes; those the section's record cannot hold as null are left out when None
DERIVED = ("mechanism", "parts", "sum_check", "cross_cpu", "not_available", "drift_rel_sd", "attribution")
NOT_NULL = ("sum_check", "attribution")


def _printed(a: dict) -> dict[str, str]:
    """What the report prints of an anatomy: each row's estimate by its name."""
    return {row[0]: row[1] for row in analysis.table_rows(a)}


def _said(before: dict | None, after: dict) -> list[str]:
    """What deriving the section again changed as printed: one line, none
    where nothing did (reanalyse then says nothing changed)."""
    what = "the anatomy's parts, sum check and cross-CPU wake-up"
    if before is None:
        return [f"{what} derived from the re-analysed rungs (the file kept none)"]
    was, now = _printed(before), _printed(after)
    diff = [f"{k} {was.get(k, '-')} -> {now.get(k, '-')}" for k in dict.fromkeys([*was, *now])
            if was.get(k) != now.get(k)]
    return [f"{what} derived again from the re-analysed rungs: " + "; ".join(diff)] if diff else []


def _mechanism(rec: results.Document, kept: dict) -> str | None:
    """The ladder's mechanism: the section's, else the one whose rungs the
    file holds (a section from before it was kept)."""
    m = kept.get("mechanism")
    return m if isinstance(m, str) else next(iter(analysis.rungs_of(list(rec.results))), None)


def reanalysed(rec: results.Document, name: str) -> tuple[results.Document, list[str]]:
    """`rec` with its anatomy section derived again from its (re-analysed)
    rungs, and a note saying what that changed as printed (none where
    nothing did)."""
    section = results.member(rec, "anatomy")
    kept = results.plain(section) if section is not None else None
    if not isinstance(kept, dict):
        return rec, []
    m = _mechanism(rec, kept)
    by_rung = analysis.measured_rungs(list(rec.results), m) if m else {}
    if not by_rung:
        return rec, ["the anatomy's parts were not derived again: the file holds none of a ladder's rungs"]
    # the probe's refusals (rungs never measured) are the machine's; the rest analysis.anatomy judges again
    refused = [s for s in kept.get("not_available") or [] if isinstance(s, dict) and s.get("rung") not in by_rung]
    derived = analysis.anatomy(by_rung, refused, m)
    members = {k: derived.get(k) for k in DERIVED}
    unset = {k: UNSET for k in NOT_NULL if members[k] is None}
    section = results.replace(msgspec.structs.replace(section, **unset),
                              **{k: v for k, v in members.items() if k not in unset})
    return msgspec.structs.replace(rec, anatomy=section), _said(analysis.kept(kept), derived)
