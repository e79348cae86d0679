"""ctxbench.load: results files or a results store as the tables `ctxbench
export` writes (schema.py), as a pandas DataFrame where pandas is
installed, else a Polars one, else the pyarrow Table; neither is required.

    import ctxbench
    df = ctxbench.load(["run-a.json", "run-b.json"])           # results files
    df = ctxbench.load("~/.local/share/ctxbench/store.sqlite")  # a store: a SQLite file or a postgresql:// URL
    df, samples = ctxbench.load("run.json", samples=True)

Bad input (a file the reader refuses, a store that is none) raises
ctxbench.core.errors.UserError, whose text is one line."""
from __future__ import annotations

import os
from collections.abc import Sequence

from ctxbench.core.errors import UserError

SQLITE_HEADER = b"SQLite format 3\x00"


def load(source, samples: bool = False, select: str | Sequence[str] | None = None):
    """The results table of `source` (a results file, several, or a store:
    a `postgresql://` or `sqlite://` URL, or a SQLite file), and with
    `samples` the samples table too, as (results, samples). `select`:
    `ctxbench export --select`'s key=value terms (id, command, host,
    kernel, cpu, since, until)."""
    import pyarrow as pa

    from ctxbench.export import schema
    from ctxbench.export.select import parse
    sel = parse([select] if isinstance(select, str) else list(select or []))
    if _is_store(source):
        res, smp = _from_store(os.path.expanduser(os.fspath(source)), sel, samples)
    else:
        res, smp = _from_files(_paths(source), sel, samples)
    results = _frame(pa.Table.from_batches(res, schema=schema.RESULTS))
    return (results, _frame(pa.Table.from_batches(smp, schema=schema.SAMPLES))) if samples else results


def _paths(source) -> list[str]:
    if isinstance(source, (str, bytes, os.PathLike)):
        return [os.fspath(source)]
    paths = [os.fspath(p) for p in source]
    if not paths:
        raise UserError("ctxbench.load: no results file given")
    return paths


def _is_store(source) -> bool:
    """A URL, or a file that is a SQLite database (not a results file)."""
    if not isinstance(source, (str, os.PathLike)):
        return False
    name = os.fspath(source)
    if "://" in name:
        return True
    try:
        with open(os.path.expanduser(name), "rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False  # the reader says why, as for any file


def _from_files(paths: list[str], sel, samples: bool):
    from ctxbench.export import files
    read = [files.read(p, sel, samples) for p in paths]  # the first file refused raises its one line
    return [r.results for r in read], [r.samples for r in read] if samples else []


def _from_store(where: str, sel, samples: bool):
    from ctxbench.core.store.db import open_store
    from ctxbench.export import store
    kept = open_store(where, writes=False)  # a reader: never makes one
    with kept.begin(write=False) as conn:
        found = store.Runs(conn, sel, kept.name)
        res = list(store.result_batches(conn, sel, found))
        smp = list(store.sample_batches(conn, sel, found, kept.name)) if samples else []
    return res, smp


def _frame(table):
    """pandas (nullable integers and booleans, so that a column with nulls
    keeps its type), else Polars, else the table itself."""
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        import pyarrow as pa
        nullable = {pa.int64(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype()}
        return table.to_pandas(types_mapper=nullable.get)
    try:
        import polars as pl
    except ImportError:
        return table
    return pl.from_arrow(table)
