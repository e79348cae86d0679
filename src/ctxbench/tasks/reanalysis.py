"""ctxbench reanalyse of a tasks file (reanalyse/analysis.py calls
`reanalysed` after the file's runs are analysed again): the pairs' points
and per_pair records derived again from the runs the file keeps (each
pair's job and its empty pair's, tasks/analysis.runs_in), with the
function the command measures with (tasks/analysis.derive). The plan each
pair was measured to is the command's, taken from the file as written."""
from __future__ import annotations

from ctxbench.core import model, results
from ctxbench.core.writer import jsonable
from ctxbench.tasks import analysis as tasks_analysis


def _plans(per_pair: dict, pairs) -> dict[str, dict]:
    """Each pair's plan as the file keeps it in its per_pair record."""
    return {pair: {k: v for k, v in (per_pair.get(pair) or {}).items() if k in tasks_analysis.PLAN}
            for pair in pairs}


def reanalysed(doc: results.Document, name: str) -> tuple[results.Document, list[str]]:
    """`doc` (its runs analysed again) with its points and its section's
    per_pair and max_cv derived again; a note where the file keeps no runs
    to derive them from (written before the runs were kept)."""
    runs = tasks_analysis.runs_in(list(doc.results))
    if not runs:
        return doc, ["tasks: the file keeps no runs of its pairs (written before they were kept): its points and "
                     "per-switch effects are left as the file holds them"]
    sec = results.member(doc, "tasks")
    order = [p for p in results.member(sec, "pairs", []) if p in runs] + \
        [p for p in runs if p not in results.member(sec, "pairs", [])]
    # the analysis takes engine results as builtins (as the command hands it the engine's)
    d = tasks_analysis.derive({p: tuple(map(results.plain, runs[p])) for p in order},
                              _plans(results.member(sec, "per_pair") or {}, order))
    section = dict(results.plain(sec), **jsonable({"per_pair": d.per_pair, "max_cv": d.max_cv}))
    return results.replace(doc, results=model.with_points(list(doc.results), d.points), tasks=section), []
