"""ctxbench reanalyse of an irq file (reanalyse/analysis.py calls
`reanalysed` after the file's measured results are analysed again): the
points and the section's analysed members (irq/analysis.ANALYSED) derived
again with the function the command measures with (irq/analysis.derive_all),
from what the file keeps: each point's runs (their raw rows, rounds and
chunk records), and the gap loop's runs (irq/direct)."""
from __future__ import annotations

from ctxbench.core import chunks, model, results
from ctxbench.core.model import Result
from ctxbench.core.writer import jsonable
from ctxbench.irq import analysis


def _chunk_runs(points: list) -> tuple[dict[str, list], dict]:
    """The chunk records the points keep, by task, and their constants."""
    by_task: dict[str, list] = {}
    about: dict = {}
    for p in points:
        if Result(p).chunks:
            by_task.setdefault(str(Result(p).params.task), []).extend(chunks.runs(p, kept_only=False))
            about = about or chunks.describe(p)
    return by_task, about


def _clock_method(points: list) -> str:
    """How the command read the core clock, as its points say (the runs'
    probes are not kept with them)."""
    kept = {results.member(results.member(p, "cycles"), "method") for p in points}
    return "pmu" if kept == {"pmu"} else "probe"


def reanalysed(doc: results.Document, name: str) -> tuple[results.Document, list[str]]:
    """`doc` (its measured results analysed again) with its points and its
    section's analysed members derived again; a note where the file keeps
    too little to (no points with their runs, or no irq/direct)."""
    pts = [r for r in doc.results if Result(r).derived and Result(r).params.task is not None]
    direct = next((r for r in doc.results if Result(r).id == "irq/direct"), None)
    sec = results.plain(results.member(doc, "irq"))
    if not pts or direct is None or not all(Result(p).rounds for p in pts):
        return doc, ["irq: the file keeps too little to derive its points again (no irq/direct, or points "
                     "without their runs): left as the file holds them"]
    tables = analysis.tables_from_points([results.plain(p) for p in pts])
    spin = tables.pop("spin", None)
    by_task, about = _chunk_runs(pts)
    # what every point was given (its own task and rate aside), as it keeps it
    params = {k: v for k, v in Result(pts[0]).params.items() if k not in ("task", "rate_hz")}
    rates = list(sec.get("rates_hz") or sorted({int(Result(p).params.rate_hz) for p in pts}))
    an, points = analysis.derive_all(tables, analysis.rows(results.plain(direct)), rates, params, spin,
                                     _clock_method(pts), by_task, about)
    section = dict(sec, **jsonable({k: an[k] for k in analysis.ANALYSED}))
    # an analysis a file's runs do not allow (D_check without the spin's runs) is absent, not null;
    # chunks None is the command's own "no chunk timing in these runs"
    section = {k: v for k, v in section.items() if v is not None or k not in analysis.ANALYSED or k == "chunks"}
    return results.replace(doc, results=model.with_points(list(doc.results), points), irq=section), []
