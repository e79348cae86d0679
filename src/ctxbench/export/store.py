"""The results store as the two tables. The results table is read from the
store's columns with SQL, never from the documents (a store of 10^5 runs
of 30 results exports in some 20 s): the runs once, then the results in batches, each row
given its run's columns by position. The samples are only in the kept
documents, which are decompressed and read one by one (minutes for a large
store: --samples says so)."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlalchemy import func, select

from ctxbench.core.store import record
from ctxbench.core.store.tables import results, runs
from ctxbench.export import files, schema, times
from ctxbench.export.select import Selection, selects_runs, where_id, where_runs
from ctxbench.records import RECORDS

BATCH = 65536  # result rows per batch: memory stays bounded, each batch one Parquet row group
RUN_COLUMNS = [name for name, _, _ in schema.RUN if name != "source"]
RESULT_COLUMNS = [name for name, _, _ in schema.RESULT]


class Runs:
    """The selected runs' columns (schema.RUN), in store id order."""

    def __init__(self, conn, sel: Selection, source: str):
        q = where_runs(conn, select(runs.c.id, *(runs.c[schema.store_name(n)] for n in RUN_COLUMNS)), sel, runs)
        rows = conn.execute(q.order_by(runs.c.id)).all()
        cols = list(zip(*rows)) if rows else [[] for _ in range(len(RUN_COLUMNS) + 1)]
        self.ids = np.asarray(cols[0], dtype=np.int64)
        values = dict(zip(RUN_COLUMNS, cols[1:]))
        values["started"] = [times.utc(t) for t in values["started"]]
        values["source"] = [source] * len(rows)
        run_schema = pa.schema([f for f in schema.RESULTS if f.name in values])
        self.table = pa.Table.from_batches([schema.batch(run_schema, values)])

    def __len__(self) -> int:
        return int(self.ids.size)

    def of(self, run_ids: list[int]) -> pa.Table:
        """Each row's run columns, for the store ids of a batch's rows."""
        return self.table.take(pa.array(np.searchsorted(self.ids, np.asarray(run_ids, dtype=np.int64))))


def result_batches(conn, sel: Selection, found: Runs) -> Iterator[pa.RecordBatch]:
    """The selected results as batches of schema.RESULTS, in the order they
    were added (a run's rows are added together, in its order). A large
    store's cost is per value read, so each batch (a range of BATCH row
    ids: a query of its own, memory bounded on both backends without a
    server-side cursor) reads only the param columns some row of the range
    fills (most are empty: a param belongs to some commands), a point key
    only where it is not the id, and takes the driver's rows as it gives
    them: tuples, not converted value by value on the way (Arrow makes
    each column its declared type, schema.column)."""
    top = conn.execute(select(func.max(results.c.id))).scalar() or 0
    # runs another client adds meanwhile (PostgreSQL: each query sees what was committed) are not `found`'s
    newest = int(found.ids.max()) if len(found) else 0
    for start in range(0, top, BATCH):
        in_range = (results.c.id > start) & (results.c.id <= start + BATCH) & (results.c.run_id <= newest)
        filled = _filled(conn, in_range)
        names = [n for n in RESULT_COLUMNS if n not in PARAMS or n in filled]
        q = select(results.c.run_id, *(_read(n) for n in names)).where(in_range)
        if selects_runs(sel):
            q = where_runs(conn, q.join(runs, runs.c.id == results.c.run_id), sel, runs)
        result = conn.execute(where_id(conn, q, sel, results).order_by(results.c.id))
        rows = result.cursor.fetchall()  # the DBAPI's rows (CursorResult.cursor): no Row made of each
        result.close()
        if rows:
            yield _batch(found, names, rows, pa.int8() if conn.dialect.name == "sqlite" else pa.bool_())


PARAMS = [n for n in RESULT_COLUMNS if n.startswith("param_")]


def _filled(conn, in_range) -> set[str]:
    """The param columns some row in the range fills (one pass over it)."""
    counts = conn.execute(select(*(func.count(results.c[n]) for n in PARAMS)).where(in_range)).one()
    return {n for n, k in zip(PARAMS, counts) if k}


def _read(name: str):
    """A column as a batch reads it: the point key null where it is the id."""
    if name == "point_key":
        return func.nullif(results.c.point_key, results.c.result_id)
    return results.c[schema.store_name(name)]


def _batch(found: Runs, names: list[str], rows: list[tuple], flag: pa.DataType) -> pa.RecordBatch:
    """A batch from the driver's rows: converted by Arrow in one pass, as
    a struct of the columns read (a flag as `flag`: SQLite gives 0/1; the
    codes as text), then given its run's columns and its empty params."""
    read = [("run", pa.int64()), *((n, _as_read(n, flag)) for n in names)]
    arrays = dict(zip((n for n, _ in read), pa.array(rows, type=pa.struct(read)).flatten()))
    run = found.of(arrays.pop("run").to_numpy(zero_copy_only=False))
    columns = {name: run.column(name) for name in run.column_names}
    columns.update(arrays)
    for name in PARAMS:
        columns.setdefault(name, pa.nulls(len(rows), schema.RESULTS.field(name).type))
    columns["point_key"] = pc.coalesce(columns["point_key"], columns["id"])
    return schema.batch(schema.RESULTS, columns)


def _as_read(name: str, flag: pa.DataType) -> pa.DataType:
    t = schema.RESULTS.field(name).type
    return flag if pa.types.is_boolean(t) else pa.string() if pa.types.is_list(t) else t


def sample_batches(conn, sel: Selection, found: Runs, source: str) -> Iterator[pa.RecordBatch]:
    """The selected results' samples, from each selected run's kept document
    (core/store/record.document: read and upgraded as a file is)."""
    digests = found.table.column("run_id").to_pylist()
    for run_id, digest in zip(found.ids.tolist(), digests):
        doc = record.document(conn, run_id, RECORDS)
        yield files.samples_of(doc, digest, source, sel)
