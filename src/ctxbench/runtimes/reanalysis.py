"""`ctxbench reanalyse` of a runtimes file: after each result is analysed
again from its samples (model.analyse, which knows nothing of launches),
each of the command's rows (analysis.is_row) gets again what `runtimes`
derived from it when it measured (analysis.with_runtime_members: its
intervals over launches, kernel switches, contention, resolution, launch
spread), so an unchanged row reads as the command printed it. The
engine's own ids were model.analyse's alone and stay so."""
from __future__ import annotations

import msgspec

from ctxbench.core import results
from ctxbench.runtimes import analysis


def reanalysed(doc: results.Document, name: str) -> tuple[results.Document, list[str]]:
    """`doc` (re-analysed from its samples) with its runtimes rows' own
    members made again (their intervals over launches, ...); no notes:
    the rows are results, and reanalyse says what changed of each.
    `doc` is not changed."""
    rows = [analysis.with_runtime_members(r) if analysis.is_row(r) else r for r in doc.results]
    return msgspec.structs.replace(doc, results=rows), []
