"""ctxbench.load: results files or a results store as the tables `ctxbench
export` writes (schema.py), as a pandas DataFrame where pandas is
installed, else a Polars one, else the pyarrow Table; neither is required.

    import ctxbench
    df = ctxbench.load(["run-a.json", "run-b.json"])           # results files
    df = ctxbench.load("~/.local/share/ctxbench/store.sqlite")  # a store: a SQLite file or a postgresql:// URL
    df, samples = ctxbench.load("run.json", samples=True)

Bad input (a file the reader refuses, a store that is none, an argument
of the wrong kind) raises ctxbench.core.errors.UserError, whose text is one
line. A run given twice (one file twice, or two files of one run) gives its
rows once."""
from __future__ import annotations

import os
import stat
from collections.abc import Sequence

from ctxbench.core.errors import UserError, file_kind, shown

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
    sel = parse(_terms(select))
    paths = _paths(source)
    if len(paths) == 1 and _is_store(paths[0]):
        res, smp = _from_store(os.path.expanduser(paths[0]), sel, samples)
    else:
        res, smp = _from_files(paths, sel, samples)
    results = _frame(pa.Table.from_batches(res, schema=schema.RESULTS))
    return (results, _frame(pa.Table.from_batches(smp, schema=schema.SAMPLES))) if samples else results


def _terms(select) -> list[str]:
    """select's terms, each text (one line otherwise)."""
    if select is None:
        return []
    if isinstance(select, str):
        return [select]
    if isinstance(select, Sequence) and not isinstance(select, (bytes, bytearray)) and \
            all(isinstance(t, str) for t in select):
        return list(select)
    raise UserError(f"ctxbench.load: select is key=value text or a list of them, not {_what(select)}")


def _what(x) -> str:
    return type(x).__name__ if not isinstance(x, (list, tuple)) else f"a {type(x).__name__} holding " + \
        ", ".join(sorted({type(v).__name__ for v in x if not isinstance(v, str)}))


def _path(p) -> str:
    """One path as text: bytes decoded as the file system names them; a
    NUL, or anything that is not a path, one line."""
    if not isinstance(p, (str, bytes, os.PathLike)):
        raise UserError(f"ctxbench.load: a results file or store is a path or URL, not {type(p).__name__}")
    name = os.fsdecode(os.fspath(p))
    if "\0" in name:
        raise UserError(f"ctxbench.load: {shown(name.replace(chr(0), '?'))}: a path holds no NUL character")
    return name


def _paths(source) -> list[str]:
    if isinstance(source, (str, bytes, os.PathLike)):
        return [_path(source)]
    if isinstance(source, (dict, set, frozenset)) or not isinstance(source, Sequence):
        raise UserError(f"ctxbench.load: give a path, a URL or a list of paths, not {type(source).__name__}")
    paths = [_path(p) for p in source]
    if not paths:
        raise UserError("ctxbench.load: no results file given")
    return paths


def _is_store(name: str) -> bool:
    """A URL, or a file that is a SQLite database (not a results file).
    Only a regular file is opened (a FIFO would wait for a writer): any
    other kind is refused here in one line."""
    if "://" in name:
        return True
    path = os.path.expanduser(name)
    try:
        st = os.stat(path)
    except OSError:
        return False  # the reader says why, as for any file
    if not stat.S_ISREG(st.st_mode):
        raise UserError(f"ctxbench.load: {shown(name)} is {file_kind(st.st_mode)}, not a results file or store")
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def _from_files(paths: list[str], sel, samples: bool):
    from ctxbench.export import files
    read, seen = [], set()
    for p in paths:
        _is_store(p)  # a FIFO or device refused before the reader opens it
        got = files.read(p, sel, samples)  # the first file refused raises its one line
        if got.run_id not in seen:  # a run given twice: its rows once
            seen.add(got.run_id)
            read.append(got)
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
