"""Which part of the report a result belongs to, and how that part is drawn.

A kind = a name, a matcher (does this result belong here?) and a renderer
(results of that kind + their environment -> tables and figures). The
report asks the kinds in order; the first match wins; a result no kind
claims is shown in a generic table. The command that wrote a document
(its own section, model.Document.command) wins over the matchers, which
go by the result's kind in the schema (core/schema.py).

A new command's part of the report is one line in KINDS below:

    Kind("sweep", "Indirect cost: working-set sweep", _is_sweep, render_sweep),

where render_sweep(results, env) -> list of Table/Figure (see render_run).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional

from ctxbench.core import schema
from ctxbench.core.model import Result, Summary
from ctxbench.run import table
from ctxbench.ui.format import fmt_effect, fmt_time
from ctxbench.ui.figures import png_bytes
from ctxbench.report.model import Figure, Table


def _id(r: dict) -> str:
    return Result(r).id


def _p(r: dict):
    return Result(r).params


@dataclass
class Kind:
    name: str
    title: str
    match: Callable[[dict], bool]
    render: Optional[Callable[[list, dict], list]] = None  # None: the generic table


# ---- cells shared by every table -------------------------------------------

def median_ci(r: dict | Summary) -> str:
    s = r if isinstance(r, Summary) else Result(r).summary
    med, ci = s.median, s.ci95
    if not math.isfinite(med):
        return "n/a"
    if not all(map(math.isfinite, ci)):
        return fmt_time(med)
    return f"{fmt_time(med)} ± {fmt_time((ci[1] - ci[0]) / 2)}"


def spread(r: dict) -> list[str]:
    s = Result(r).summary
    return [f"{fmt_time(s.min)} … {fmt_time(s.max)}",
            f"{s.cv:.1%}" if math.isfinite(s.cv) else "n/a", str(s.n)]


def verified(r: dict) -> str:
    return Result(r).verified[0]


# ---- run: the direct-cost table and figure ----------------------------------

def _schema_kind(r: dict) -> str:
    k = schema.kind_of(r)
    return k.name if k else ""


def _is_run(r: dict) -> bool:
    return _schema_kind(r) in ("timer", "baseline", "switch", "selftest", "boost") and not _is_sweep(r)


def render_run(rs: list[dict], env: dict) -> list:
    """The direct-cost table, in table.py's sections, and the cost figure."""
    out: list = []
    order = [t for _, _, t in table.SECTIONS] + ["Other"]
    by: dict = {}
    for r in rs:
        by.setdefault(table._section(r), []).append(r)
    for title in order:
        if by.get(title):
            out.append(Table(["id", "median ± 95% CI", "min … max", "CV", "n", "verified"],
                             [[_id(r), median_ci(r), *spread(r), verified(r)] for r in by[title]], title))
    from ctxbench.run import figures as run_fig
    fig = run_fig.figure(rs, env)
    if fig is not None:
        out.append(Figure("Direct cost and wake-up latency", png_bytes(fig),
                          "median with its 95% bootstrap CI over the kept samples"))
    return out


# ---- ring ---------------------------------------------------------------------

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


# ---- anatomy ------------------------------------------------------------------

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


# ---- kinds built by other commands: matched now, figures plugged in later ----

def _is_sweep(r: dict) -> bool:
    # a sweep point has a working set (stride-0 points too: their size is
    # set) or its indirect cost; outside a sweep file, the size tells
    return "indirect" in r or (_schema_kind(r) in ("switch", "selftest") and bool(_p(r).size))


def _figures(named: list[tuple[str, object]], caption: str) -> list:
    """(name, matplotlib figure) pairs as the report's PNG figures."""
    return [Figure(name, png_bytes(fig), caption) for name, fig in named if fig is not None]


def render_sweep(rs: list[dict], env: dict) -> list:
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
    same counts as the command's summary, from the stored indirect costs)."""
    from ctxbench.sweep import analysis as sweep_analysis
    from ctxbench.sweep.plan import key
    rows = []
    for bid in sorted({key(r)[0] for r in rs if key(r)}):
        c = sweep_analysis.counts(rs, bid)
        zero = (f"{'ok' if c['zero_family_ok'] == c['zero'] else 'FAILED'}: {c['zero_family_ok']} of {c['zero']} "
                f"within simultaneous 95% intervals; {c['zero_ok']} own 95% intervals contain 0; resolution "
                f"{fmt_time(c['zero_mde'])}") if c["zero"] else "-"
        rows.append([bid, fmt_time(sweep_analysis.direct_cost(rs, bid)), str(c["points"]), str(c["resolved"]),
                     str(c["below_mde"]), str(c["neither"]), str(c["no_mde"]), zero])
    return Table(["mechanism", "direct (stride 0)", "strided points", "resolved", "below MDE", "neither", "n/a",
                  "stride-0 check (should be 0)"], rows,
                 "Sweep: points resolved (95% interval excludes 0) or below their minimum detectable effect, "
                 "and the stride-0 check (every stride-0 point is the same configuration: 0 at once)")


def _part_ci(s: Summary | None, scale: float = 1e6, unit: str = "ms") -> str:
    if not s or not math.isfinite(s.mean):
        return "n/a"
    ci = s.ci95
    txt = f"{s.mean / scale:.3f} {unit}"
    if all(map(math.isfinite, ci)):
        txt += f" [{ci[0] / scale:.3f}, {ci[1] / scale:.3f}]"
    return txt


def render_tasks(rs: list[dict], env: dict) -> list:
    """Seed 000 Figures 2 and 3 and a row per (pair, n)."""
    from ctxbench.tasks import analysis as tasks_analysis
    from ctxbench.tasks import figures as tasks_plots
    pts = [r for r in rs if isinstance(r.get("parts"), dict) and "pair" in _p(r)]
    by_pair: dict = {}
    for r in sorted(pts, key=lambda r: _p(r).get("n", 0)):
        by_pair.setdefault(_p(r)["pair"], []).append(r)
    runs = tasks_analysis.runs_in(rs)  # the per-switch effects, re-derived from the runs the file keeps
    per = {pair: tasks_analysis.analyse_pair(*rr)["summary"] for pair, rr in runs.items()}
    out: list = []
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
    if per:
        out.append(Table(["pair", "indirect cost per switch", "MDE", "paid by each task", "the switch itself",
                          "one more switch, by n", "C", "rounds"],
                         [[pair, fmt_effect(s["per_switch"]), fmt_time(s["per_switch"]["mde_ns"]),
                           "; ".join(f"{t}: {fmt_effect(e)}" for t, e in s["per_task"].items()),
                           fmt_effect(s["switch_inflation"]), tasks_analysis.marginal_text(s), fmt_effect(s["C"]),
                           str(s["rounds"])]
                          for pair, s in per.items()],
                         "Task pairs: indirect cost per switch (slope of R'_total over n minus the empty "
                         "pair's; 95% CI: bootstrap of whole rounds; 'below X': under the minimum "
                         "detectable effect X)"))
    used = {id(r) for r in pts} | {id(r) for rr in runs.values() for r in rr}
    other = [r for r in rs if id(r) not in used]
    if other:
        out += render_generic(other, env)
    return out


def render_irq(rs: list[dict], env: dict) -> list:
    """Seed 000 Figure 5 and a row per (task, rate)."""
    from ctxbench.irq.figures import NAME, figure5
    direct = next((r for r in rs if _id(r) == "irq/direct"), None)
    pts = [r for r in rs if isinstance(r.get("parts"), dict) and "task" in _p(r)]
    by_task: dict = {}
    for r in sorted(pts, key=lambda r: _p(r).get("rate_hz", 0)):
        by_task.setdefault(_p(r)["task"], []).append(r)
    out: list = []
    if by_task and direct:
        out += _figures([(NAME, figure5(by_task, env, direct.get("summary") or {}))],
                        "I per task and rate; bars: 95% CI (a small difference of large numbers)")
    def i_cell(r):  # a run whose known-zero control failed derives no result (irq/analysis.py)
        i = (r.get("parts") or {}).get("I")
        untrusted = isinstance(i, dict) and i.get("trusted") is False
        return ("untrusted: " if untrusted else "") + _part_ci(Result(r).parts.get("I"))
    rows = [[str(_p(r).task), str(_p(r).rate_hz), _part_ci(Result(r).parts.get("R_task")), i_cell(r)]
            for r in pts]
    out.append(Table(["task", "rate (Hz)", "R_task", "I = R' - R - nD"], rows,
                     "Interrupts: indirect cost of n timer signals (David et al. 2007)"
                     + (f"; the gap loop's D = {median_ci(direct)} (I uses D at the level the spin pays: irq/calibration.py)"
                        if direct else "")))
    return out


def render_noise(rs: list[dict], env: dict) -> list:
    from ctxbench.noise.figures import NAME, noise_histogram
    out: list = []
    for r in rs:
        nz = Result(r).noise
        out += _figures([(NAME, noise_histogram(nz, env, _p(r).get("noise_cpu"), r.get("summary")))],
                        "gaps seen by a tight timer-reading loop on the pinned CPU")
        out.append(Table(["CPU", "gaps", "threshold", "total lost", "longest"],
                         [[str(_p(r).get("noise_cpu")), str(nz.get("count")), fmt_time(nz.get("threshold_ns")),
                           fmt_time(nz.get("total_ns")), fmt_time(nz.get("longest_ns"))]],
                         "System noise"))
    return out


def _is_tasks(r: dict) -> bool:
    return _schema_kind(r) in ("tasks-run", "tasks-point")


def _is_irq(r: dict) -> bool:
    return _schema_kind(r) in ("irq-direct", "irq-run", "irq-point")


def _is_noise(r: dict) -> bool:
    return _schema_kind(r) == "noise"


# ---- generic -----------------------------------------------------------------

def render_generic(rs: list[dict], env: dict) -> list:
    skip = {"policy", "policy_requested", "cpu", "pinned", "groups", "iterations", "t_single", "formula", "n_is"}
    rows = []
    for r in rs:
        ps = ", ".join(f"{k}={v}" for k, v in sorted(_p(r).items()) if k not in skip and not isinstance(v, (dict, list)))
        rows.append([_id(r), str(r.get("quantity", "")), ps, median_ci(r), *spread(r), verified(r)])
    return [Table(["id", "quantity", "params", "median ± 95% CI", "min … max", "CV", "n", "verified"], rows)]


KINDS: list[Kind] = [
    Kind("run", "Direct cost (ctxbench run)", _is_run, render_run),
    Kind("ring", "Process working set: ring of N parties (ctxbench ring)", _is_ring, render_ring),
    Kind("anatomy", "Anatomy of a switch (ctxbench anatomy)", lambda r: False, render_anatomy),
    Kind("sweep", "Indirect cost: working-set and stride sweep", _is_sweep, render_sweep),
    Kind("tasks", "Indirect cost: task pairs with n switches", _is_tasks, render_tasks),
    Kind("irq", "Interrupt servicing overhead", _is_irq, render_irq),
    Kind("noise", "System noise on the measured CPU", _is_noise, render_noise),
]
GENERIC = Kind("other", "Other results", lambda r: True, render_generic)


# commands whose results one part of the report shows (the others: their own name)
_COMMAND_KIND = {"userbench": "run"}


def classify(result: dict, command: Optional[str] = None) -> Kind:
    """The part of the report a result belongs to: the one of the command
    that wrote it if known, else the first matcher that claims it, else the
    generic table."""
    if command:
        for k in KINDS:
            if k.name == _COMMAND_KIND.get(command, command):
                return k
    for k in KINDS:
        if k.match(result):
            return k
    return GENERIC


def render(kind: Kind, rs: list[dict], env: dict) -> list:
    return (kind.render or render_generic)(rs, env)
