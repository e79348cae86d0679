"""The peers' part of the report: the figure and the table. Found by the
report (report/kinds.py) as this package's `section` module; every row is
judged again from its raw per-round numbers (analysis.comparison)."""
from __future__ import annotations

from ctxbench.peers import figures, table
from ctxbench.report.kinds import Kind
from ctxbench.report.model import Figure, Table
from ctxbench.ui.figures import png_bytes


def render_peers(rs: list[dict], env: dict) -> list:
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
    return out


KIND = Kind("peers", "Peers: other tools' numbers beside ctxbench's (ctxbench peers)", table.is_peer, render_peers,
            order=16)
