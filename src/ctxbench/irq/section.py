"""The interrupts' part of the report: David et al. 2007 Figure 5 and a row per
(task, rate). Found by the report (report/kinds.py) as this package's `section` module."""
from __future__ import annotations

from msgspec import UNSET

from ctxbench.core.model import Result
from ctxbench.core.results import member
from ctxbench.report.cells import _figures, _id, _p, _part_ci, _schema_kind, median_ci, not_kept
from ctxbench.report.kinds import Kind
from ctxbench.report.model import Table
from ctxbench.ui.twin import fmt_twin, short_note


def _is_irq(r: dict) -> bool:
    return _schema_kind(r) in ("irq-direct", "irq-run", "irq-point")


def render_irq(rs: list[dict], env: dict, sections: list) -> list:
    """David et al. 2007 Figure 5 and a row per (task, rate)."""
    from ctxbench.irq.figures import NAME, figure5
    direct = next((r for r in rs if _id(r) == "irq/direct"), None)
    pts = [r for r in rs if Result(r).derived and "task" in _p(r)]
    by_task: dict = {}
    for r in sorted(pts, key=lambda r: _p(r).get("rate_hz", 0)):
        by_task.setdefault(_p(r)["task"], []).append(r)
    out: list = []
    if by_task and direct:
        out += _figures([(NAME, figure5(by_task, env, Result(direct).summary))],
                        "I per task and rate; bars: 95% CI (a small difference of large numbers)")
    def i_cell(r):  # a run whose known-zero control failed derives no result (irq/analysis.py)
        e = Result(r).effects["I"]
        untrusted = e.get("trusted") is False
        # in the unit its verdict uses (ns or core cycles, the smaller MDE), and which
        cell = f"{fmt_twin(e, simultaneous=True)} ({short_note(e)})" if "unit" in e else _part_ci(Result(r).parts.get("I"))
        return ("untrusted: " if untrusted else "") + cell
    rows = [[str(_p(r).task), str(_p(r).rate_hz), _part_ci(Result(r).parts.get("R_task")), i_cell(r)]
            for r in pts]
    out += _chunk_rows(pts, env, sections)
    out.append(Table(["task", "rate (Hz)", "R_task", "I = R' - R - nD"], rows,
                     "Interrupts: indirect cost of n timer signals (David et al. 2007)"
                     + (f"; the gap loop's D = {median_ci(direct)} (I uses D at the level the spin pays: irq/calibration.py)"
                        if direct else "")))
    return out


NOT_KEPT = not_kept("The chunk design (irq.chunks)", "the chunk records its points keep")


def _kept_chunks(pts: list[dict], sections: list) -> tuple[list[dict], bool]:
    """The chunk designs as the command kept them (its sections' `chunks`;
    None where its runs had no chunk timing), never derived again here;
    and whether one is missing though the points keep chunk records."""
    kept = [member(sec, "chunks", UNSET) for sec in sections] or [UNSET]
    missing = any(c is UNSET for c in kept) and any(Result(r).chunks for r in pts)
    return [c for c in kept if c], missing


def _chunk_rows(pts: list[dict], env: dict, sections: list) -> list:
    """The chunk design (irq/chunked.py) as the command kept it in its
    section: the recovery figure and a row per task."""
    from ctxbench.irq.figures import RECOVERY, recovery
    from ctxbench.ui.format import fmt_effect
    from ctxbench.ui.recovery import recovered_text
    designs, missing = _kept_chunks(pts, sections)
    out = [NOT_KEPT] if missing else []
    for ch in designs:
        out += _figures([(RECOVERY, recovery(ch, env))], "excess per chunk after a signal, D taken from its chunk; "
                        "band: 95% interval over rounds")
        rows = [[task, fmt_effect(rec["per_interrupt"]), rec["verdict"], fmt_effect(rec["after_signal_chunk"]),
                 recovered_text(rec["curve"]), str(rec["rounds"])] for task, rec in ch["tasks"].items()]
        out.append(Table(["task", "indirect cost per interrupt", "verdict", "of which after the signal's chunk",
                          "recovery", "rounds"], rows,
                         "Interrupts: indirect cost per interrupt where it is paid (each task's chunks after a signal "
                         "against the same chunks without the timer, minus the spin's: D = "
                         f"{fmt_effect(ch['D'])}; Hodges-Lehmann over rounds, 95% CI)"))
    return out


KIND = Kind("irq", "Interrupt servicing overhead", _is_irq, render_irq, order=60)
