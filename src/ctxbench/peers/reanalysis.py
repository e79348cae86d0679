"""ctxbench reanalyse's step for a peers file (reanalyse/analysis.py):
after every row was analysed again from its samples, each peer row is
judged again from its per-round numbers by the command's own function
(analysis.judged: the comparison with ctxbench and the warnings it
makes), so the report of the new file prints this ctxbench's ratios and
verdicts. The per-round numbers themselves (the peer's, and ctxbench's
parts of the same round in `match_ns`, `predicted_ns`) are what the row
measured, and are kept."""
from __future__ import annotations

import msgspec

from ctxbench.core import results
from ctxbench.core.model import Result
from ctxbench.peers import analysis, table


def _changed(before: list[str], after: list[str]) -> str:
    """The cells of a row that differ as printed: 'ratio a -> b; verdict c -> d'."""
    return "; ".join(f"{h} {a} -> {b}" for h, a, b in zip(table.HEADER, before, after) if a != b)


def reanalysed(rec: results.Document, name: str) -> tuple[results.Document, list[str]]:
    """`rec` with each peer row's comparison made again, and one note
    saying which rows that changed as printed (none where none did)."""
    rows = list(rec.results)
    peers = [i for i, r in enumerate(rows) if table.is_peer(r)]
    if not peers:
        return rec, []
    missing = sum(1 for i in peers if table.kept(rows[i]) is None)
    new = list(rows)
    diffs = []
    for i in peers:
        new[i] = analysis.judged(rows[i])
        said = _changed(table.cells(rows[i]), table.cells(new[i]))
        if said:
            diffs.append(f"{Result(new[i]).id}: {said}")
    what = "each peer row's comparison with ctxbench judged again from its per-round numbers"
    if missing:
        what += f" ({missing} row(s) kept none)"
    notes = [f"{what}: " + (" | ".join(diffs) if diffs else "as printed before")] if diffs or missing else []
    return msgspec.structs.replace(rec, results=new), notes
