"""ctxbench report: one self-contained HTML page (and optionally Markdown)
from any number of results files: environment and warnings, the
direct-cost table, and every figure the files allow."""
from __future__ import annotations

import os

from ctxbench.core import reader
from ctxbench.core import writer
from ctxbench.core.errors import UserError


def add_parser(sub):
    p = sub.add_parser("report", help="an HTML (and Markdown) report from results files",
                       description="Build one self-contained HTML page from ctxbench results files.")
    p.add_argument("files", nargs="+", metavar="RESULTS.json")
    p.add_argument("-o", "--output", default="report.html", metavar="FILE", help="HTML file (default report.html)")
    p.add_argument("--markdown", metavar="FILE", help="also write Markdown (figures in FILE's -figures directory)")
    p.set_defaults(func=run)


def run(args) -> int:
    # Both targets are checked before either is written, and neither may
    # be one of the files read.
    if args.markdown and os.path.abspath(args.markdown) == os.path.abspath(args.output):
        raise UserError("-o and --markdown name the same file")
    writer.check_writable(args.output, inputs=args.files)
    if args.markdown:
        writer.check_writable(args.markdown, inputs=args.files)
    # Every file is read and checked before anything is written: a bad file
    # stops the report, it is never half-rendered.
    docs = [(p, reader.load(p)) for p in args.files]
    if not any(d["results"] for _, d in docs):
        raise UserError("no results in the given files")
    from ctxbench.report import build as report_build
    from ctxbench.report import html as report_html
    from ctxbench.report import md as report_md
    rep = report_build.build(docs)
    writer.write_text(args.output, report_html.render(rep), "report")
    print(f"report written to {args.output}")
    if args.markdown:
        stem = os.path.splitext(os.path.basename(args.markdown))[0] + "-figures"
        fig_dir = os.path.join(os.path.dirname(os.path.abspath(args.markdown)), stem)
        text, files = report_md.render(rep, fig_dir, stem)
        try:
            os.makedirs(fig_dir, exist_ok=True)
            for path, data in files:
                with open(path, "wb") as f:
                    f.write(data)
        except OSError as e:
            raise UserError(f"cannot write the Markdown figures in '{fig_dir}': {e.strerror or e}", code=1)
        writer.write_text(args.markdown, text, "Markdown report")
        print(f"markdown written to {args.markdown} (figures in {fig_dir})")
    return 0
