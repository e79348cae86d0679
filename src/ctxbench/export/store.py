"""The results store as the two tables. The results table is read from the
store's columns with SQL, never from the documents (a store of 10^5 runs
of 30 results exports in some 20 s): the runs once, then the results in batches, each row
given its run's columns by position. The samples are only in the kept
documents, which are decompressed and read one by one (minutes for a large
store: --samples says so). A result row whose run is not there (deleted
with foreign keys off) is dropped and counted (Runs.orphans); a value a
column cannot hold (SQLite keeps any) is one line naming the column and
the run."""
from __future__ import annotations

import sys
from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlalchemy import String, func, select, type_coerce

from ctxbench.core.errors import UserError, escaped
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
        self.source = source
        self.orphans = 0
        # started read as the text SQLite keeps (any text: a damaged one is said, not a driver's ValueError)
        read = [type_coerce(runs.c.started, String) if n == "started" and conn.dialect.name == "sqlite"
                else runs.c[schema.store_name(n)] for n in RUN_COLUMNS]
        q = where_runs(conn, select(runs.c.id, *read), sel, runs)
        rows = conn.execute(q.order_by(runs.c.id)).all()
        cols = list(zip(*rows)) if rows else [[] for _ in range(len(RUN_COLUMNS) + 1)]
        self.ids = np.asarray(cols[0], dtype=np.int64)
        values = dict(zip(RUN_COLUMNS, cols[1:]))
        started = []
        for run_id, t in zip(self.ids.tolist(), values["started"]):
            if t is not None and times.parsed(t) is None:
                raise damaged(source, "started", run_id, t)
            started.append(times.utc(t))
        values["started"] = started
        values["source"] = [source] * len(rows)
        run_schema = pa.schema([f for f in schema.RESULTS if f.name in values])
        self.table = _checked(run_schema, values, self.ids.tolist(), source)

    def __len__(self) -> int:
        return int(self.ids.size)

    def positions(self, run_ids) -> tuple[np.ndarray, np.ndarray]:
        """Each row's place in the table, and whether its run is there."""
        ids = np.asarray(run_ids, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.ids, ids), max(len(self) - 1, 0))
        return at, (self.ids[at] == ids) if len(self) else np.zeros(ids.size, dtype=bool)


def damaged(source: str, column: str, run_id, value) -> UserError:
    return UserError(f"store {source}: run {run_id} is damaged: its column {column} holds "
                     f"{escaped(repr(value)[:60])}, which is not its type")


def _checked(run_schema: pa.Schema, values: dict, ids: list, source: str) -> pa.Table:
    """The runs' table; one line naming the column and run a value of another type is in."""
    try:
        return pa.Table.from_batches([schema.batch(run_schema, values)])
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, ValueError, TypeError):
        for f in run_schema:
            for run_id, v in zip(ids, values[f.name]):
                try:
                    schema.column(f.type, [v])
                except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, ValueError, TypeError):
                    raise damaged(source, f.name, run_id, v) from None
        raise


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
            b = _batch(found, names, rows, pa.int8() if conn.dialect.name == "sqlite" else pa.bool_())
            if b.num_rows:
                yield b


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
    try:
        arrays = dict(zip((n for n, _ in read), pa.array(rows, type=pa.struct(read)).flatten()))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, ValueError, TypeError):
        raise _bad_cell(found.source, read, rows) from None
    at, there = found.positions(arrays["run"].to_numpy(zero_copy_only=False))
    if not there.all():  # rows of a run deleted with foreign keys off: no run to give them
        found.orphans += int((~there).sum())
        keep = pa.array(there)
        arrays = {n: a.filter(keep) for n, a in arrays.items()}
        at = at[there]
    arrays.pop("run")
    run = found.table.take(pa.array(at, type=pa.int64()))
    n_rows = len(at)
    columns = {name: run.column(name) for name in run.column_names}
    columns.update(arrays)
    for name in PARAMS:
        columns.setdefault(name, pa.nulls(n_rows, schema.RESULTS.field(name).type))
    columns["point_key"] = pc.coalesce(columns["point_key"], columns["id"])
    return schema.batch(schema.RESULTS, columns)


def _bad_cell(source: str, read: list, rows: list[tuple]) -> UserError:
    """The first value a column cannot hold, named with its run."""
    for i, (name, t) in enumerate(read):
        for row in rows:
            try:
                pa.array([row[i]], type=t)
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, ValueError, TypeError):
                return damaged(source, name, row[0], row[i])
    return UserError(f"store {source}: a result row is damaged")


def _as_read(name: str, flag: pa.DataType) -> pa.DataType:
    t = schema.RESULTS.field(name).type
    return flag if pa.types.is_boolean(t) else pa.string() if pa.types.is_list(t) else t


def sample_batches(conn, sel: Selection, found: Runs, source: str) -> Iterator[pa.RecordBatch]:
    """The selected results' samples, from each selected run's kept document
    (core/store/record.document: read and upgraded as a file is). A run
    whose document cannot be read back is one line, and the others go on."""
    digests = found.table.column("run_id").to_pylist()
    for run_id, digest in zip(found.ids.tolist(), digests):
        try:
            doc = record.document(conn, run_id, RECORDS)
        except UserError as e:
            print(f"ctxbench: {e}: its samples are not exported", file=sys.stderr)
            continue
        yield files.samples_of(doc, digest, source, sel)
