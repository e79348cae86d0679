"""ctxbench export: results files, or the runs of the results store, as two
tidy tables (schema.py: one row per result; with --samples, one row per
sample) in Parquet, Arrow IPC or CSV, for DuckDB, pandas, Polars or R.
A file the reader refuses is one line and the others are exported (exit 2
at the end); outputs are checked before anything is read and written
atomically. pyarrow and SQLAlchemy are imported when the command runs."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from ctxbench.core import writer
from ctxbench.core.errors import UserError, escaped, shown
from ctxbench.ui.options import add_store

FORMATS = ("parquet", "arrow", "csv")


def add_parser(sub):
    p = sub.add_parser("export", help="results files or the store as tables: Parquet, Arrow IPC, CSV",
                       description="Write results files, or the runs kept in the results store, as tidy tables "
                                   "(one row per result; with --samples, one per sample) for DuckDB, pandas, "
                                   "Polars or R.")
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="results files of any command (default: the store, read from its columns)")
    add_store(p)
    p.add_argument("--select", action="append", metavar="KEY=VALUE[,...]",
                   help="only these rows: id (a result's id), command, host, kernel, cpu (its model), since, until "
                        "(dates: a date is its whole day); * matches any text, case counts; every key must hold "
                        "(default: everything)")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="the results table: .parquet, .arrow or .feather (Arrow IPC), .csv")
    p.add_argument("--samples", metavar="FILE",
                   help="also the samples table, one row per sample with its group (from a store: read from "
                        "every selected run's kept document, minutes for a large store)")
    p.add_argument("--format", choices=FORMATS,
                   help="the format of -o and --samples (default: each file's extension)")
    p.set_defaults(func=run)


@dataclass
class Tally:
    """What was read: the runs selected, the files refused, where from; the
    files that were a run already read (`same`), the store's result rows
    of no run (`orphans`, dropped)."""
    runs: int = 0
    refused: list[str] = field(default_factory=list)
    read_from: str = ""
    same: int = 0
    orphans: int = 0


def run(args) -> int:
    from ctxbench.export import select, writers
    sel = select.parse(args.select)
    if args.files and args.store is not None:
        raise UserError("export: give results files or --store, not both")
    outputs = [args.output, *([args.samples] if args.samples else [])]
    if args.samples and writer.same_file(args.samples, args.output):
        raise UserError(f"export: --samples {shown(args.samples)} is -o's file: name another")
    # every output decided before anything is read: never an input file, nor the store
    try:
        outs = [writer.check_writable(path, inputs=args.files) for path in outputs]
    except UserError as e:
        raise UserError(f"export: {e}", code=e.code) from None
    formats = [writers.format_of(path, args.format) for path in outputs]
    if len(outs) > 1 and writer.same_output(*outs):
        raise UserError(f"export: -o {shown(args.output)} and --samples {shown(args.samples)} are one place "
                        "(one stream or file): name another")
    made: list = []
    try:
        if args.files:
            tally, rows = _from_files(args.files, sel, bool(args.samples), outs, formats, made)
        else:
            tally, rows = _from_store(args.store, sel, outs, formats, made)
        for pending in reversed(made):  # every table made first; then the samples, the results last
            pending.commit()
    finally:
        for pending in made:
            pending.discard()
    _say(tally, rows, outs, formats)
    return 2 if tally.refused else 0  # each refused file said in its line; the others exported


def _from_files(paths: list[str], sel, samples: bool, outs: list, formats: list[str], made: list):
    from ctxbench.export import files, schema, writers
    tally, read, seen = Tally(read_from=f"{len(paths)} file(s)"), [], set()
    for path in paths:
        try:
            got = files.read(path, sel, samples)
        except UserError as e:  # one line, and the others go on
            if len(paths) == 1:
                raise
            print(f"ctxbench: {e}", file=sys.stderr)
            tally.refused.append(path)
            continue
        if got.run_id in seen:  # the same run in two files (or one file twice): its rows once
            tally.same += 1
            continue
        seen.add(got.run_id)
        tally.runs += got.selected
        read.append(got)
    if not read:
        raise UserError(f"export: none of the {len(paths)} files could be read: nothing written")
    rows = []
    for i, (s, part) in enumerate(((schema.RESULTS, "results"), (schema.SAMPLES, "samples"))[:len(outs)]):
        n, pending = writers.encode(outs[i], formats[i], s, (getattr(r, part) for r in read))
        made.append(pending)
        rows.append(n)
    return tally, rows


def _from_store(flag: str | None, sel, outs: list, formats: list[str], made: list):
    from ctxbench.core.store.db import open_store
    from ctxbench.export import schema, store, writers
    kept = open_store(flag, writes=False, outputs=[o.path for o in outs])  # a reader: never makes one
    rows = []
    with kept.begin(write=False) as conn:
        found = store.Runs(conn, sel, kept.name)
        n, pending = writers.encode(outs[0], formats[0], schema.RESULTS, store.result_batches(conn, sel, found))
        made.append(pending)
        rows.append(n)
        if len(outs) > 1:
            n, pending = writers.encode(outs[1], formats[1], schema.SAMPLES,
                                        store.sample_batches(conn, sel, found, kept.name))
            made.append(pending)
            rows.append(n)
    return Tally(runs=len(found), read_from=f"the store {kept.name}", orphans=found.orphans), rows


def _say(tally: Tally, rows: list[int], outs: list, formats: list[str]) -> None:
    """How many rows went where; beside standard output when a table went there."""
    from ctxbench.export.writers import NAMES
    to = sys.stderr if any(o.fd == 1 for o in outs) else sys.stdout
    what = ("result", "sample")
    for (i, n), out, fmt in zip(enumerate(rows), outs, formats):
        where = "standard output" if out.fd == 1 else escaped(out.path)
        print(f"{n} {what[i]} row(s) to {where} ({NAMES[fmt]})", file=to)
    notes = [f"{len(tally.refused)} refused"] if tally.refused else []
    notes += [f"{tally.same} file(s) a run already read, exported once"] if tally.same else []
    notes += [f"{tally.orphans} result row(s) of no run, dropped"] if tally.orphans else []
    print(f"from {tally.runs} run(s) of {escaped(tally.read_from)}" + (f" ({'; '.join(notes)})" if notes else ""),
          file=to)
