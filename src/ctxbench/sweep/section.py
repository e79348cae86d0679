"""The sweep's part of the report: its figures, what it resolved with the
stride-0 check, and a row per point. Found by the report (report/kinds.py) as
this package's `section` module."""
from __future__ import annotations

from ctxbench.core.model import Result, is_sweep_point
from ctxbench.report.cells import _figures, _id, _p, median_ci, spread, verified
from ctxbench.report.kinds import Kind
from ctxbench.report.model import Table


def _is_sweep(r: dict) -> bool:
    # a sweep point has a working set (stride-0 points too: their size is
    # set) or its indirect cost; outside a sweep file, the size tells
    return is_sweep_point(r)


def render_sweep(rs: list[dict], env: dict, sections: list) -> list:
    """The sweep's own figures (figures_sweep), then one row per point."""
    from ctxbench.sweep import figures as figures_sweep
    out: list = _figures(figures_sweep.all_figures({"results": rs, "environment": env}),
                         "median per point with its 95% CI; vertical lines: cache and TLB capacities")
    out.append(_sweep_checks(rs))
    rows = []
    for r in sorted(rs, key=lambda r: (_id(r), _p(r).get("stride", 0), _p(r).get("size", 0))):
        ind = Result(r).indirect
        rows.append([_id(r), str(_p(r).get("size", "?")), str(_p(r).get("stride", "?")), median_ci(r),
                     median_ci(ind) if ind else "-", *spread(r), verified(r)])
    out.append(Table(["id", "size (B)", "stride (B)", "total ± 95% CI", "indirect ± 95% CI", "min … max", "CV",
                      "n", "verified"], rows, "Sweep: total and indirect cost per switch"))
    return out


def _sweep_checks(rs: list[dict]) -> Table:
    """Per mechanism: what the sweep resolved and its stride-0 check (the
    same counts as the command's summary: tallies of the indirect costs
    the points kept and the median of the stride-0 medians they kept,
    sweep_analysis.checks_row; no interval or verdict is made again)."""
    from ctxbench.sweep import analysis as sweep_analysis
    from ctxbench.sweep.plan import key
    rows = [[bid, *sweep_analysis.checks_row(rs, bid)] for bid in sorted({key(r)[0] for r in rs if key(r)})]
    return Table(["mechanism", *sweep_analysis.CHECKS_HEADER], rows,
                 "Sweep: points resolved (95% interval excludes 0) or below their minimum detectable effect, "
                 "and the stride-0 check (every stride-0 point is the same configuration: 0 at once)")


KIND = Kind("sweep", "Indirect cost: working-set and stride sweep", _is_sweep, render_sweep, order=40)
