"""ctxbench report: one self-contained HTML page (and optionally Markdown)
from any number of results files: environment and warnings, the
direct-cost table, and every figure the files allow."""
from __future__ import annotations

import os
import sys

from ctxbench.core import reader
from ctxbench.core.model import Document
from ctxbench.core import writer
from ctxbench.core.errors import UserError, escaped, shown
from ctxbench.records import RECORDS


def add_parser(sub):
    p = sub.add_parser("report", help="an HTML (and Markdown) report from results files",
                       description="Build one self-contained HTML page from ctxbench results files.")
    p.add_argument("files", nargs="+", metavar="RESULTS.json")
    p.add_argument("-o", "--output", default="report.html", metavar="FILE", help="HTML file (default report.html)")
    p.add_argument("--markdown", metavar="FILE", help="also write Markdown (figures in FILE's -figures directory)")
    p.set_defaults(func=run)


def run(args) -> int:
    # Every target (the HTML, the Markdown, its figures) is checked before
    # any is written, and none may be one of the files read.
    if args.markdown and os.path.abspath(args.markdown) == os.path.abspath(args.output):
        raise UserError("-o and --markdown name the same file")
    html_out = writer.check_writable(args.output, inputs=args.files)
    md_out = writer.check_writable(args.markdown, inputs=args.files) if args.markdown else None
    if md_out is not None and md_out.is_stream:
        raise UserError(f"--markdown {shown(args.markdown)}: the Markdown's figures go in a directory beside it: "
                        "name a file")
    fig_dir = stem = ""
    if md_out is not None:
        from ctxbench.ui import figures
        stem = os.path.splitext(os.path.basename(args.markdown))[0] + "-figures"
        fig_dir = os.path.join(os.path.dirname(os.path.abspath(args.markdown)), stem)
        figures.check_dir(fig_dir)
    # Every file is read and checked before anything is written: a bad file
    # stops the report, it is never half-rendered.
    docs = [(p, reader.load(p, RECORDS)) for p in args.files]
    if not any(Document(d).records for _, d in docs):
        raise UserError("no results in the given files")
    from ctxbench.report import build as report_build
    from ctxbench.report import html as report_html
    from ctxbench.report import md as report_md
    rep = report_build.build(docs)
    page = report_html.render(rep)
    if md_out is not None:
        text, files = report_md.render(rep, fig_dir, stem)
        pngs = [(os.path.basename(path), data) for path, data in files]
        own = [*args.files, *(o.target for o in (html_out, md_out) if o.target)]
        figures.check_files(fig_dir, [n for n, _ in pngs], protect=own)
    writer.write_text(html_out, page, "report")
    if html_out.fd != 1:  # not into the page on standard output
        print(f"report written to {escaped(args.output)}")
    if md_out is not None:
        try:
            figures.write_files(fig_dir, pngs, protect=own)
        except OSError as e:
            raise UserError(f"cannot write the Markdown figures in {shown(fig_dir)}: {e.strerror or e}", code=1)
        writer.write_text(md_out, text, "Markdown report")
        print(f"markdown written to {escaped(args.markdown)} (figures in {escaped(fig_dir)})",
              file=sys.stderr if html_out.fd == 1 else sys.stdout)
    return 0
