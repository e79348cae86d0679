"""The anatomy's part of the report: per anatomy file, the waterfall and the
parts, drawn from what the command kept in its section (parts, sum check,
cross-CPU wake-up), never derived again from the rungs' results: the
report prints what the command printed. Deriving them again is `ctxbench
reanalyse` (anatomy/reanalysis.py). Only an anatomy file's results come
here (no matcher: its rungs are run's ids). Found by the report
(report/kinds.py) as this package's `section` module."""
from __future__ import annotations

from ctxbench.anatomy import analysis
from ctxbench.report.kinds import Kind
from ctxbench.report.cells import not_kept
from ctxbench.report.model import Figure, Table
from ctxbench.ui.figures import png_bytes

NOT_KEPT = not_kept("The anatomy's parts", "its rungs")


def table(a: dict, caption: str) -> Table:
    """The parts as the command's table has them, the sum check and the
    cross-CPU wake-up apart."""
    return Table(["part", "estimate [95% CI]", "measured as", "role"], analysis.table_rows(a), caption)


def render_anatomy(rs: list[dict], env: dict, sections: list) -> list:
    """Per anatomy file: the waterfall and the parts it kept; one note for
    files that kept none."""
    from ctxbench.anatomy import figures as anatomy_fig
    out: list = []
    drawn = [a for a in map(analysis.kept, sections) if a is not None]
    for a in drawn:
        m = a.get("mechanism") or "?"
        when = f", started {a['started']}" if len(drawn) > 1 and a.get("started") else ""
        fig = anatomy_fig.waterfall(a, env)
        if fig is not None:
            out.append(Figure(f"Where the time of one hand-off goes ({m}{when})", png_bytes(fig),
                              "the chain adds up to the process rung's hand-off; orange: what one more property "
                              "adds to its reference; 95% intervals"))
        out.append(table(a, f"Anatomy of a switch ({m}{when})"))
    if rs and len(drawn) < max(len(sections), 1):
        out.append(NOT_KEPT)
    return out


KIND = Kind("anatomy", "Anatomy of a switch (ctxbench anatomy)", lambda r: False, render_anatomy, order=30)
