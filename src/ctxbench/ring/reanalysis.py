"""ctxbench reanalyse's step for a ring file (reanalyse/analysis.py calls
`reanalysed` after every result was analysed again from its samples and
the run's drift derived again, core/reader.analysed_once): each ring
point's cost above the ping-pong and the section's N = 2 checks derived
again from them by the function the command measures with
(analysis.derived), so the report of the new file draws them as this
ctxbench makes them. What the command kept of its plan and of the machine
(parties, footprints, kinds, mechanisms, engine arguments, how the groups
began: `settle`) is kept as the file holds it."""
from __future__ import annotations

from ctxbench.core import results
from ctxbench.core.model import Result
from ctxbench.core.writer import jsonable
from ctxbench.ring import analysis


def _above(r) -> str:
    """A point's cost above the ping-pong as printed, with its unit; '-' without one."""
    above = Result(r).above_pingpong
    if not above:
        return "-"
    phrase, unit = analysis.above_phrase(above)
    return f"{phrase} ({unit})"


def _printed(rs: list, checks: list) -> dict[str, str]:
    """What the command prints of its effects: each ring point's cost
    above the ping-pong, by the point's key, and each N = 2 check's cells,
    by kind, mechanism and column."""
    out = {f"{Result(r).point_key} above the ping-pong": _above(r) for r in analysis.rings(rs)}
    for c in checks:
        out.update({f"N = 2 check {c.get('kind')} {c.get('mechanism')} {h}": x
                    for h, x in zip(analysis.N2_HEADER, analysis.n2_cells(c))})
    return out


def _said(was: dict[str, str], now: dict[str, str]) -> list[str]:
    """What deriving them again changed as printed, in one note; none
    where nothing did (reanalyse then says nothing changed)."""
    diff = [f"{k} {was.get(k, '-')} -> {now.get(k, '-')}" for k in dict.fromkeys([*was, *now])
            if was.get(k) != now.get(k)]
    return ["the ring's cost above the ping-pong and its N = 2 check derived again from the re-analysed results: "
            + "; ".join(diff)] if diff else []


def _unpaired(rs: list) -> list[str]:
    """A note for ring points the file keeps an effect of but no ping-pong
    of their kind x mechanism to derive it from (left as it holds it)."""
    refs = {str(Result(r).id) for r in rs if Result(r).id.startswith("kernel/")}
    left = [Result(r).point_key for r in analysis.rings(rs) if Result(r).above_pingpong is not None
            and analysis.pingpong_id(Result(r).params.kind, Result(r).params.mechanism) not in refs]
    return [f"the ring's cost above the ping-pong of {', '.join(left)} was not derived again: the file holds "
            f"no ping-pong of its kind x mechanism (left as the file holds it)"] if left else []


def reanalysed(doc: results.Document, name: str) -> tuple[results.Document, list[str]]:
    """`doc` (its results analysed again) with each ring point's cost
    above the ping-pong and its section's N = 2 checks derived again, and
    a note saying what that changed as printed (none where nothing did).
    `doc` is not changed."""
    sec = results.member(doc, "ring")
    old = list(doc.results)
    res, n2 = analysis.derived(old)
    kept = [results.plain(c) for c in results.member(sec, "n2_check") or []] if sec is not None else []
    notes = _said(_printed(old, kept), _printed(res, n2)) + _unpaired(old)
    if sec is None:  # results without the command's section: its effects alone
        return results.replace(doc, results=res), notes
    return results.replace(doc, results=res, ring=results.replace(sec, n2_check=jsonable(n2))), notes
