"""The ring's part of the report: cost per switch vs parties, figure and
table. Found by the report (report/kinds.py) as this package's `section` module."""
from __future__ import annotations

from ctxbench.core.model import Result
from ctxbench.ui.figures import png_bytes
from ctxbench.report.cells import _id, _p, _schema_kind, median_ci, spread, verified
from ctxbench.report.kinds import Kind
from ctxbench.report.model import Figure, Table


def _is_ring(r: dict) -> bool:
    return _schema_kind(r) == "ring"


def render_ring(rs: list[dict], env: dict) -> list:
    from ctxbench.ring import figures as ring_fig
    out: list = []
    fig = ring_fig.figure(rs, env)
    if fig is not None:
        out.append(Figure("Cost per switch vs parties in the ring", png_bytes(fig),
                          "one line per footprint (and mechanism), one panel per kind; median and the "
                          "interval that holds another run's median 95% of the time"))
    rows = []
    key = lambda r: (_id(r), _p(r).get("footprint", 0), _p(r).get("parties", 0))  # noqa: E731
    for r in sorted(rs, key=lambda r: tuple(str(x).zfill(12) for x in key(r))):
        spc = Result(r).verification.get("switches_per_handoff")
        rows.append([_id(r), str(_p(r).get("parties", "?")), str(_p(r).get("footprint", "?")), median_ci(r),
                     *spread(r), f"{spc:.2f}" if isinstance(spc, (int, float)) else "-", verified(r)])
    out.append(Table(["id", "parties", "footprint (B)", "median ± 95% for another run", "min … max", "CV", "n",
                      "switches per hand-off", "verified"], rows, "Ring: cost per token hand-off"))
    return out


KIND = Kind("ring", "Process working set: ring of N parties (ctxbench ring)", _is_ring, render_ring, order=20)
