"""The anatomy's part of the report: per mechanism, the waterfall and the
parts. Only an anatomy file's results come here (no matcher: its rungs are
run's ids). Found by the report (report/kinds.py) as this package's `section` module."""
from __future__ import annotations

from ctxbench.ui.format import fmt_effect
from ctxbench.ui.figures import png_bytes
from ctxbench.report.cells import median_ci
from ctxbench.report.kinds import Kind
from ctxbench.report.model import Figure, Table


def render_anatomy(rs: list[dict], env: dict) -> list:
    """Per mechanism: the waterfall and the parts, re-derived from the rungs'
    results (anatomy/analysis.py), so an old file is read with today's
    arithmetic."""
    from ctxbench.anatomy import analysis as anatomy
    from ctxbench.anatomy import figures as anatomy_fig
    out: list = []
    for m, by_rung in anatomy.rungs_of(rs).items():
        a = anatomy.anatomy(by_rung, [], m)
        fig = anatomy_fig.waterfall(a, env)
        if fig is not None:
            out.append(Figure(f"Where the time of one hand-off goes ({m})", png_bytes(fig),
                              "the chain adds up to the process rung's hand-off; orange: what one more property "
                              "adds to its reference; 95% intervals"))
        rows = [[p["name"], fmt_effect(p), anatomy.measured_as(p),
                 "chain" if p["chain"] else "added"] for p in a["parts"]]
        sc = a.get("sum_check")
        if sc:
            rows.append(["measured hand-off (process)", fmt_effect(sc["total"]), sc["total"]["id"], "total"])
            rows.append(["not attributed (total - sum of the chain)", fmt_effect(sc["gap"]), "", "gap"])
        x = a.get("cross_cpu")
        if x:
            rows.append([x["quantity"], median_ci(by_rung["cross-cpu"]), x["id"], "apart"])
        out.append(Table(["part", "estimate [95% CI]", "measured as", "role"], rows, f"Anatomy of a switch ({m})"))
    return out


KIND = Kind("anatomy", "Anatomy of a switch (ctxbench anatomy)", lambda r: False, render_anatomy, order=30)
