"""The run's part of the report (and userbench's: user-level switches are
direct costs too): the direct-cost table, in table.py's sections, and the
cost figure. Found by the report (report/kinds.py) as this package's `section` module."""
from __future__ import annotations

from ctxbench.core.model import is_sweep_point
from ctxbench.core import results
from ctxbench.run import host, table
from ctxbench.ui.figures import png_bytes
from ctxbench.report.cells import _id, _schema_kind, cycles_ci, median_ci, spread, verified
from ctxbench.report.kinds import Kind
from ctxbench.report.model import Figure, Note, Table


def _is_run(r: dict) -> bool:
    return _schema_kind(r) in ("timer", "baseline", "switch", "selftest", "boost") and not is_sweep_point(r)


def render_run(rs: list[dict], env: dict, sections: list) -> list:
    """The direct-cost table, in table.py's sections, and the cost figure."""
    out: list = []
    order = [t for _, _, t in table.SECTIONS] + ["Other"]
    by: dict = {}
    for r in rs:
        by.setdefault(table._section(r), []).append(r)
    for title in order:
        if by.get(title):
            out.append(Table(["id", "median ± 95% CI", "min … max", "CV", "n", "core cycles ± CI", "verified"],
                             [[_id(r), median_ci(r), *spread(r), cycles_ci(r), verified(r)] for r in by[title]],
                             title))
    from ctxbench.run import figures as run_fig
    fig = run_fig.figure(rs, env)
    if fig is not None:
        out.append(Figure("Direct cost and wake-up latency", png_bytes(fig),
                          "median with its 95% bootstrap CI over the kept samples"))
    return out + _host_parts(sections)


def _host_parts(sections: list) -> list:
    """Each run's host state as it kept it (run/host.py): a table, and the
    line that named what moved."""
    out: list = []
    for sec in sections:
        rec = results.plain(results.member(sec, "host_state"))
        if not isinstance(rec, dict):
            continue
        when = results.member(sec, "started")
        out.append(Table(["", "this run", "this host's best", "beyond the clock"], host.rows(rec),
                         "Host state while it ran" + (f" (started {when})" if when and len(sections) > 1 else "")))
        if rec.get("said"):
            out.append(Note("What moved: " + str(rec["said"]), "warning"))
    return out


KIND = Kind("run", "Direct cost (ctxbench run)", _is_run, render_run, order=10, commands=("run", "userbench"))
