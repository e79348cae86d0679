"""Results files as the two tables: each file read and checked by the
reader (core/reader.load: one line for anything it refuses), its run's
columns and its results' rows made by the functions that make the store's
(core/store/record.py), so that a file exported and the same file added to
a store and exported from there give the same rows (but that a file's text
is exported whole, where a store keeps what its columns hold)."""
from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from ctxbench.core import reader
from ctxbench.core.model import Document, Result
from ctxbench.core.results import member
from ctxbench.core.store import record
from ctxbench.export import schema, times
from ctxbench.export.select import Selection
from ctxbench.records import RECORDS
from ctxbench.stats.numbers import finite_or_none


@dataclass(frozen=True)
class Read:
    """One file's rows: its results (a batch of schema.RESULTS) and, if
    asked, its samples (schema.SAMPLES); whether its run was selected;
    the run's id (its digest)."""
    results: pa.RecordBatch
    samples: pa.RecordBatch | None
    selected: bool
    run_id: str = ""


def read(path: str, sel: Selection, samples: bool) -> Read:
    """One results file; core.errors.UserError (one line) for a file the
    reader refuses."""
    return of_document(reader.load(path, RECORDS), path, sel, samples)


def of_document(doc, source: str, sel: Selection, samples: bool) -> Read:
    """A document's rows (a file's, or a store's kept one for its samples)."""
    facts = record.run_facts(doc, whole=True)
    started = member(Document(doc).section(), "started")
    if not sel.run_passes(facts, times.local(started)):
        return Read(_empty(schema.RESULTS), _empty(schema.SAMPLES) if samples else None, False, facts["digest"])
    rows = [r for r in record.result_rows(doc, 0, whole=True) + record.effect_rows(doc, 0, whole=True)
            if sel.result_passes(r["result_id"])]
    run = {name: facts.get(schema.store_name(name)) for name, _, _ in schema.RUN}
    run.update(source=source, started=times.utc(started))
    columns = {name: [run[name]] * len(rows) for name in run}
    columns.update((name, [r.get(schema.store_name(name)) for r in rows]) for name, _, _ in schema.RESULT)
    return Read(schema.batch(schema.RESULTS, columns),
                samples_of(doc, facts["digest"], source, sel) if samples else None, True, facts["digest"])


def _empty(s: pa.Schema) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist([], schema=s)


def samples_of(doc, run_id: str, source: str, sel: Selection) -> pa.RecordBatch:
    """One row per sample of each selected result: its group, whether the
    verification kept it, and its value in core cycles where they apply."""
    columns: dict[str, list] = {name: [] for name, _, _ in schema.SAMPLE}
    for r in Document(doc).results:
        if sel.result_passes(r.id):
            _add_samples(columns, r, run_id, source)
    return schema.batch(schema.SAMPLES, columns)


def _add_samples(columns: dict[str, list], r: Result, run_id: str, source: str) -> None:
    values = r.samples
    k = len(values)
    groups = r.groups or [None] * k
    cycles = r.cycles.samples if r.cycles.applies else [None] * k
    for name, col in (("run_id", [run_id] * k), ("source", [source] * k), ("id", [r.id] * k),
                      ("point_key", [r.point_key] * k), ("sample", list(range(k))),
                      ("group", [int(g) if isinstance(g, (int, float)) and not isinstance(g, bool) else None
                                 for g in groups]),
                      ("value", [finite_or_none(x) for x in values]), ("unit", [r.unit or None] * k), ("kept", r.keep),
                      ("cycles", [finite_or_none(x) for x in cycles])):
        columns[name].extend(col)

