"""ctxbench reanalyse FILE -o OUT: a results file analysed again from its
samples (every result's summary, verification and cycles, the drift of
run, anatomy and ring, and a run's widening between runs from what its
file recorded), written to a new file, and what that changed said per result.

Reading a file never re-analyses it (core/reader.py): `report`,
`compare`, `history` and the store show what the command printed when it
measured. This is the one way to have a newer ctxbench's analysis of an
old file's samples, on purpose and in a file of its own."""
from __future__ import annotations

import sys

from ctxbench.core import reader, writer
from ctxbench.core.errors import escaped, shown
from ctxbench.reanalyse import analysis, changes
from ctxbench.records import RECORDS
from ctxbench.ui.options import output_file


def add_parser(sub):
    p = sub.add_parser("reanalyse", help="analyse a results file again from its samples, into a new file",
                       description="Analyse a results file again from its samples (this ctxbench's statistics) "
                                   "and write the outcome to a new file; says what changed per result.")
    p.add_argument("file", metavar="RESULTS.json", help="the results file (read, never written)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", type=output_file,
                   help="the new results file (not the one read; '-': standard output)")
    p.set_defaults(func=run)


def run(args) -> int:
    out = writer.check_writable(args.output, inputs=[args.file])
    old = reader.load(args.file, RECORDS, analyse_old=False)  # the results as the file holds them
    new, widened, derived = analysis.reanalysed(old, shown(args.file))
    writer.write_results(out, new)
    where = sys.stderr if out.fd == 1 else sys.stdout  # -o -: the document alone on standard output
    lines = changes.changed(old.results, new.results)
    # the command's notes say what its own analysis changed (a section's effects), which no result shows
    print("\n".join(lines) if lines else "no result changed" if derived else "nothing changed", file=where)
    for note in derived + widened:
        print(f"note: {note}", file=where)
    if out.fd != 1:
        print(f"results written to {escaped(args.output)}", file=where)
    return 0
