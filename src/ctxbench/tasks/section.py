"""The task pairs' part of the report: David et al. 2007 Figures 2 and 3,
a row per (pair, n) and the indirect cost per switch. Found by the report
(report/kinds.py) as this package's `section` module."""
from __future__ import annotations

from ctxbench.core.model import Result
from ctxbench.core.results import member
from ctxbench.ui.twin import fmt_twin, mde_note
from ctxbench.report.cells import _figures, _p, _part_ci, _schema_kind, not_kept, verified
from ctxbench.report.kinds import Kind, render_generic
from ctxbench.report.model import Table


def _is_tasks(r: dict) -> bool:
    return _schema_kind(r) in ("tasks-run", "tasks-point")


NOT_KEPT = not_kept("The per-switch effects (tasks.per_pair)", "the runs it keeps")


def _kept_per_pair(sections: list) -> dict:
    """The pairs' per-switch effects as the command kept them (its
    sections' per_pair), never derived again here."""
    per: dict = {}
    for sec in sections:
        per.update(member(sec, "per_pair") or {})
    return per


def render_tasks(rs: list[dict], env: dict, sections: list) -> list:
    """David et al. 2007 Figures 2 and 3 and a row per (pair, n)."""
    from ctxbench.tasks import analysis as tasks_analysis
    from ctxbench.tasks import figures as tasks_plots
    pts = [r for r in rs if Result(r).derived and "pair" in _p(r)]
    by_pair: dict = {}
    for r in sorted(pts, key=lambda r: _p(r).get("n", 0)):
        by_pair.setdefault(_p(r)["pair"], []).append(r)
    runs = tasks_analysis.runs_in(rs)  # the runs the file keeps: shown through per_pair, not in the generic table
    per = _kept_per_pair(sections)
    out: list = [] if per or not runs else [NOT_KEPT]
    if by_pair:
        maxcv = tasks_analysis.max_cv(pts)
        out += _figures([(tasks_plots.FIG2, tasks_plots.figure2(by_pair, env, maxcv, per)),
                         (tasks_plots.FIG3, tasks_plots.figure3(by_pair, env, maxcv, per))],
                        "mean of the repeats; bars: 95% CI; Max CV over all points in the title")
    rows = [[str(_p(r).pair), str(_p(r).n), _part_ci(Result(r).parts.get("R_prime")),
             _part_ci(Result(r).parts.get("C"), 1e3, "µs"), _part_ci(Result(r).parts.get("I")), verified(r)]
            for r in pts]
    out.append(Table(["pair", "n", "R'_total", "C", "I = R' - (R - C) - nC", "verified"], rows,
                     "Task pairs: indirect cost of n switches (David et al. 2007)"))
    chunked = {pair: s for pair, s in per.items() if s.get("chunks")}
    if chunked:
        from ctxbench.ui.recovery import recovered_text
        out += _figures([(tasks_plots.RECOVERY, tasks_plots.recovery(chunked, env))],
                        "excess per chunk after a switch-in; band: 95% interval over rounds")
        rows = []
        for pair, s in chunked.items():
            ch = s["chunks"]
            names = dict(zip("ab", list(s["per_task"])[:2]))
            rows.append([pair, fmt_twin(ch["per_switch"]), mde_note(ch["per_switch"]),
                         "; ".join(f"{names[r]}: {fmt_twin(ch['paid_by'][r])}" for r in "ab"),
                         fmt_twin(ch["switch_inflation"]),
                         "; ".join(f"{names[r]}: {recovered_text(ch['curve'][r])}" for r in "ab"),
                         "; ".join(f"n = {n}: in full {fmt_twin(b['in_full'])}, whole runs "
                                   f"{fmt_twin(b['whole_runs'])}: {b['agreement']['verdict']}"
                                   for n, b in ch["by_n"].items() if b.get("whole_runs")),
                         str(ch["rounds"])])
        out.append(Table(["pair", "indirect cost per switch", "MDE (the verdict's unit)", "paid by each task",
                          "the switch itself", "recovery", "cross-check: in full vs whole runs, by n", "rounds"], rows,
                         "Task pairs: indirect cost per switch where it is paid (each task's chunks after a "
                         "switch-in against the same chunks of the round's n = 1 run; Hodges-Lehmann over rounds, "
                         "95% CI: bootstrap of whole rounds)"))
    if per:
        out.append(Table(["pair", "indirect cost per switch", "MDE (the verdict's unit)", "paid by each task",
                          "the switch itself", "one more switch, by n", "C", "rounds"],
                         [[pair, fmt_twin(s["per_switch"]), mde_note(s["per_switch"]),
                           "; ".join(f"{t}: {fmt_twin(e)}" for t, e in s["per_task"].items()),
                           fmt_twin(s["switch_inflation"]), tasks_analysis.marginal_text(s), fmt_twin(s["C"]),
                           str(s["rounds"])]
                          for pair, s in per.items()],
                         "Task pairs, the seed's design (the cross-check): indirect cost per switch as the slope of "
                         "R'_total over n minus the empty pair's; 95% CI: bootstrap of whole rounds; 'below X': under "
                         "the minimum "
                         "detectable effect X; each in ns or core cycles, whichever unit's MDE is smaller)"))
    used = {id(r) for r in pts} | {id(r) for rr in runs.values() for r in rr}
    other = [r for r in rs if id(r) not in used]
    if other:
        out += render_generic(other, env, sections)
    return out


KIND = Kind("tasks", "Indirect cost: task pairs with n switches", _is_tasks, render_tasks, order=50)
