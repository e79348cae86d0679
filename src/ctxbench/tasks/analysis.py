"""David et al.'s task pairs (docs/method.md#task-pairs), measured so that
the answer resolves: the n values and the empty pair interleaved in
rounds, fitted.

One engine job per pair measures R'_total at every n of a list, one of
each per round (group), in an order rotated from round to round; the empty
pair (the switch alone) is measured the same way in the same rounds. Then:

    C          = slope of the empty pair's R'_total against n (one switch)
    b          = slope of the pair's R'_total against n (a switch and
                 what it costs the tasks afterwards)
    per switch = b - C: the indirect cost of one switch
    per task   = slope of each task's own summed segment time against n:
                 the part of it each task pays (per switch of the pair)
and, per n, David et al.'s quantities:
    R_total    = R'_total at n = 1
    I(n)       = R'_total(n) - (R_total - C) - n*C  = R'(n) - R'(1) - (n-1)C
    I_task_a/b = each task's own segments at n minus at n = 1
    I_switch   = I - I_task_a - I_task_b

A single difference R'(99) - R'(1) is a hundredth of the run-to-run noise of
a 300 ms run; a slope over thousands of switches, in rounds that share the
machine's state, is not. Every interval is a percentile bootstrap of whole
rounds (pair and empty pair together), so the drift between rounds is in
it; every effect carries its minimum detectable effect (stats.power).
"""
from __future__ import annotations

from typing import NamedTuple

import math

import numpy as np

from ctxbench.core import cycles, model
from ctxbench.records import RECORDS
from ctxbench.stats import power, resample
from ctxbench.stats import summary as stats
from ctxbench.tasks import chunked
from ctxbench.ui.twin import fmt_twin


def kept_rows(result: dict) -> tuple[np.ndarray, list[dict]]:
    """Indices of the samples to use, and warnings. Disturbed runs (the
    model's verdict) are dropped while at least two remain; otherwise all
    are used, with a warning."""
    keep = model.Result(result).keep
    n = len(keep)
    idx = np.array([i for i, k in enumerate(keep) if k], dtype=int)
    warns = []
    if n and len(idx) < n:
        if len(idx) >= 2:
            warns.append(model.warning("disturbed_runs", f"{n - len(idx)} of {n} runs disturbed (other load on "
                                       "the CPU); left out", disturbed=n - len(idx), runs=n, used="clean"))
        else:
            warns.append(model.warning("disturbed_runs", f"{n - len(idx)} of {n} runs disturbed (other load on "
                                       "the CPU); too few clean runs, all used", disturbed=n - len(idx), runs=n,
                                       used="all"))
            idx = np.arange(n)
    return idx, warns


TIMES = ("total", "a", "b")  # the columns in ns (in cycles: times their round's f)


def table(result: dict) -> tuple[dict[str, np.ndarray], list[dict]]:
    """The kept runs of one job as columns: n, total, a, b, round, and f
    (the core clock beside the run, cycles per ns: the engine's reading
    before and after it, else its group's; nan without a probe reading)."""
    idx, warns = kept_rows(result)
    r = model.Result(result)
    cols = {"total": r.raw("t_total_ns"), "a": r.raw("t_task_a_ns"), "b": r.raw("t_task_b_ns"),
            "n": r.raw("n")}
    if not cols["n"].size:  # a job measured at one n (--n)
        cols["n"] = np.full(len(r.samples), float(r.params.get("n") or 1))
    g = r.groups
    cols["round"] = np.asarray(g if g is not None else range(len(r.samples)))
    probe = cycles.probe_of(result)
    clock = cycles.group_clock(probe)
    cols["f"] = np.array([clock.get(int(x), math.nan) for x in cols["round"]], dtype=float)
    own, ops = r.raw("clock_ns"), probe.get("ops")  # the engine's reading beside each run, where it took one
    if own.size == cols["f"].size and isinstance(ops, (int, float)) and np.all(own > 0):
        cols["f"] = ops / own
    if set(cols["n"][idx]) != set(cols["n"]):  # an n with no clean run left: keep them all, and say so
        idx = np.arange(len(r.samples))
        warns = [model.warning("disturbed_runs", "every run at some n was disturbed (other load on the CPU): "
                               "all runs used; the result is not verified", used="all")]
    return {k: (v[idx] if v.size else v) for k, v in cols.items()}, warns


def _stats(P: dict, E: dict, ns: list[int], ip: np.ndarray, ie: np.ndarray) -> np.ndarray:
    """Everything estimated, from the rows ip of the pair and ie of the empty
    pair: [C, b, slope_a, slope_b, then per n: mean total, mean a, mean b]."""
    out = [power.ols_slope(E["n"][ie], E["total"][ie]), power.ols_slope(P["n"][ip], P["total"][ip]),
           power.ols_slope(P["n"][ip], P["a"][ip]), power.ols_slope(P["n"][ip], P["b"][ip])]
    pn = P["n"][ip]
    for n in ns:
        m = pn == n
        for k in ("total", "a", "b"):
            out.append(float(P[k][ip][m].mean()) if m.any() else math.nan)
    return np.asarray(out, dtype=float)


def _summary(e: dict, rounds: int) -> dict:
    """A derived part (an effect, with its twin in cycles where there is
    one) as the summary-shaped dict the tables and figures read (mean,
    median, ci95, stdev of the estimate, in ns), with its MDE, and the twin's
    members (cycles, ghz, mde_ratio, unit)."""
    est, se = e["estimate_ns"], e["se_ns"]
    out = {"n": rounds, "mean": est, "median": est, "stdev": se,
           "cv": se / abs(est) if est else math.nan, "ci95": e["ci95"], "ci95_of": "mean", "mde": e["mde_ns"],
           "below_mde": e["below_mde"], "method": e["method"] + " (pair and empty pair drawn together)"}
    out.update({k: e[k] for k in ("estimate_ns", "se_ns", "mde_ns", "resolved", "df", "cycles", "cycles_why", "ghz",
                                  "mde_ratio", "unit") if k in e})
    return out


def _in_cycles(T: dict) -> dict | None:
    """A table's times in core cycles (each run's ns times its group's f);
    None where a run has no clock."""
    if not T["f"].size or not np.isfinite(T["f"]).all():
        return None
    return dict(T, **{k: T[k] * T["f"] for k in TIMES})


def _linear(eff, ns: list[int], at: dict) -> dict:
    """Is I linear in n? The cost of one more switch over the first
    interval of n against over the last (both minus C, which cancels):
    their difference as an effect (`eff`: a statistic of the rounds ->
    its effect and twin); resolved (in the unit its verdict uses) means the
    per-switch cost changes with n and the slope is an average over the
    range, not a constant."""
    if len(ns) < 3:
        return {"checked": False}
    (a, b), (c, d) = ns[:2], ns[-2:]

    def f(s):
        return (s[at[b]] - s[at[a]]) / (b - a) - (s[at[d]] - s[at[c]]) / (d - c)
    e = eff(f)
    return dict(e, checked=True, first=[a, b], last=[c, d], linear=not cycles.chosen(e)["resolved"])


class PairAnalysis(NamedTuple):
    """One pair's analysis: `effects` (per switch, per task, C, the
    switch's inflation, rounds: the file's tasks.per_pair record) and
    David et al.'s points (derived results, one per n)."""
    effects: dict
    points: list


class _Rounds:
    """One pair's statistics over its rounds, and their draws (whole rounds
    resampled, the same draws in ns and in core cycles): what every effect
    of the pair is made from (`effect`: a statistic of the rounds' means ->
    its effect and cycles twin)."""

    def __init__(self, P: dict, E: dict, ns: list[int], ghz, resamples: int):
        self.ns, self.ghz = ns, ghz
        self.labels, draws = power.round_draws(np.concatenate([P["round"], E["round"]]), resamples)
        self.rounds = int(self.labels.size)
        jp, je = power.rows_by_round(P["round"]), power.rows_by_round(E["round"])
        self.est, self.boot = self._both(P, E, jp, je, draws)
        # the same in core cycles: each run's ns times its group's f (core/cycles.py)
        Pc, Ec = _in_cycles(P), _in_cycles(E)
        self.estc, self.bootc = self._both(Pc, Ec, jp, je, draws) if Pc is not None and Ec is not None \
            else (None, None)
        self.why = cycles.NO_PROBE if self.estc is None else ""
        self.at = {n: 4 + 3 * i for i, n in enumerate(ns)}  # column of n's mean total
        self.c1 = self.at[1]

    def _both(self, Pt, Et, jp, je, draws):
        """Every statistic and its draws."""
        e0 = _stats(Pt, Et, self.ns, np.arange(Pt["n"].size), np.arange(Et["n"].size))
        return e0, np.array([_stats(Pt, Et, self.ns, power.rows_of(jp, d), power.rows_of(je, d)) for d in draws])

    def effect(self, fn, share: bool = False) -> dict:
        """The statistic fn of the rounds as an effect, with its twin in
        cycles (not for a share of the run, `share`: a ratio has no unit)."""
        ns_e = power.effect(float(fn(self.est)), np.array([fn(b) for b in self.boot]), self.rounds)
        if share:
            return dict(ns_e, unit="ns", cycles=None, cycles_why="a share of the run has no unit")
        c_e = power.effect(float(fn(self.estc)), np.array([fn(b) for b in self.bootc]), self.rounds) \
            if self.estc is not None else None
        return cycles.twin(ns_e, c_e, self.ghz, self.why)

    def part(self, fn, share: bool = False) -> dict:
        return _summary(self.effect(fn, share), self.rounds)

    def whole_run(self, g, n):
        """The whole-run statistic g(I(n)) and its draws (the same rounds'
        draws the chunk effects use: tasks/chunked.py's cross-check)."""
        k, c1 = self.at[n], self.c1

        def i_of(s):
            return s[k] - s[c1] - (n - 1) * s[0]
        return g(float(i_of(self.est))), g(np.array([i_of(b) for b in self.boot]))


def _task_names(pair: str) -> tuple[str, str]:
    ta, tb = pair.split("+")[:2] if "+" in pair else ("a", "b")
    if ta == tb:  # the empty pair (known answers): name them by role
        ta, tb = f"{ta} (a)", f"{tb} (b)"
    return ta, tb


def _pair_effects(R: _Rounds, pair: str) -> dict:
    """The pair's record: per switch, per task, C, the switch's inflation."""
    ta, tb = _task_names(pair)
    ns, at, eff = R.ns, R.at, R.effect
    # The cost of one more switch between successive n: the slope is one number
    # only if I grows linearly with n. It need not: the more often the tasks
    # switch, the less each touches between two switches, so the less the other
    # evicts (one default run here, sort+deflate: 3.0 us per switch from n = 1 to
    # 1000, 0.9 from 1000 to 2000, 0.2 from 2000 to 4000, slope 979 ns).
    marginal = [dict(eff(lambda s, lo=lo, hi=hi: (s[at[hi]] - s[at[lo]]) / (hi - lo) - s[0]), n_from=lo, n_to=hi)
                for lo, hi in zip(ns, ns[1:])]
    return {
        "pair": pair, "rounds": R.rounds, "n_values": ns,
        "per_switch": eff(lambda s: s[1] - s[0]),
        "marginal": marginal,
        "linear": _linear(eff, ns, at),
        "per_task": {ta: eff(lambda s: s[2]), tb: eff(lambda s: s[3])},
        "switch_inflation": eff(lambda s: s[1] - s[0] - s[2] - s[3]),
        "C": eff(lambda s: s[0]),
        "slope": eff(lambda s: s[1]),
        "R_total_ns": float(R.est[R.c1]),
        "R_total_cycles": float(R.estc[R.c1]) if R.estc is not None else None,
        "ghz": R.ghz,
    }


def _pair_warnings(wp: list[dict], we: list[dict], per_switch: dict) -> list[dict]:
    warns = list({(w["code"], w["text"]): w for w in wp + we}.values())  # each once
    if cycles.chosen(per_switch)["resolved"] and per_switch["estimate_ns"] < 0:
        warns.append(model.warning("negative_indirect", "negative indirect cost per switch whose interval "
                                   "excludes 0 (printed as measured): the empty pair's switch (C) costs more "
                                   "than the pair's; a disturbed empty pair or a task that runs faster when "
                                   "split are the candidates", per_switch_ns=per_switch["estimate_ns"]))
    return warns


def _point_parts(R: _Rounds, P: dict, n: int) -> dict:
    """David et al.'s parts of the point with n switches."""
    k, c1, part = R.at[n], R.c1, R.part
    parts = {
        "R_total": part(lambda s: s[c1]),
        "R_prime": stats.summarize(P["total"][P["n"] == n]),
        "C": part(lambda s: s[0]),
        "direct": part(lambda s: n * s[0]),
        "I": part(lambda s: s[k] - s[c1] - (n - 1) * s[0]),
        "I_pct": part(lambda s: 100.0 * (s[k] - s[c1] - (n - 1) * s[0]) / s[c1], share=True),
        "I_task_a": part(lambda s: s[k + 1] - s[c1 + 1]),
        "I_task_b": part(lambda s: s[k + 2] - s[c1 + 2]),
        "I_switch": part(lambda s: (s[k] - s[c1] - (n - 1) * s[0]) - (s[k + 1] - s[c1 + 1])
                         - (s[k + 2] - s[c1 + 2])),
        "task_a_time": stats.summarize(P["a"][P["n"] == n]),
        "task_b_time": stats.summarize(P["b"][P["n"] == n]),
    }
    if n == 1:  # by construction: R'_total(1) is R_total
        for q in ("I", "I_pct", "I_task_a", "I_task_b", "I_switch"):
            parts[q] = dict(parts[q], mean=0.0, median=0.0)
    return parts


def _point(R: _Rounds, P: dict, Pc: dict | None, n: int, pair_result: dict, warns: list[dict]):
    """The derived result of the pair with n switches."""
    parts = _point_parts(R, P, n)
    pw = list(warns)
    if n > 1 and parts["I"]["mean"] < 0 and not cycles.chosen(parts["I"])["below_mde"]:
        pw.append(model.warning("negative_indirect", "negative indirect cost I above its MDE (printed as "
                                "measured)", I_ns=parts["I"]["mean"], mde_ns=parts["I"].get("mde_ns")))
    pair = str(model.Result(pair_result).params.get("pair"))
    p = dict(model.Result(pair_result).params.items())
    p.update({"pair": pair, "n": n, "rounds": R.rounds})
    at_n = P["n"] == n
    return RECORDS.result({
        "id": f"tasks/{pair}/n={n}", "quantity": "run", "unit": "ns",
        "doc": "R'_total of the pair with n switches, and I, C and breakdown as in David et al. 2007",
        "params": p, "samples": [float(x) for x in P["total"][at_n]],
        "summary": parts["R_prime"], "parts": parts, "cv_R_prime": parts["R_prime"]["cv"],
        "cycles": _point_cycles(Pc, at_n, pair_result),
        "warnings": pw,
    })


def analyse_pair(pair_result: dict, empty_result: dict, resamples: int = resample.RESAMPLES) -> PairAnalysis:
    """Per-switch and per-task effects and David et al.'s points for one pair."""
    P, wp = table(pair_result)
    E, we = table(empty_result)
    pair = str(model.Result(pair_result).params.get("pair"))
    ns = sorted({int(x) for x in P["n"]})
    if 1 not in ns:
        raise ValueError("the n = 1 runs (R_total) are missing")
    ghz = cycles.run_ghz([cycles.group_clock(cycles.probe_of(x)) for x in (pair_result, empty_result)])
    R = _Rounds(P, E, ns, ghz, resamples)
    summary = _pair_effects(R, pair)
    summary["chunks"] = chunked.analyse(pair_result, empty_result, R.labels, R.whole_run, resamples)
    if summary["chunks"] is None:
        summary["chunks_why"] = chunked.why_none(pair_result)
    warns = _pair_warnings(wp, we, summary["per_switch"])
    Pc = _in_cycles(P)
    return PairAnalysis(summary, [_point(R, P, Pc, n, pair_result, warns) for n in ns])


# the members of a pair's per_pair record that are the command's plan for it, not its analysis
# (tasks/command.py: the pilot's, and the rounds it chose, which stand over the effects' own count)
PLAN = ("pilot_rounds", "round_s", "rounds", "planned_mde_ns", "planned_mde_whole_runs_ns")


class Derived(NamedTuple):
    """What tasks derives from its pairs' runs: each pair's points, each
    pair's per_pair record (its effects and its plan), all the points and
    their largest CV of R'_total."""
    by_pair: dict
    per_pair: dict
    points: list
    max_cv: float


def derive(runs: dict[str, tuple[dict, dict]], plan: dict[str, dict]) -> Derived:
    """Every pair analysed from its runs (its job and its empty pair's, in
    `runs`' order) as the command keeps it: the points, and per pair its
    effects with the plan it was measured to (`plan`: PLAN's members).
    The command when it measures and `ctxbench reanalyse` both call it."""
    by_pair, per_pair, points = {}, {}, []
    for pair, (pair_result, empty_result) in runs.items():
        a = analyse_pair(pair_result, empty_result)
        by_pair[pair] = a.points
        per_pair[pair] = dict(a.effects, **plan.get(pair, {}))
        points += a.points
    return Derived(by_pair, per_pair, points, max_cv(points))


def _point_cycles(Pc: dict | None, at_n: np.ndarray, result: dict) -> dict:
    """A point's R'_total in core cycles (the `cycles` member model.Result
    reads): its runs' ns times their groups' f, resampled by round."""
    if Pc is None:
        return {"applies": False, "why": cycles.NO_PROBE}
    probe = cycles.probe_of(result)
    return {"applies": True, "unit": cycles.UNIT, "method": cycles.method(probe),
            "summary": stats.summarize(Pc["total"][at_n], Pc["round"][at_n])}


def max_cv(points: list[dict]) -> float:
    cvs = [cv for cv in (model.Result(p).parts["R_prime"].cv for p in points) if math.isfinite(cv)]
    return max(cvs) if cvs else math.nan


EMPTY_WITH = "tasks/empty+empty/with="


def runs_in(results: list[dict]) -> dict[str, tuple[dict, dict]]:
    """The runs a tasks file keeps, by pair: (the pair's job, its empty
    pair's job `tasks/empty+empty/with=<pair>`). A file written before the
    runs were kept has only the empty pair's: no entry."""
    empty = {model.Result(r).id[len(EMPTY_WITH):]: r for r in results if model.Result(r).id.startswith(EMPTY_WITH)}
    out = {}
    for r in results:
        v = model.Result(r)
        pair = str(v.params.pair or "")
        if pair in empty and r is not empty[pair] and not v.derived and v.raw("t_total_ns").size:
            out[pair] = (r, empty[pair])
    return out


def marginal_text(summary: dict) -> str:
    """One line: the cost of one more switch over each interval of n, and
    whether I is linear in n (tables of the command and the report)."""
    parts = [f"{m['n_from']}->{m['n_to']}: {fmt_twin(m)}" for m in summary.get("marginal") or []]
    lin = summary.get("linear") or {}
    if not lin.get("checked"):
        return "; ".join(parts)
    if lin["linear"]:
        tail = "I linear in n within its resolution: the slope is the cost of every switch in this range"
    else:
        d = lin["estimate_ns"]
        tail = (f"NOT linear in n (first interval minus last: {fmt_twin(lin)}): one switch costs "
                f"{'less' if d > 0 else 'more'} the more often the tasks switch, so the slope is an average "
                f"over n = {lin['first'][0]}..{lin['last'][1]}, not a constant")
    return "; ".join(parts) + "; " + tail
