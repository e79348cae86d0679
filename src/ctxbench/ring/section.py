"""The ring's part of the report: cost per switch vs parties, figure and
table, each point's cost above the ping-pong and the N = 2 checks as the
command kept them (each point's `above_pingpong`, the section's
`n2_check`), never derived again from the results: the report prints what
the command printed. Deriving them again is `ctxbench reanalyse`
(ring/reanalysis.py). Found by the report (report/kinds.py) as this
package's `section` module."""
from __future__ import annotations

from ctxbench.core.model import Result
from ctxbench.core.results import member, plain
from ctxbench.ring import analysis
from ctxbench.ui.figures import png_bytes
from ctxbench.report.cells import _id, _p, _schema_kind, median_ci, not_kept, spread, verified
from ctxbench.report.kinds import Kind
from ctxbench.report.model import Figure, Table

NOT_KEPT = not_kept("A ring point's cost above the ping-pong", "the ring's and the ping-pong's rounds")


def _is_ring(r: dict) -> bool:
    return _schema_kind(r) == "ring"


def _unkept(rs: list[dict]) -> bool:
    """A ring point without its cost above the ping-pong where the
    results hold the ping-pong it is derived from (a file from before it
    was kept, or stripped)."""
    refs = {_id(r) for r in rs}
    return any(Result(r).above_pingpong is None and analysis.pingpong_id(_p(r).kind, _p(r).mechanism) in refs
               for r in analysis.rings(rs))


def _n2_table(sections: list) -> list:
    """The N = 2 checks the command kept, as it printed them."""
    rows = [[str(c.get("kind")), str(c.get("mechanism")), *analysis.n2_cells(c)]
            for sec in sections for c in map(plain, member(sec, "n2_check") or [])]
    return [Table(["kind", "mechanism", *analysis.N2_HEADER], rows,
                  "Ring: the two-party ring is the ping-pong (measured in the same rounds)")] if rows else []


def render_ring(rs: list[dict], env: dict, sections: list) -> list:
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
                     *spread(r), *analysis.above_phrase(Result(r).above_pingpong),
                     f"{spc:.2f}" if isinstance(spc, (int, float)) else "-", verified(r)])
    out.append(Table(["id", "parties", "footprint (B)", "median ± 95% for another run", "min … max", "CV", "n",
                      "above the ping-pong [95% CI]", "its unit", "switches per hand-off", "verified"], rows,
                     "Ring: cost per token hand-off, and above the ping-pong of its kind x mechanism "
                     "(paired by round)"))
    out += _n2_table(sections)
    if _unkept(rs):
        out.append(NOT_KEPT)
    return out


KIND = Kind("ring", "Process working set: ring of N parties (ctxbench ring)", _is_ring, render_ring, order=20)
