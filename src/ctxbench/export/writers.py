"""A table's batches as Parquet, Arrow IPC (Feather 2) or CSV, chosen by
the output's name or --format, written the way every ctxbench output is
(core/writer.Output: checked before anything is read, atomic, never over
an input or the store). A file is written batch by batch into a temporary
file beside it (memory stays bounded) and renamed over its name when every
output is made (Pending.commit): a reader never sees half of it, and an
export that fails or is interrupted leaves the old outputs as they were. A
stream (standard output, a FIFO) is made in memory and written at once."""
from __future__ import annotations

import os
from collections.abc import Iterable
from types import MappingProxyType

import pyarrow as pa

from ctxbench.core.errors import UserError, shown
from ctxbench.core.writer import Output, Staged

FORMATS = ("parquet", "arrow", "csv")
SUFFIXES = MappingProxyType({".parquet": "parquet", ".pq": "parquet", ".arrow": "arrow", ".feather": "arrow",
                             ".ipc": "arrow", ".csv": "csv"})
NAMES = MappingProxyType({"parquet": "Parquet", "arrow": "Arrow IPC", "csv": "CSV"})
ROW_GROUP = 65536  # rows gathered before a Parquet row group is written: many small files make few groups


def format_of(path: str, asked: str | None) -> str:
    """--format, else the output's extension; one line where neither says,
    or where the two disagree (`--format arrow -o x.parquet`)."""
    named = SUFFIXES.get(os.path.splitext(path)[1].lower())
    if asked:
        if named is not None and named != asked:
            raise UserError(f"export: --format {asked}, but {shown(path)} is named as {NAMES[named]}: "
                            "drop --format, or name the file for its format")
        return asked
    if named is None:
        raise UserError(f"export: cannot tell the format of {shown(path)} from its name: end it with "
                        f"{', '.join(SUFFIXES)}, or give --format ({', '.join(FORMATS)})")
    return named


class Pending:
    """An output made but not yet in place: commit() puts it there (a file
    renamed over its name, a stream written), discard() drops it."""

    def __init__(self, out: Output):
        self.out = out
        self.staged = Staged(out.target) if out.fd is None else None
        self.buffer = None if self.staged else pa.BufferOutputStream()
        self.sink = pa.PythonFile(self.staged.file, mode="w") if self.staged else self.buffer

    def commit(self) -> None:
        """One line (exit 1) where the output cannot take it."""
        try:
            if self.staged is not None:
                self.staged.commit()
            else:
                self.out.write(memoryview(self.buffer.getvalue()))
        except OSError as e:
            raise UserError(f"export: cannot write {shown(self.out.path)}: {e.strerror or e}", code=1)

    def discard(self) -> None:
        if self.staged is not None:
            self.staged.discard()


def encode(out: Output, fmt: str, schema: pa.Schema, batches: Iterable[pa.RecordBatch]) -> tuple[int, Pending]:
    """The batches written as `fmt` for `out`, not yet in place: (the rows
    written, the Pending to commit). One line (exit 1) where the
    temporary file cannot take them; nothing left of it on any failure."""
    pending = Pending(out)
    try:
        rows = _encode(pending.sink, fmt, schema, batches)
    except OSError as e:
        pending.discard()
        raise UserError(f"export: cannot write {shown(out.path)}: {e.strerror or e}", code=1)
    except BaseException:
        pending.discard()
        raise
    return rows, pending


def _encode(sink, fmt: str, schema: pa.Schema, batches: Iterable[pa.RecordBatch]) -> int:
    rows = 0
    if fmt == "parquet":
        import pyarrow.parquet as pq
        from concurrent.futures import ThreadPoolExecutor
        # a row group is encoded (Arrow lets go of the GIL) while the next batch is read
        with pq.ParquetWriter(sink, schema) as w, ThreadPoolExecutor(1) as encoder:
            pending = None
            for table in _gathered(schema, batches):
                if pending is not None:
                    pending.result()
                pending = encoder.submit(w.write_table, table, row_group_size=max(table.num_rows, 1))
                rows += table.num_rows
            if pending is not None:
                pending.result()
    elif fmt == "arrow":
        with pa.ipc.new_file(sink, schema) as w:
            for b in batches:
                w.write_batch(b)
                rows += b.num_rows
    else:
        import pyarrow.csv as pacsv
        flat = for_csv(schema)
        with pacsv.CSVWriter(sink, flat) as w:
            for b in batches:
                w.write_batch(_flat_batch(b, flat))
                rows += b.num_rows
    return rows


def _gathered(schema: pa.Schema, batches: Iterable[pa.RecordBatch]):
    """The batches as tables of at least ROW_GROUP rows (the last may be fewer)."""
    held, n = [], 0
    for b in batches:
        held.append(b)
        n += b.num_rows
        if n >= ROW_GROUP:
            yield pa.Table.from_batches(held, schema=schema)
            held, n = [], 0
    if held:
        yield pa.Table.from_batches(held, schema=schema)


def for_csv(schema: pa.Schema) -> pa.Schema:
    """The schema as CSV holds it: a list of codes is one text, joined by ';'."""
    return pa.schema([pa.field(f.name, pa.string()) if pa.types.is_list(f.type) else f for f in schema])


def _flat_batch(b: pa.RecordBatch, flat: pa.Schema) -> pa.RecordBatch:
    import pyarrow.compute as pc
    cols = [pc.binary_join(col, ";") if pa.types.is_list(f.type) else col for f, col in zip(b.schema, b.columns)]
    return pa.RecordBatch.from_arrays(cols, schema=flat)
