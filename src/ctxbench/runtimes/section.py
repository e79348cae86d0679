"""The runtimes' part of the report: the figure and the hand-off table.
Found by the report (report/kinds.py) as this package's `section` module."""
from __future__ import annotations

from ctxbench.report.kinds import Kind
from ctxbench.report.model import Figure, Table
from ctxbench.runtimes import figures, table
from ctxbench.runtimes.analysis import is_handoff
from ctxbench.ui.figures import png_bytes


def render_runtimes(rs: list[dict], env: dict, sections: list) -> list:
    # the rows as the command wrote them (their intervals over launches: analysis.row_of), never
    # derived again here; `reanalyse` makes them again (runtimes/reanalysis.py)
    out: list = []
    fig = figures.figure(rs, env)
    if fig is not None:
        out.append(Figure("Hand-off cost per runtime", png_bytes(fig),
                          "estimate and 95% interval (over launches where a row has several: the mean of their "
                          "medians), log scale, ticks at each launch's median; pinned: one CPU "
                          "and one worker, default: two CPUs; colour: user-level or kernel-assisted by the "
                          "kernel switches counted"))
    launches = table.launch_lines(rs)
    notes = " ".join(x for x in [table.interval_line(rs), *table.cycles_lines(rs)] if x)
    out.append(Table(table.HANDOFF_HEADER, table.handoff_rows(rs), "Runtimes: one-way hand-off. " + notes
                     + (f" ({launches[0]})" if launches else "")))
    other = table.other_rows(rs)
    if other:
        out.append(Table(["runtime", "thread", "placement", "measure", "median [95% CI]"], other,
                         "Runtimes: spawn and memory per lightweight thread"))
    return out


KIND = Kind("runtimes", "Runtimes: hand-offs in Go, Rust, Java, Python, Node, C++ (ctxbench runtimes)",
            is_handoff, render_runtimes, order=15)
