"""The indirect cost of an interrupt where it is paid: each task's chunks
after a timer signal paired with the same chunks of the same sample's run
without the timer (core/chunks.py; docs/irq.md#the-indirect-cost-where-it-is-paid).

Per round and rate, from the engine's reductions (one event per signal:
from the chunk it landed in to the chunk before the next one's):

    e_task       per signal: the first W chunks' excess over the last W's (the
                 median over the run's signals: STAT below): D and the refill
    e_spin       the same for irq/spin, a loop in registers with nothing to
                 refill: D as the chunks see it
    indirect     e_task - e_spin, per interrupt
    after        e_task without the chunk the signal landed in: the refill
                 paid in the chunks after it, which no D is in (measured in
                 the task's own runs alone, so it is free of D's changes
                 from run to run, which the difference above is not)
    in full      the same with each signal's whole interval summed and plain
                 means (what R' - R sees): the cross-check with the slope
    tail         the task's last W chunks' excess per chunk, as a share of a chunk

pooled over the rates (weights: signals) and per rate; Hodges-Lehmann over
rounds, the bootstrap of whole rounds (stats/robust.py). The recovery
curve: per position since the signal, the task's excess per chunk above
its far baseline, D (the spin's first chunk, same round) taken from the
chunk the signal landed in."""
from __future__ import annotations

import math

import numpy as np

from ctxbench.core import chunks
from ctxbench.stats import recovery
from ctxbench.stats.robust import Rounds, median_of

BOUND_OF_D = 0.05  # "bounded": the interval within +-5% of D (the bar for an unresolved cost)
# The location over a run's signals: the median. Each signal's excess carries D, whose spread from
# signal to signal on a guest is microseconds (a timer interrupt through the hypervisor), so a 10%
# trim leaves heavy tails in: on the AMD EPYC guest (default run, 39 rounds) the median gave aes
# 707 +- 78 ns per interrupt where the trimmed mean gave 838 +- 130 (tasks keep the trimmed mean:
# their switch-ins' costs are skewed for real, and the median would miss part of them).
STAT = "median"


def _by(runs: list) -> dict:
    """(rate, round) -> the run (one per task, rate and round)."""
    return {(r.key, r.group): r for r in runs}


def _values(T: dict, S: dict, rate: int, g: int) -> dict | None:
    t, s = T.get((rate, g)), S.get((rate, g))
    if t is None or s is None or not (t.events and s.events):
        return None
    return {"k": t.events, "e": t.loc("excess", STAT), "d": s.loc("excess", STAT),
            "indirect": t.loc("excess", STAT) - s.loc("excess", STAT), "after": t.loc("after", STAT),
            "in_full": t.loc("whole", "mean") - s.loc("whole", "mean"),
            "tail": chunks.ratio(t.loc("tail", STAT), t.num("ref_chunk_ns")), "chunk": t.num("ref_chunk_ns")}


def _pool(vals: list[dict]) -> dict:
    k = sum(v["k"] for v in vals)
    out = {n: sum(v["k"] * v[n] for v in vals) / k for n in ("e", "d", "indirect", "in_full", "after")}
    out.update(tail=float(np.mean([v["tail"] for v in vals])), chunk=float(np.mean([v["chunk"] for v in vals])))
    return out


def _spin_d(S: dict, rates: list[int], g: int) -> float:
    """D as the spin's first chunk sees it in round g (its curve's first
    bucket above its far baseline, pooled over the rates by signals)."""
    num = den = 0.0
    for rate in rates:
        s = S.get((rate, g))
        if s is None or not s.events:
            continue
        c = s.curve()
        if c.size and math.isfinite(c[0]):
            num += s.events * (c[0] - s.loc("tail"))
            den += s.events
    return num / den if den else math.nan


def analyse(runs_by_task: dict[str, list], rates: list[int], lo: list[int], fits: dict | None = None) -> dict | None:
    """Per task (and the spin's D): the per-interrupt indirect cost pooled
    over rates and by rate, the tail, the recovery curve, and the
    cross-check against the rate slope's per-interrupt cost (`fits`:
    irq/analysis.py's per task); `lo`: the buckets' first positions. None
    when no run carries chunk records."""
    spin = runs_by_task.get("spin") or []
    tasks = [t for t in runs_by_task if t != "spin" and runs_by_task[t]]
    if not spin or not tasks:
        return None
    S = _by(spin)
    groups = sorted({r.group for rs in runs_by_task.values() for r in rs})
    rounds = Rounds(groups)
    out: dict = {"tasks": {}, "rates_hz": rates}
    d_round = {g: _spin_d(S, rates, g) for g in groups}
    d_pooled = {}
    for task in tasks:
        T = _by(runs_by_task[task])
        per_rate = {rate: {g: v for g in groups if (v := _values(T, S, rate, g)) is not None} for rate in rates}
        pooled = {g: _pool([per_rate[r][g] for r in rates if g in per_rate[r]]) for g in groups
                  if any(g in per_rate[r] for r in rates)}
        for g, v in pooled.items():
            d_pooled.setdefault(g, []).append(v["d"])

        def eff(by_round: dict, name: str) -> dict:
            return rounds.effect(rounds.vector({g: v[name] for g, v in by_round.items()}))
        rec = {"per_interrupt": eff(pooled, "indirect"), "in_full": eff(pooled, "in_full"),
               "after_signal_chunk": eff(pooled, "after"),
               "per_signal": eff(pooled, "e"), "tail_share": eff(pooled, "tail"),
               "chunk_ns": median_of([v["chunk"] for v in pooled.values()]),
               "rounds": len(pooled),
               "by_rate": {str(r): dict(eff(per_rate[r], "indirect"),
                                        signals=int(np.median([v["k"] for v in per_rate[r].values()])))
                           for r in rates if len(per_rate[r]) >= 2}}
        if fits and task in fits:
            rec["agreement"] = _agreement(rec["in_full"], fits[task]["per_interrupt"])
        per_round, x, chunk_ns = chunks.curve_rounds(runs_by_task[task], d_round)
        rec["curve"] = recovery.curve(per_round, rounds, lo, x, chunk_ns)
        out["tasks"][task] = rec
    # D as the chunks see it: the spin's per-signal excess (one value per round: every task's pairing uses it)
    out["D"] = rounds.effect(rounds.vector({g: float(np.mean(v)) for g, v in d_pooled.items()}))
    per_round, x, chunk_ns = chunks.curve_rounds(spin, d_round)
    out["spin_curve"] = recovery.curve(per_round, rounds, lo, x, chunk_ns)
    for rec in out["tasks"].values():
        rec["verdict"] = verdict(rec["per_interrupt"], out["D"]["estimate_ns"])
    return out


def _agreement(chunk: dict, slope: dict) -> dict:
    """The chunks' in-full cost per interrupt against the rate slope's
    (slope - D): their difference over its standard error, the two taken
    as independent (they share rounds, and the positive correlation would
    narrow it: the check errs toward 'agree'); judged where both resolve."""
    from scipy.stats import t  # late: scipy.stats costs a CLI start-up 0.5 s
    a, b = chunk.get("estimate_ns"), slope.get("estimate_ns")
    sa, sb = chunk.get("se_ns"), slope.get("se_ns")
    if not all(isinstance(x, float) and math.isfinite(x) for x in (a, b, sa, sb)):
        return {"verdict": "not both measured"}
    d, se = a - b, math.hypot(sa, sb)
    df = max(1, min(int(chunk.get("df", 1)), int(slope.get("df", 1))))
    half = float(t.ppf(0.975, df)) * se
    both = bool(chunk.get("resolved")) and bool(slope.get("resolved"))
    agree = abs(d) <= half
    return {"difference_ns": d, "ci95": [d - half, d + half], "both_resolved": both,
            "verdict": ("agree" if agree else "DISAGREE") if both else "not both resolved",
            "method": "difference of the two estimates, standard errors combined as independent, Student's t"}


def verdict(e: dict, d_ns: float) -> str:
    """Resolved (half-width at most 25% of the estimate), bounded (the
    interval within +-5% of D), or neither."""
    lo, hi = e.get("ci95") or [math.nan, math.nan]
    est = e.get("estimate_ns")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "no interval"
    if e.get("resolved") and (hi - lo) / 2 <= 0.25 * abs(est):
        return "resolved"
    if math.isfinite(d_ns) and max(abs(lo), abs(hi)) < BOUND_OF_D * d_ns:
        return "bounded"
    return "not resolved"
