"""Interrupts, per task and rate (docs/method.md#interrupts), from rounds.

A round is one group of the engine's interleaved run: every task at every
rate once (a sample = the task without and with the timer, back to back),
and after each pair D by the gap loop. Rounds are the unit of resampling
(stats.power), so the drift between rounds, and D's own uncertainty, are
in every interval. With D_g the mean of the gap-loop D over round g and
delta the gap loop's offset from what a loop in registers pays per signal
(irq/calibration.py: the gap loop charges more than the runs pay):

    y        = R' - R                    (per sample)
    slope    = dy/dk over all rates       (D + the indirect cost per interrupt)
    delta    = d(y_spin - k * D_g)/dk     (the spin's slope minus the gap loop's D)
    I        = mean(y - k * (D_g + delta))  (per task and rate, David et al.'s I)
    per_int  = d(y - k * D_g)/dk - delta  (the task's slope minus the spin's)

A task cannot run faster for being interrupted: an I below zero with an
interval that excludes zero is a failed self-check, reported as such, never
as a finding.

The run's own control is irq/spin, a loop in registers measured in the
same rounds: it has nothing to refill, so its I must be zero at every rate
(delta sets only its slope; its I's test the rest: the pairing of the plain
and interrupted runs, and one cost per signal at every rate). When they are
not zero, every task's I carries the same bias: each is marked untrusted,
with the reason, and is not a result.

Every effect is computed twice from the same rounds and draws: in ns, and
in core cycles (each run's ns times its round's clock f, from the engine's
core-clock probe; core/cycles.py). A record keeps the ns effect and its
twin in cycles, and its verdicts (resolved, below MDE, the self-check, the
control) use the unit whose MDE is smaller (`unit`, `mde_ratio`)."""
from __future__ import annotations

import math

import numpy as np

from ctxbench.core import chunks, cycles, model
from ctxbench.irq import chunked
from ctxbench.records import RECORDS
from ctxbench.irq.calibration import Draws, Offset
from ctxbench.stats import power
from ctxbench.stats import summary as stats
from ctxbench.ui.twin import fmt_in

AGREE = 0.10  # D and the rate slope agree when they differ by at most this fraction of D
FIELDS = ("rate_hz", "r_task_ns", "r_prime_ns", "interrupts", "overruns", "expirations", "d_ns", "d_dropped",
          "waited_ns", "waited_prime_ns", "switches", "switches_prime")
TIMES = ("r_task_ns", "r_prime_ns", "d_ns", "waited_ns", "waited_prime_ns")  # in cycles: times the run's f
CLOCK = "clock_ghz"  # a point's raw per-run core clock (its round's f), for re-deriving the cycles
# the clock beside each of a sample's two runs (the engine's readings before, between and after
# them; files before it have the round's only), kept by a point as the run's GHz
RUN_CLOCKS = {"f_plain": ("clock_ns", "clock_plain_ghz"), "f_prime": ("clock_prime_ns", "clock_prime_ghz")}
PLAIN_TIMES, PRIME_TIMES = ("r_task_ns", "waited_ns"), ("r_prime_ns", "waited_prime_ns")


def rows(result: dict, round0: int = 0) -> dict[str, np.ndarray]:
    """The samples of one engine result as arrays, rounds numbered from
    round0 (a second engine process continues the first one's rounds);
    `keep` is False for samples another task disturbed (the front end's
    verification, core.model)."""
    v = model.Result(result)
    n = len(v.samples)
    out = {f: _field(v, f, n)[:n] for f in FIELDS}
    g = np.asarray(v.rounds or [0] * n, dtype=int)[:n]
    out["round"] = g + round0
    out["keep"] = np.asarray(v.keep, dtype=bool) if n else np.zeros(0, bool)
    probe = cycles.probe_of(result)
    clock = cycles.group_clock(probe)  # the probe's groups are this process's rounds
    out["f"] = np.array([clock.get(int(x), math.nan) for x in g], dtype=float)
    ops = probe.get("ops")
    for col, (name, _) in RUN_CLOCKS.items():  # each run's own clock, where the engine took it
        t = v.raw(name)[:n]
        out[col] = ops / t if t.size == n and isinstance(ops, (int, float)) and np.all(t > 0) else out["f"]
    return out


def in_cycles(t: dict[str, np.ndarray] | None) -> dict[str, np.ndarray] | None:
    """A table with its times in core cycles (each run's ns times its
    round's f); None where a run has no clock."""
    if t is None:
        return None
    f = t.get("f")
    if f is None or f.size != t["round"].size or not np.isfinite(f).all():
        return None
    fp, fq = t.get("f_plain", f), t.get("f_prime", f)
    if not (np.isfinite(fp).all() and np.isfinite(fq).all()):
        fp = fq = f
    # each run at its own clock; D, measured right after the pair, at the pair's mean
    each = {k: fp for k in PLAIN_TIMES} | {k: fq for k in PRIME_TIMES}
    return dict(t, **{k: t[k] * each.get(k, (fp + fq) / 2) for k in TIMES})


def _field(v: model.Result, name: str, n: int) -> np.ndarray:
    """A raw per-run field, nan for each of the n runs when the file lacks it."""
    a = v.raw(name)
    return a if a.size else np.full(n, math.nan)


def merge(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """One table from several (batches, points); a column some lack is left out."""
    keys = [k for k in parts[0] if all(k in p for p in parts)] if parts else []
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}


def round_d(tables: list[dict[str, np.ndarray]]) -> dict[int, float]:
    """D_g: the mean gap-loop D of each round, over every sample of the round
    (all tasks, and irq/direct's if measured)."""
    g = np.concatenate([t["round"] for t in tables])
    d = np.concatenate([t["d_ns"] for t in tables])
    ok = np.isfinite(d)
    return {int(r): float(d[ok & (g == r)].mean()) for r in np.unique(g[ok])}


def direct_effect(tables: list[dict[str, np.ndarray]]) -> dict:
    """D with its interval over rounds."""
    g = np.concatenate([t["round"] for t in tables])
    d = np.concatenate([t["d_ns"] for t in tables])
    return power.paired_mean(d, g)


def _adjusted(t: dict[str, np.ndarray], dg: dict[int, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    m = t["keep"] & np.isfinite(t["interrupts"])
    y = (t["r_prime_ns"] - t["r_task_ns"])[m]
    k = t["interrupts"][m]
    g = t["round"][m]
    d = np.array([dg.get(int(r), math.nan) for r in g])
    return y, k, g, y - k * d


def task_fit(t: dict[str, np.ndarray], dg: dict[int, float], d_eff: dict, off: Offset | None = None) -> dict:
    """The rate slope of R' - R over k, and slope - D (per interrupt, D as
    the spin pays it when `off` is given), both bootstrapped over rounds;
    and whether D agrees with the slope."""
    y, k, g, adj = _adjusted(t, dg)
    sl = power.slope(k, y, g)
    per = off.slope(k, adj, g) if off else power.slope(k, adj, g)
    d = d_eff["estimate_ns"]
    ratio = sl["estimate_ns"] / d if d and math.isfinite(d) else math.nan
    return {"slope": sl, "per_interrupt": per,
            "agreement": {"slope_over_D": ratio, "tolerance": AGREE,
                          "within": bool(math.isfinite(ratio) and abs(ratio - 1) <= AGREE),
                          "slope_minus_D_resolved": per["resolved"]}}


def _explains(e: dict | None, k: float, deficit: float) -> bool:
    """Whether a per-interrupt bias `e` (resolved, negative; cycles.in_unit's
    members) times k interrupts, at the far end of its interval, covers the
    deficit."""
    return bool(e and e["resolved"] and e["estimate"] < 0 and k * -e["ci95"][0] >= deficit)


def diagnosis(fit: dict, k: float = math.inf, deficit: float = 0.0, unit: str = "ns") -> str:
    """Which part is biased when an I (over k interrupts, `deficit` below
    zero, in `unit`) fails the self-check: the task's runs (against D,
    whose level the spin sets), or only this point's pair."""
    if _explains(cycles.in_unit(fit["per_interrupt"], unit), k, deficit):
        return (f"this task pays less per signal than D (rate slope "
                f"{fmt_in(cycles.in_unit(fit['slope'], unit)['estimate'], unit)}) while the spin agrees with D: the "
                "task's forced runs are biased, not D")
    return (f"k*D cannot account for {fmt_in(deficit, unit)} over {k:.0f} interrupts: this point's plain/forced "
            "pair is biased (drift or disturbance between the two runs at this rate), not D")


def _ci(e: dict) -> tuple[float, float]:
    lo, hi = e.get("ci95_simultaneous") or e["ci95"]
    return lo, hi


def control_verdict(check: dict | None, spin_points: list[dict]) -> dict:
    """Whether the known-zero control (irq/spin) came out at zero: its I at
    every rate (simultaneous intervals, in the unit each I's verdict uses).
    D's level comes from the spin's slope, so what a failure leaves is the
    pairing of the plain and interrupted runs, or a cost per signal that
    differs from rate to rate. When it fails, which of the two the numbers
    point at and what would tell."""
    if check is None:
        return {"ok": None, "failures": [], "reason": "no control measured (irq/spin): no I can be checked"}
    bad, per_run, per_sig = [], [], []
    for p in map(model.Result, spin_points):
        i, k = cycles.chosen(p.effects["I"]), p.effects["interrupts"]["mean"]
        lo, hi = _ci(i)
        u = i["unit"]
        if math.isfinite(lo) and (lo > 0 or hi < 0):
            # a rate whose runs took no signal (100 Hz on a tiny task) has no cost per signal
            each = fmt_in(i["estimate"] / k, u) + " per signal" if k and math.isfinite(k) else "no signal taken"
            bad.append(f"I = {fmt_in(i['estimate'], u)} [{fmt_in(lo, u)}, {fmt_in(hi, u)}] at "
                       f"{p.params.rate_hz} Hz ({each})")
            per_run.append(i["estimate"])
            if k and math.isfinite(k):
                per_sig.append(i["estimate"] / k)
    if not bad:
        return {"ok": True, "failures": [], "reason": ""}
    part = ("the spin's plain and interrupted runs differ by more than k*D (D as the spin pays it over all rates): "
            "either the pair is biased (the two runs of a pair ran at different speeds, or something other than "
            "the signals is in R' - R: the same I at every rate points there) or a signal costs a different "
            "amount at this rate than on average (the same I per signal points there: a colder path at low "
            "rates, merged expirations at high ones)")
    return {"ok": False, "failures": bad,
            "reason": ("the known-zero control (irq/spin: a loop in registers, nothing to refill) came out "
                       f"nonzero ({'; '.join(bad)}): {part}. Every task's I carries the same bias. An idle, "
                       "isolated CPU (--cpu, no other load), more rounds (--budget) or rates of one regime "
                       "(--rates) would tell whether it is the host or the method")}


def untrusted(points: list[dict], verdict: dict) -> list[dict]:
    """The points, each a new one whose derived I says whether the run's
    control held (`trusted`), with a warning where it failed; `points` are
    not changed."""
    out = []
    for p in points:
        v = model.Result(p)
        new = {}
        if isinstance(v.effects.get("I"), dict):
            new["parts"] = dict(v.effects, I=dict(v.effects["I"], trusted=bool(verdict["ok"])))
        if verdict["ok"] is False:
            new["warnings"] = [model.warning("untrusted", "UNTRUSTED: " + verdict["reason"], control_ok=False)] + \
                v.warnings_stored()
        out.append(model.with_members(p, **new))
    return out


def _why_unresolved(v: dict, g: np.ndarray) -> str:
    """What resolving it would take (`v`: the I in its verdict's unit, as
    cycles.chosen gives it): the MDE falls as 1/sqrt(rounds), so an I of
    the measured size needs rounds * (MDE / |I|)^2 rounds."""
    n = int(np.unique(g).size)
    est, m, u = abs(v["estimate"]), v["mde"], v["unit"]
    if not (math.isfinite(m) and n):
        return "too few rounds for an interval"
    if est < m / 10:
        return (f"{n} rounds; the estimate ({fmt_in(est, u)}) is under a tenth of it: no effect this run can "
                "tell from noise, and more rounds shrink the MDE only as 1/sqrt(rounds)")
    return (f"{n} rounds; an I of the measured size ({fmt_in(est, u)}) would need about "
            f"{math.ceil(n * (m / est) ** 2)} rounds (--budget, or a quieter CPU)")


def point_effects(t: dict[str, np.ndarray], dg: dict[int, float], rate: int, off: Offset | None,
                  z_family: float) -> tuple[dict, dict]:
    """I (with its simultaneous interval: z_family standard errors, the
    family-wise bound over all points, `power.family_t`) and k*D of one task
    and rate, in the unit of the table."""
    sel = {k: v[t["rate_hz"] == rate] for k, v in t.items()}
    y, k, g, adj = _adjusted(sel, dg)
    i_eff = off.mean(k, adj, g) if off else power.paired_mean(adj, g)
    direct = power.paired_mean(y - adj + k * (off.estimate if off else 0.0), g)
    est, se = i_eff["estimate_ns"], i_eff["se_ns"]
    if math.isfinite(se):
        # the interval the table and figure print: simultaneous over all points
        # (the self-check's bound), so a printed interval below zero is a failed check
        i_eff["ci95_simultaneous"] = [est - z_family * se, est + z_family * se]
        i_eff["simultaneous_z"] = z_family
    return i_eff, direct


def irq_point(t: dict[str, np.ndarray], task: str, rate: int, fit: dict, params: dict, i_eff: dict,
              direct: dict, tc: dict[str, np.ndarray] | None = None, clock_method: str = "probe") -> dict:
    """One result for one task and rate: I and k*D as given (effects with
    their twins in cycles), the runs' summaries, the self-check and the
    warnings, each verdict in the unit I's uses. The self-check fails when
    I is below zero beyond its simultaneous interval. `tc`: the table in
    cycles (None: no clock)."""
    at = t["rate_hz"] == rate
    sel = {k: v[at] for k, v in t.items()}
    y, k, g, _ = _adjusted(sel, {int(r): 0.0 for r in sel["round"]})
    kept = sel["keep"]
    R, Rp = sel["r_task_ns"][kept], sel["r_prime_ns"][kept]
    v = cycles.chosen(i_eff)
    u = v["unit"]
    r_unit = (tc["r_task_ns"][at][kept] if u == "cycles" and tc is not None else R)
    mean_r = float(r_unit.mean()) if r_unit.size else math.nan
    parts = {
        "R_task": stats.summarize(R),
        "R_prime": stats.summarize(Rp),
        "interrupts": stats.summarize(k),
        "D": stats.summarize(sel["d_ns"]),
        "direct": direct,
        "I": i_eff,
        # I as a share of the task's run, both in the unit I's verdict uses
        "I_pct": 100.0 * v["estimate"] / mean_r if mean_r else math.nan,
    }
    warns = []
    dropped = int((~kept).sum())  # (none since the runs correct for preemption; kept for old files)
    if dropped:
        warns.append(model.warning("dropped", f"{dropped} of {kept.size} samples disturbed and dropped "
                                   "(another task ran during a timed run)", dropped=dropped, samples=int(kept.size)))
    est, se, z = v["estimate"], v["se"], i_eff.get("simultaneous_z", power.Z_ALPHA)
    k_mean = float(k.mean()) if k.size else math.nan
    if math.isfinite(se) and est + z * se < 0:
        why = diagnosis(fit, k_mean, -v["ci95"][1], u)
        warns.append(model.warning("self_check", "SELF-CHECK FAILED: I < 0 beyond the family-wise interval (an "
                                   "interrupt cannot make a task faster): " + why,
                                   **{f"estimate_{u}": est, f"bound_{u}": est + z * se}, unit=u, diagnosis=why))
    elif v["below_mde"]:
        warns.append(model.warning("below_mde", f"|I| below its minimum detectable effect "
                                   f"({fmt_in(v['mde'], u)}, in {u}): not resolved; " + _why_unresolved(v, g),
                                   **{f"estimate_{u}": est, f"mde_{u}": v["mde"]}, unit=u))
    sw = (sel["switches"] + sel["switches_prime"])[kept]
    if np.nansum(sw) > 0:
        waited = (sel["waited_ns"] + sel["waited_prime_ns"])[kept]
        if np.nanmin(waited) < 0:
            warns.append(model.warning("dropped", "other tasks took the CPU during the runs and the run delay "
                                       "is unreadable here: their time is in R and R'",
                                       switches=float(np.nansum(sw))))
        else:
            parts["preempted"] = {"switches": float(np.nansum(sw)), "waited_ns": float(np.nansum(waited))}
    ov = sel["overruns"][kept]
    if ov.size and np.nansum(ov) > 0:
        parts["overruns"] = stats.summarize(ov)
    raw = {f: [float(x) for x in sel[f]] for f in FIELDS}
    out = {
        "id": f"irq/{task}/rate={rate}",
        "quantity": "overhead", "unit": "ns",
        "doc": "R'_task - R_task with a timer signal at the rate, and I = R' - R - k*D (David et al. 2007)",
        "params": dict(params, task=task, rate_hz=int(rate)),
        "samples": [float(x) for x in y],
        "raw": raw,
        "group": [int(x) for x in sel["round"]],
        "summary": stats.summarize(y),
        "parts": parts,
        "warnings": warns,
    }
    if tc is not None:
        raw[CLOCK] = [float(x) for x in sel["f"]]
        for col, (_, name) in RUN_CLOCKS.items():
            if col in sel:
                raw[name] = [float(x) for x in sel[col]]
        yc, _, gc, _ = _adjusted({kk: vv[at] for kk, vv in tc.items()}, {int(r): 0.0 for r in sel["round"]})
        out["cycles"] = {"applies": True, "unit": cycles.UNIT, "method": clock_method,
                         "summary": stats.summarize(list(yc), list(gc)),
                         "R_task": stats.summarize(tc["r_task_ns"][at][kept])}
    else:
        out["cycles"] = {"applies": False, "why": cycles.NO_PROBE}
    return RECORDS.result(out)


def _estimate(tables: dict[str, dict[str, np.ndarray]], direct: dict[str, np.ndarray] | None, rates: list[int],
              spin: dict[str, np.ndarray] | None, z: float) -> dict:
    """Every effect of the run in the unit of its tables: D (as the spin
    pays it), the gap loop's D, the spin's fit (D_check), each task's fit,
    and I and k*D per task (and the spin) and rate."""
    every = list(tables.values()) + [t for t in (direct, spin) if t is not None]
    dg = round_d(every)
    d_gap = direct_effect(every)
    draws = Draws(list(dg))
    # the gap loop's offset from what the spin pays per signal (calibration.py)
    off = Offset(draws)
    if spin is not None:
        _, k_s, g_s, adj_s = _adjusted(spin, dg)
        off = Offset(draws, k_s, adj_s, g_s)
    every_d = np.concatenate([t["d_ns"] for t in every])
    d_eff = off.shifted(every_d, np.concatenate([t["round"] for t in every]))
    check = task_fit(spin, dg, d_gap) if spin is not None else None  # per_interrupt: the offset
    fits = {task: task_fit(t, dg, d_eff, off) for task, t in tables.items()}
    pts = {task: {r: point_effects(t, dg, r, off, z) for r in rates}
           for task, t in list(tables.items()) + ([("spin", spin)] if check is not None else [])}
    return {"dg": dg, "D": d_eff, "D_gap": d_gap, "check": check, "fits": fits, "points": pts}


def _twin_fit(fn: dict | None, fc: dict | None, ghz: float, why: str) -> dict | None:
    if fn is None:
        return None
    out = {k: cycles.twin(fn[k], fc[k] if fc else None, ghz, why) for k in ("slope", "per_interrupt")}
    out["agreement"] = dict(fn["agreement"], slope_minus_D_resolved=cycles.chosen(out["per_interrupt"])["resolved"])
    return out


def derive(tables: dict[str, dict[str, np.ndarray]], direct: dict[str, np.ndarray] | None, rates: list[int],
            params: dict, spin: dict[str, np.ndarray] | None = None, clock_method: str = "probe") -> dict:
    """Everything the command reports: D as the spin pays it (`spin`: a loop
    in registers, no indirect cost, measured in the same rounds as the
    tasks) and the gap loop's D with its offset from it (D_check); the
    control's verdict; per task the fit and the points; the failed
    self-checks. Every effect in ns with its twin in core cycles where
    every run has its round's clock (the tables' `f`), the verdicts in the
    unit whose MDE is smaller."""
    every = list(tables.values()) + [t for t in (direct, spin) if t is not None]
    rounds = len(round_d(every))
    # one family: the tasks' points and the control's
    z = power.family_t((len(tables) + (spin is not None)) * len(rates), rounds - 1)
    ns = _estimate(tables, direct, rates, spin, z)
    tc = {task: in_cycles(t) for task, t in tables.items()}
    dc, sc = in_cycles(direct), in_cycles(spin)
    have = all(x is not None for x in tc.values()) and (direct is None or dc is not None) \
        and (spin is None or sc is not None)
    cy = _estimate(tc, dc, rates, sc, z) if have else None
    why = "" if have else cycles.NO_PROBE
    ghz = float(np.median(np.concatenate([t["f"] for t in every]))) if have else math.nan

    def tw(get):
        return cycles.twin(get(ns), get(cy) if cy else None, ghz, why)

    d_eff, d_gap = tw(lambda e: e["D"]), tw(lambda e: e["D_gap"])
    check = _twin_fit(ns["check"], cy["check"] if cy else None, ghz, why)
    spin_points = []
    if check is not None:
        for r in rates:
            i_eff, dir_eff = (tw(lambda e, j=j, r=r: e["points"]["spin"][r][j]) for j in (0, 1))
            spin_points.append(irq_point(spin, "spin", r, check, params, i_eff, dir_eff, sc, clock_method))
    verdict = control_verdict(check, spin_points)
    fits, points, failed = {}, {}, []
    for task, t in tables.items():
        fit = _twin_fit(ns["fits"][task], cy["fits"][task] if cy else None, ghz, why)
        fits[task] = fit
        pts = []
        for r in rates:
            i_eff, dir_eff = (tw(lambda e, j=j, r=r, task=task: e["points"][task][r][j]) for j in (0, 1))
            pts.append(irq_point(t, task, r, fit, params, i_eff, dir_eff, tc.get(task), clock_method))
        pts = untrusted(pts, verdict)
        points[task] = pts
        for p in map(model.Result, pts):
            w = next((w for w in p.warnings if w.code == "self_check"), None)
            if w:
                failed.append({"task": task, "rate_hz": p.params.rate_hz, "I": p.effects["I"],
                               "diagnosis": w.data.get("diagnosis", "")})
    return {"D": d_eff, "D_gap": d_gap, "D_check": check, "control": verdict, "rounds": rounds, "per_task": fits,
            "points": points, "spin_points": spin_points, "self_check_failed": failed, "shared_cpu": shared_cpu(every),
            "ghz": ghz}


def shared_cpu(tables: list[dict[str, np.ndarray]]) -> dict:
    """How much other tasks ran on the measured CPU during the runs: the
    median of this thread's switches per run and the share of the runs'
    wall time it spent waiting for the CPU (taken out of R and R'; the
    caches those tasks disturbed are not)."""
    runs = [t for t in tables if "switches" in t and np.isfinite(t["switches"]).any()]
    if not runs:
        return {"switches_per_run": math.nan, "waited_share": math.nan}
    sw = np.concatenate([np.concatenate([t["switches"], t["switches_prime"]]) for t in runs])
    w = sum(float(np.nansum(np.clip(t["waited_ns"], 0, None) + np.clip(t["waited_prime_ns"], 0, None)))
            for t in runs)
    busy = sum(float(np.nansum(t["r_task_ns"] + t["r_prime_ns"])) for t in runs)
    return {"switches_per_run": float(np.nanmedian(sw)), "waited_share": w / (w + busy) if busy else math.nan}


def tables_from_points(points: list[dict]) -> dict[str, dict[str, np.ndarray]]:
    """The rounds back from a results file's points (each carries its raw
    samples and rounds), per task ("spin" included): `analyse` on them
    re-derives every number (D from the gap loops after the pairs)."""
    by: dict[str, list] = {}
    for p in map(model.Result, points):
        n = len(p.rounds)
        t = {f: _field(p, f, n) for f in FIELDS + (CLOCK,)}
        t["f"] = t.pop(CLOCK)
        for col, (_, name) in RUN_CLOCKS.items():  # points from before the runs' own clocks: the round's
            x = _field(p, name, n)
            t[col] = x if np.isfinite(x).all() else t["f"]
        t["round"] = np.asarray(p.rounds, dtype=int)
        t["keep"] = np.ones(n, bool)
        by.setdefault(p.params.task, []).append(t)
    return {task: merge(ts) for task, ts in by.items()}


# the members of irq's section that come from the analysis (derive_all), not from what it was asked
ANALYSED = ("rounds", "D", "D_check", "control", "per_task", "self_check_failed", "shared_cpu", "chunks")


def with_chunks(point, runs_by_task: dict, about: dict):
    """A point with its runs' chunk records (core/chunks.record), so that
    the file keeps what its chunk design is derived from."""
    p = model.Result(point)
    runs = [r for r in runs_by_task.get(p.params.task, []) if r.key == p.params.rate_hz]
    return model.with_members(point, chunks=chunks.record(runs, about)) if runs else point


def derive_all(tables: dict[str, dict[str, np.ndarray]], direct: dict[str, np.ndarray] | None, rates: list[int],
               params: dict, spin: dict[str, np.ndarray] | None, clock_method: str, chunk_runs: dict[str, list],
               about: dict) -> tuple[dict, list]:
    """Everything irq derives from its runs, as the file keeps it: derive's
    analysis with the chunk design (irq/chunked.py, from `chunk_runs` by
    task, `about` their records' constants) under "chunks", and the points
    (the tasks', then the spin's), each with its runs' chunk records. The
    command when it measures and `ctxbench reanalyse` both call it."""
    an = derive(tables, direct, rates, params, spin, clock_method)
    lo = [int(x) for x in about.get("bucket_lo") or []]
    an["chunks"] = chunked.analyse(chunk_runs, rates, lo, an["per_task"])
    points = [with_chunks(p, chunk_runs, about)
              for p in [p for pts in an["points"].values() for p in pts] + an["spin_points"]]
    return an, points
