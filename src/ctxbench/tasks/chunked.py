"""The indirect cost of a switch where it is paid: each task's chunks after
a switch-in paired with the same chunks of the round's n = 1 run
(core/chunks.py; docs/tasks.md#the-indirect-cost-where-it-is-paid).

Per round, from the engine's reductions of the pair's runs and the empty
pair's (the same rounds), with k_a, k_b the switch-ins of each task in the
run at n (each task's first segment left out: it follows the start):

    e_a, e_b        per switch-in of that task: its first W chunks' excess
                    over its last W's (a trimmed mean over the run's switch-ins)
    inflation       the hand-off between the tasks (last chunk of one to the
                    first of the other) minus the empty pair's at that n
    per switch      (k_a e_a + k_b e_b) / (k_a + k_b) + inflation
    paid by a       k_a e_a / (k_a + k_b)    (and b: the shares sum with the
                    inflation to the per-switch cost)
    in full         the same with each switch-in's whole interval summed, and
                    plain means over switch-ins: what a difference of whole
                    runs sees, ticks and host stalls included (the cross-check)
    tail            the last W chunks' excess per chunk, as a share of a chunk:
                    what the runs differ by far from any switch

pooled over the n > 1 of the run (weights: switches), and per n. Each
effect is the Hodges-Lehmann estimate over rounds with the bootstrap of
whole rounds (stats/robust.py), drawn as the whole-run effects of
tasks/analysis.py are, so that the two designs are differenced draw by
draw (the cross-check). The recovery curve: per position since the
switch-in, the excess per chunk above the far baseline (the tail), per task.
"""
from __future__ import annotations

import math

import numpy as np

from ctxbench.core import chunks, cycles, model
from ctxbench.stats import power, recovery
from ctxbench.stats.robust import Rounds, median_of

WEIGHTED = ("per_switch", "share_a", "share_b", "inflation", "in_full", "hand_off")


def _round_values(P: dict, E: dict, g: int, n: int) -> dict | None:
    """One round's values at one n (None where a role's run is missing)."""
    a, b = P.get((g, n, "a")), P.get((g, n, "b"))
    if a is None or b is None or not (a.events and b.events):
        return None
    ka, kb = a.events, b.events
    k = ka + kb
    ea, eb = a.loc("excess"), b.loc("excess")
    xa, xb = E.get((g, n, "a")), E.get((g, n, "b"))
    ga, gb = a.loc("gap"), b.loc("gap")
    ge = ((ka * xa.loc("gap") + kb * xb.loc("gap")) / k) if xa is not None and xb is not None else math.nan
    infl = (ka * ga + kb * gb) / k - ge
    # in full: plain means, as a difference of whole runs sums every chunk (ticks and stalls included)
    gem = ((ka * xa.loc("gap", "mean") + kb * xb.loc("gap", "mean")) / k) if xa is not None and xb is not None \
        else math.nan
    infl_mean = (ka * a.loc("gap", "mean") + kb * b.loc("gap", "mean")) / k - gem
    return {"k": k, "ka": ka, "kb": kb, "share_a": ka * ea / k, "share_b": kb * eb / k, "inflation": infl,
            "per_switch": (ka * ea + kb * eb) / k + infl,
            "in_full": (ka * a.loc("whole", "mean") + kb * b.loc("whole", "mean")) / k + infl_mean,
            "hand_off": ge,
            "e_a": ea, "e_b": eb,
            "tail_a": chunks.ratio(a.loc("tail"), a.num("ref_chunk_ns")),
            "tail_b": chunks.ratio(b.loc("tail"), b.num("ref_chunk_ns")),
            "chunk_a": a.num("ref_chunk_ns"), "chunk_b": b.num("ref_chunk_ns"),
            "timer": _mean([x.num("ref_chunk_ns") for x in (xa, xb) if x is not None])}


def _mean(xs: list) -> float:
    v = [float(x) for x in xs if isinstance(x, (int, float)) and math.isfinite(x)]
    return sum(v) / len(v) if v else math.nan


def _pool(vals: list[dict]) -> dict:
    """Values of one round over its n: the costs weighted by switches (a
    task's cost per switch-in by its own switch-ins), the mean for the
    rest."""
    k = sum(v["k"] for v in vals)
    out = {name: sum(v["k"] * v[name] for v in vals) / k for name in WEIGHTED}
    for name, kk in (("e_a", "ka"), ("e_b", "kb")):
        out[name] = sum(v[kk] * v[name] for v in vals) / sum(v[kk] for v in vals)
    for name in ("tail_a", "tail_b", "chunk_a", "chunk_b", "timer"):
        out[name] = float(np.mean([v[name] for v in vals]))
    return out


def _curve(runs: list, rounds: Rounds, lo: list[int]) -> dict:
    """The recovery curve of one role: per bucket of positions since the
    switch-in, the excess per chunk above the run's far baseline, pooled
    over n by switch-ins, HL over rounds with each bucket's interval."""
    per_round, x, chunk_ns = chunks.curve_rounds(runs)
    return recovery.curve(per_round, rounds, lo, x, chunk_ns)


def analyse(pair_result, empty_result, labels, boot_of=None, resamples: int | None = None) -> dict | None:
    """The chunk effects of one pair (None when the runs carry no chunk
    records: a file before issue 45). `labels` are the rounds the
    whole-run effects drew from (the same draws); `boot_of(fn)`, when given,
    is the whole-run statistic fn's (estimate, draws), for the cross-check
    per n."""
    pr, er = chunks.runs(pair_result), chunks.runs(empty_result)
    if not pr:
        return None
    P = {(r.group, r.key, r.role): r for r in pr}
    E = {(r.group, r.key, r.role): r for r in er}
    groups = sorted({r.group for r in pr})
    ns = sorted({r.key for r in pr})
    rounds = Rounds(labels, resamples) if resamples else Rounds(labels)
    clock = cycles.group_clock(cycles.probe_of(pair_result))
    ghz = cycles.run_ghz([clock])

    vals = {n: {g: v for g in groups if (v := _round_values(P, E, g, n)) is not None} for n in ns}
    pooled = {g: _pool([vals[n][g] for n in ns if g in vals[n]]) for g in groups
              if any(g in vals[n] for n in ns)}
    if not pooled:  # no round with a usable switched run: why_none says why
        return None

    def eff(by_round: dict, name: str, unitless: bool = False) -> dict:
        v = rounds.vector({g: x[name] for g, x in by_round.items()})
        e = rounds.effect(v)
        if unitless:
            return dict(e, unit="ns", cycles=None, cycles_why="a share of a chunk has no unit")
        c = rounds.vector({g: x[name] * clock[g] for g, x in by_round.items() if g in clock})
        ce = rounds.effect(c) if np.isfinite(c).sum() >= 2 else None
        return cycles.twin(e, ce, ghz, "" if ce else cycles.NO_PROBE)

    def block(by_round: dict) -> dict:
        return {"per_switch": eff(by_round, "per_switch"),
                "paid_by": {"a": eff(by_round, "share_a"), "b": eff(by_round, "share_b")},
                "per_switch_in": {"a": eff(by_round, "e_a"), "b": eff(by_round, "e_b")},
                "switch_inflation": eff(by_round, "inflation"),
                "in_full": eff(by_round, "in_full"),
                "tail_share": {"a": eff(by_round, "tail_a", True), "b": eff(by_round, "tail_b", True)},
                "rounds": len(by_round)}

    out = block(pooled)
    out["by_n"] = {}
    for n in ns:
        if len(vals[n]) < 2:
            continue
        bn = block(vals[n])
        bn["switches"] = int(np.median([v["k"] for v in vals[n].values()]))
        if boot_of is not None:
            bn["whole_runs"], bn["agreement"] = _cross_check(rounds, vals[n], n, boot_of)
        out["by_n"][str(n)] = bn
    lo = chunks.bucket_lo(pair_result)
    out["curve"] = {role: _curve([r for r in pr if r.role == role], rounds, lo) for role in ("a", "b")}
    med = {k: median_of([p[k] for p in pooled.values()]) for k in ("chunk_a", "chunk_b", "timer",
                                                                              "hand_off")}
    out.update(chunk_ns={"a": med["chunk_a"], "b": med["chunk_b"]}, timer_ns=med["timer"],
               hand_off_ns=med["hand_off"], n_values=[n for n in ns if str(n) in out["by_n"]],
               method=describe_method(pair_result))
    return out


def why_none(pair_result) -> str:
    """Why a pair has no chunk result, in a phrase."""
    if not model.Result(pair_result).chunks:
        return "no chunk timing in these runs (a file from before it)"
    return ("no chunk result: no switched run kept with its round's n = 1 run, or every interval between "
            "switches shorter than 2 chunks (n too large for the tasks' chunks: a smaller n or a larger --scale)")


def _cross_check(rounds: Rounds, by_round: dict, n: int, boot_of) -> tuple[dict, dict]:
    """The whole-run per-switch cost at n, I(n) / (n - 1), and its difference
    from the chunks' `in_full` (the same quantity summed chunk by chunk),
    draw by draw over the same rounds: agree = the difference's interval
    holds 0; judged only where both resolve."""
    w_est, w_boot = boot_of(lambda s: s / (n - 1), n)
    rn = rounds.labels.size
    whole = power.effect(w_est, w_boot, rn)  # the seed's statistic (means over runs), not a Hodges-Lehmann one
    c_est, c_boot = rounds.estimate(rounds.vector({g: x["in_full"] for g, x in by_round.items()}))
    d = power.effect(w_est - c_est, w_boot - c_boot, rn)
    d["method"] = f"whole runs minus in full (Hodges-Lehmann), draw by draw; {d['method']}"
    both = bool(whole["resolved"]) and bool(rounds.effect_of(c_est, c_boot, rn)["resolved"])
    verdict = ("agree" if not d["resolved"] else "DISAGREE") if both else "not both resolved"
    return whole, dict(d, verdict=verdict)


def describe_method(result) -> str:
    c = chunks.describe(result)
    trim = c.get("trim")
    trim = f"{trim:.0%}" if isinstance(trim, (int, float)) and not isinstance(trim, bool) else "?"
    return (f"chunks timed with {c.get('clock')}; per switch-in the excess of its first W chunks over its last W "
            f"(W <= {c.get('window_max')}), paired with the same chunks of the round's n = 1 run; a "
            f"{trim}-trimmed mean over a run's switch-ins (each end), Hodges-Lehmann over rounds")
