"""The noise's part of the report: per CPU, the histogram of the gaps and
their totals. Found by the report (report/kinds.py) as this package's `section` module."""
from __future__ import annotations

from ctxbench.core.model import Result
from ctxbench.ui.format import fmt_time
from ctxbench.report.cells import _figures, _p, _schema_kind
from ctxbench.report.kinds import Kind
from ctxbench.report.model import Table


def _is_noise(r: dict) -> bool:
    return _schema_kind(r) == "noise"


def render_noise(rs: list[dict], env: dict, sections: list) -> list:
    from ctxbench.noise.figures import NAME, noise_histogram
    out: list = []
    for r in rs:
        nz = Result(r).noise
        out += _figures([(NAME, noise_histogram(nz, env, _p(r).get("noise_cpu"), Result(r).summary))],
                        "gaps seen by a tight timer-reading loop on the pinned CPU")
        out.append(Table(["CPU", "gaps", "threshold", "total lost", "longest"],
                         [[str(_p(r).get("noise_cpu")), str(nz.get("count")), fmt_time(nz.get("threshold_ns")),
                           fmt_time(nz.get("total_ns")), fmt_time(nz.get("longest_ns"))]],
                         "System noise"))
    return out


KIND = Kind("noise", "System noise on the measured CPU", _is_noise, render_noise, order=70)
