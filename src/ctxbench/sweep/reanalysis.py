"""ctxbench reanalyse's step for a sweep file (reanalyse/analysis.py calls
`reanalysed` after every point was analysed again from its samples): each
point's indirect cost (paired by round with its stride-0 reference, the
stride-0 check over each mechanism's family) and its negative-indirect
warning derived again by the function the command ends with
(analysis.with_indirect), so the report of the new file draws them, and
its tallies of them (analysis.checks_row), as this ctxbench makes them.
The section is the command's plan and the machine's (grid, budget,
settings, rounds, wall time) and is kept as the file holds it, but for the
method texts of the indirect cost and of its stride-0 check, which are
this ctxbench's."""
from __future__ import annotations

from ctxbench.core import results
from ctxbench.core.model import Result
from ctxbench.sweep import analysis
from ctxbench.sweep.plan import key

METHODS = {"indirect_method": analysis.PAIRED, "stride0_check": analysis.PLACEBO}


def _points(rs: list) -> dict[str, str]:
    """Each point's indirect cost as printed, by its key."""
    return {Result(r).point_key: analysis.indirect_phrase(r) for r in rs if key(r)}


def _checks(rs: list) -> dict[str, str]:
    """Each mechanism's tallies as the report's table has them."""
    return {f"{bid} {h}": cell for bid in sorted({key(r)[0] for r in rs if key(r)})
            for h, cell in zip(analysis.CHECKS_HEADER, analysis.checks_row(rs, bid))}


def _said(old: list, new: list, sec) -> list[str]:
    """What deriving the indirect costs again changed as printed (each
    point's, each mechanism's tallies, the method texts), in one note;
    none where nothing did (reanalyse then says nothing changed)."""
    diff = []
    for what, was, now in (("indirect", _points(old), _points(new)), ("", _checks(old), _checks(new))):
        diff += [f"{k}: {what + ' ' if what else ''}{was.get(k, '-')} -> {now.get(k, '-')}"
                 for k in dict.fromkeys([*was, *now]) if was.get(k) != now.get(k)]
    diff += [f"sweep.{k} is this ctxbench's now" for k, v in METHODS.items()
             if sec is not None and results.member(sec, k) != v]
    if not diff:
        return []
    return ["the sweep's indirect costs derived again from the re-analysed points: " + "; ".join(diff)]


def reanalysed(doc: results.Document, name: str) -> tuple[results.Document, list[str]]:
    """`doc` (its points analysed again) with every point's indirect cost
    derived again, and a note saying what that changed as printed (none
    where nothing did); a note instead where the file keeps points
    without their rounds (nothing to pair). `doc` is not changed."""
    old = list(doc.results)
    points = [r for r in old if key(r)]
    if not points:
        return doc, []
    if any(Result(r).groups is None for r in points):
        return doc, ["the sweep's indirect costs were not derived again: the file keeps points without their "
                     "rounds (nothing to pair): left as the file holds them"]
    new = analysis.with_indirect(old)
    sec = results.member(doc, "sweep")
    notes = _said(old, new, sec)
    if sec is None:
        return results.replace(doc, results=new), notes
    return results.replace(doc, results=new, sweep=results.replace(sec, **METHODS)), notes
