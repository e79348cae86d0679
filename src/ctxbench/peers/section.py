"""The peers' part of the report: the figure and the table. Found by the
report (report/kinds.py) as this package's `section` module; every row's
ratio and verdict are the ones it kept when it was measured (its
`comparison`, table.kept), so the report prints what the command printed;
judging the rows again is `ctxbench reanalyse` (peers/reanalysis.py)."""
from __future__ import annotations

from ctxbench.peers import figures, table
from ctxbench.report.kinds import Kind
from ctxbench.report.cells import not_kept
from ctxbench.report.model import Figure, Table
from ctxbench.ui.figures import png_bytes

NOT_KEPT = not_kept("A peer row's comparison with ctxbench (ratio, verdict)", "the numbers each row measured")


def render_peers(rs: list[dict], env: dict, sections: list) -> list:
    """The figure and a table per kind of quantity; one note where a row
    kept no comparison (a file an older ctxbench wrote)."""
    out: list = []
    fig = figures.figure(rs, env)
    if fig is not None:
        out.append(Figure("What each tool's number means", png_bytes(fig),
                          "each peer's number in ctxbench's unit beside ctxbench's figure for the same quantity, "
                          "and their ratio; 95% intervals over the rounds"))
    for section in (*table.SECTIONS, table.OTHER):
        rows = [table.cells(r) for r in rs if table.is_peer(r) and table.section_of(r) == section]
        if rows:
            out.append(Table(table.HEADER, rows, f"Peers: {section}"))
    if any(table.kept(r) is None for r in rs if table.is_peer(r)):
        out.append(NOT_KEPT)
    return out


KIND = Kind("peers", "Peers: other tools' numbers beside ctxbench's (ctxbench peers)", table.is_peer, render_peers,
            order=16)
