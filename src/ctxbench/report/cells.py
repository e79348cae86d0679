"""Cells every part of the report writes the same way (a median and its
interval, the spread, the verification, a part's mean and CI) and the
report's figures from matplotlib ones. The commands' sections
(ctxbench.<command>.section) build their tables and figures from these and
from report/model.py; the report itself imports no command."""
from __future__ import annotations

import math

from ctxbench.core.model import Result, Summary
from ctxbench.ui.format import fmt_cycles_cell, fmt_time
from ctxbench.ui.figures import png_bytes
from ctxbench.report.model import Figure, Note


def _id(r: dict) -> str:
    return Result(r).id


def _p(r: dict):
    return Result(r).params


def _schema_kind(r: dict) -> str:
    k = Result(r).kind
    return k.name if k else ""


def median_ci(r: dict | Summary) -> str:
    s = r if isinstance(r, Summary) else Result(r).summary
    med, ci = s.median, s.ci95
    if not math.isfinite(med):
        return "n/a"
    if not all(map(math.isfinite, ci)):
        return fmt_time(med)
    return f"{fmt_time(med)} ± {fmt_time((ci[1] - ci[0]) / 2)}"


def cycles_ci(r: dict) -> str:
    """The median in core cycles with half its interval, "ns only" where
    cycles are the wrong unit (core/cycles.py), "-" without the probe."""
    return fmt_cycles_cell(Result(r))


def spread(r: dict) -> list[str]:
    s = Result(r).summary
    return [f"{fmt_time(s.min)} … {fmt_time(s.max)}",
            f"{s.cv:.1%}" if math.isfinite(s.cv) else "n/a", str(s.n)]


def verified(r: dict) -> str:
    return Result(r).verified[0]


def _figures(named: list[tuple[str, object]], caption: str) -> list:
    """(name, matplotlib figure) pairs as the report's PNG figures."""
    return [Figure(name, png_bytes(fig), caption) for name, fig in named if fig is not None]


def _part_ci(s: Summary | None, scale: float = 1e6, unit: str = "ms") -> str:
    if not s or not math.isfinite(s.mean):
        return "n/a"
    ci = s.ci95
    txt = f"{s.mean / scale:.3f} {unit}"
    if all(map(math.isfinite, ci)):
        txt += f" [{ci[0] / scale:.3f}, {ci[1] / scale:.3f}]"
    return txt


def not_kept(what: str, source: str) -> Note:
    """The note for a file that does not keep what a command derived
    (`what`, from `source`): written by an older ctxbench, or stripped.
    The report draws only what a file keeps, so it says how to have it."""
    return Note(f"{what}: not kept in this file (an older ctxbench's, or removed); "
                f"`ctxbench reanalyse FILE -o NEW` derives what is missing from {source}, into a new file")
