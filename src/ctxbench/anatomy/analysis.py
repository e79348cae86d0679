"""The anatomy's arithmetic on one interleaved run of the ladder
(ladder.py): every part as a power.effect over rounds, the chain's sum
check, the cross-CPU wake-up beside it, and what could not be measured.

- A rung's value in round g is the median of its kept samples in group g
  (model.Result.round_medians); a part that is a difference of two rungs is
  the mean of their per-round differences (whole rounds resampled, MDE),
  the arithmetic of rounds.paired_difference on any per-sample series. Interleaving makes the host's drift common to
  both sides of every difference.
- The chain's per-round pieces (ladder.py) sum, by algebra, to the process
  rung's t_single / n + t_avg, which is its hand-off t_switch / 2n sample by
  sample; each piece is a mean of per-round medians of its own series, so
  the sum check against the measured hand-off catches a round one side
  lacks, an outlier round and any slip in the pieces' arithmetic, within
  the total's interval, or shows the gap as its own effect ("not
  attributed"). The physical sum check is the attribution's (time sampled
  in kernel functions against the clock), where the kernel can be sampled.
- Nothing is clipped: a negative part is printed as measured (FIFO may be
  cheaper than the fair class), and a part whose interval excludes 0 in the
  unexpected direction is a finding the text states, not a correction.
"""
from __future__ import annotations

import math

import numpy as np

from ctxbench.anatomy import attribution, ladder
from ctxbench.core import results
from ctxbench.core.model import Result, round_series
from ctxbench.rounds import paired_difference
from ctxbench.stats import drift, power
from ctxbench.ui.format import fmt_effect, fmt_time

SYSCALLS_PER_HANDOFF = 2  # a send and a receive (write + read, or wake + wait)
EFFECT_KEYS = ("estimate_ns", "ci95", "se_ns", "mde_ns", "resolved", "below_mde")
# the members of a kept anatomy that hold times: null in the file is nan here, as the command had them
_TIMES = ("ci95", "ci95_within", "ns_ci95", "ns")


def _per_handoff(r: Result, component: str) -> list[float]:
    """A raw component per hand-off: t_single / n (one send and receive per
    message), t_switch / 2n (n round trips are 2n hand-offs)."""
    n = r.params.get("n")
    raw = r.raw(component)
    if not n or raw.size != len(r.samples):
        return []
    div = float(n) * (2.0 if component == "t_switch_ns" else 1.0)
    return list(raw / div)


def _series_effect(series: dict[int, float]) -> dict:
    """A per-round series as an effect (its mean over rounds)."""
    rounds = sorted(series)
    e = power.paired_mean([series[g] for g in rounds], clusters=rounds)
    e["rounds"] = len(rounds)
    return e


def _combine(*series: dict[int, float], signs: tuple[float, ...]) -> dict[int, float]:
    common = set.intersection(*(set(s) for s in series)) if series else set()
    return {g: sum(sign * s[g] for sign, s in zip(signs, series)) for g in common}


def _effect_only(e: dict) -> dict:
    out = {k: e[k] for k in EFFECT_KEYS if k in e}
    out["rounds"] = e.get("rounds")
    return out


def _series(r: Result, component: str) -> dict[int, float]:
    if component == "t_single":
        return r.round_medians(_per_handoff(r, "t_single_ns"))
    return r.round_medians()


def parts(by_rung: dict[str, dict]) -> list[dict]:
    """Every part whose rungs were measured, in ladder order."""
    rm = {name: Result(r) for name, r in by_rung.items()}
    out = []
    for p in ladder.PARTS:
        if p.rung not in rm or (p.reference and p.reference not in rm):
            continue
        mine = {g: p.factor * v for g, v in _series(rm[p.rung], p.component).items()}
        if p.reference:
            ref = _series(rm[p.reference], p.ref_component)
            mine = _combine(mine, {g: p.ref_factor * v for g, v in ref.items()}, signs=(1.0, -1.0))
        e = _series_effect(mine)
        out.append({"name": p.name, "rung": p.rung, "reference": p.reference, "what": p.what,
                    "chain": p.chain, "component": p.component, "id": rm[p.rung].id,
                    "reference_id": rm[p.reference].id if p.reference else None, **_effect_only(e)})
    return out


def sum_check(by_rung: dict[str, dict], chain: list[dict]) -> dict | None:
    """The chain's parts against the process rung's measured hand-off."""
    need = ("syscall", "thread", "process")
    if any(n not in by_rung for n in need) or not chain:
        return None
    p = Result(by_rung["process"])
    total = p.round_medians(_per_handoff(p, "t_switch_ns"))
    # the chain per round: 2S + (Ts - 2S) + (Ps - Ts) + T + (P - T) = Ps + P,
    # each a median of its own series, so the gap is what medians of parts
    # do not add up to (and a round one side lacks), not physics
    parts_sum = _combine(_series(p, "t_single"), p.round_medians(), signs=(1.0, 1.0))
    gap = _series_effect(_combine(total, parts_sum, signs=(1.0, -1.0)))
    tot = _series_effect(total)
    s = float(sum(c["estimate_ns"] for c in chain))
    lo, hi = tot["ci95"]
    within = bool(math.isfinite(lo) and lo <= s <= hi)
    return {"total": {**_effect_only(tot), "what": "one hand-off of the process rung: t_switch / 2n",
                      "id": p.id},
            "parts_sum_ns": s, "within_total_interval": within,
            "gap": {**_effect_only(gap), "what": "total - sum of the chain's parts, per round (not attributed)"}}


def cross_cpu(by_rung: dict[str, dict]) -> dict | None:
    r = by_rung.get("cross-cpu")
    if r is None:
        return None
    v = Result(r)
    return {"id": v.id, "quantity": "wake-up latency across two CPUs (not a switch cost)",
            "median_ns": v.summary.median, "ci95": list(v.summary.ci95)}


def not_obtained(by_rung: dict[str, dict]) -> list[dict]:
    """Rungs that ran without the property they exist for (read back by the
    engine: the policy obtained, a prctl's state), so their part is not
    one."""
    out = []
    fifo = by_rung.get("fifo")
    if fifo is not None and Result(fifo).params.get("policy") != "SCHED_FIFO":
        texts = [w.text for w in Result(fifo).warnings]
        out.append({"rung": "fifo", "reason": texts[0] if texts else "SCHED_FIFO was not obtained"})
    fpu = by_rung.get("fpu")
    if fpu is not None and Result(fpu).params.get("vector_state") in ("none", None):
        out.append({"rung": "fpu", "reason": "no vector register state this engine knows how to dirty on this CPU"})
    return out


def handoff_ns(r: dict) -> float:
    """Median hand-off time (t_switch / 2n) of a ping-pong rung."""
    v = Result(r)
    x = np.asarray(_per_handoff(v, "t_switch_ns"), dtype=float)
    keep = np.asarray(v.keep, dtype=bool)
    x = x[keep[: x.size]] if x.size else x
    x = x[np.isfinite(x)]
    return float(np.median(x)) if x.size else math.nan


def _with_drift(e: dict, rel: float) -> dict:
    """A part's interval widened by the run's drift, as a result's is
    (stats.drift.widen): the drift is a factor on every time measured in a
    round, so it moves a difference in proportion to it and another run's
    estimate by that much; `resolved` and the MDE stay the run's own (a
    factor cannot make a zero difference non-zero)."""
    w = drift.widen({"median": e["estimate_ns"], "ci95": e["ci95"]}, rel)
    if "ci95_within" in w:
        e.update(ci95=w["ci95"], ci95_within=w["ci95_within"], drift_rel_sd=rel)
    return e


def anatomy(by_rung: dict[str, dict], skipped: list[dict], mechanism: str) -> dict:
    """The `anatomy` object: parts, sum check, cross-CPU, what was not
    measured (`skipped`: rungs the probe found refused), attribution. Parts'
    intervals carry the run's drift, so they cover another run's."""
    rel = drift.relative_sd(drift.common_factor(round_series(list(by_rung.values()))[1]))
    ps = [_with_drift(p, rel) for p in parts(by_rung)]
    out = {"mechanism": mechanism, "parts": ps, "sum_check": sum_check(by_rung, [p for p in ps if p["chain"]]),
           "cross_cpu": cross_cpu(by_rung), "not_available": list(skipped) + not_obtained(by_rung),
           "drift_rel_sd": rel if math.isfinite(rel) else None}
    if "profiled" in by_rung and "thread" in by_rung:
        out["attribution"] = _attribution(by_rung["profiled"], by_rung["thread"])
    return out


def _attribution(profiled: dict, thread: dict) -> dict:
    """The attribution of the profiled rung (attribution.py) and what the
    sampling cost, a difference of two rungs like any part."""
    out = attribution.attribute(Result(profiled).profile, handoff_ns(profiled))
    e = paired_difference(profiled, thread)
    out["perturbation"] = {k: e[k] for k in EFFECT_KEYS if k in e} | {
        "what": "profiled - plain thread rung, per switch, same rounds"}
    return out


def measured_rungs(results: list[dict], mechanism: str) -> dict[str, dict]:
    """{rung name: result} of the ladder's rungs of `mechanism` among
    `results`, in ladder order: what anatomy() takes, when the command
    measures and when reanalyse derives its section again."""
    by_id = {Result(r).id: r for r in results}
    return {r.name: by_id[r.engine_id(mechanism)] for r in ladder.RUNGS if r.engine_id(mechanism) in by_id}


def rungs_of(results: list[dict]) -> dict[str, dict[str, dict]]:
    """{mechanism: {rung name: result}} for the results that are rungs of a
    ladder (compare re-derives the anatomy from them)."""
    out: dict[str, dict[str, dict]] = {}
    for m in ladder.MECHANISMS:
        got = measured_rungs(results, m)
        if "thread" in got and "process" in got:
            out[m] = got
    return out


def _se_across_runs(p: dict) -> float:
    """A part's standard error as another run sees it: its own, and its
    run's drift (a factor on the whole run) in quadrature."""
    rel = p.get("drift_rel_sd")
    extra = rel * abs(p["estimate_ns"]) if isinstance(rel, (int, float)) and math.isfinite(rel) else 0.0
    return math.hypot(p.get("se_ns", math.nan), extra)


def compare_parts(base: dict, new: dict) -> list[dict]:
    """Part by part, two anatomies from different runs (kernels, machines,
    mitigations): new - base with the 95% interval of a difference of two
    independent estimates (standard errors, each with its run's drift,
    added in quadrature, normal), and its MDE."""
    out = []
    nb = {p["name"]: p for p in base.get("parts") or []}
    for p in new.get("parts") or []:
        b = nb.get(p["name"])
        if b is None:
            continue
        d = p["estimate_ns"] - b["estimate_ns"]
        se = math.hypot(_se_across_runs(b), _se_across_runs(p))
        half = drift.Z95 * se
        m = power.mde(se)
        out.append({"name": p["name"], "base_ns": b["estimate_ns"], "new_ns": p["estimate_ns"],
                    "estimate_ns": d, "ci95": [d - half, d + half], "se_ns": se, "mde_ns": m,
                    "resolved": bool(math.isfinite(half) and abs(d) > half), "below_mde": bool(abs(d) < m),
                    "method": "normal, the two runs' standard errors in quadrature"})
    return out


def measured_as(p: dict, pcid: bool | None = None) -> str:
    """How a part was measured, for a table cell; the address space's says
    whether the CPU has PCID (`pcid`, None where unknown)."""
    if p["rung"] == "syscall":
        return f"{SYSCALLS_PER_HANDOFF} x {p['id']}"
    if p.get("component") == "t_single":
        ref = (f" - {SYSCALLS_PER_HANDOFF} x {p['reference_id']}" if p["reference"] == "syscall"
               else f" - the same of {p['reference_id']}")
        return f"t_single/n of {p['id']}{ref}"
    how = p["id"] + (f" - {p['reference_id']}" if p.get("reference_id") else "")
    if p["rung"] == "process" and p["reference"] == "thread" and pcid is not None:
        how += f" (CPU flag pcid: {'yes' if pcid else 'no, so each switch flushes the TLB'})"
    return how


def cross_cpu_cell(x: dict) -> str:
    """The cross-CPU wake-up as the command prints it: median [its interval]."""
    lo, hi = x.get("ci95") or (math.nan, math.nan)
    return f"{fmt_time(x.get('median_ns'))} [{fmt_time(lo)}, {fmt_time(hi)}]"


def table_rows(a: dict) -> list[list[str]]:
    """The report's rows of an anatomy: each part shown (name, estimate,
    how it was measured, its role), the sum check and the cross-CPU
    wake-up apart. reanalyse says what of them changed."""
    rows = [[p["name"], fmt_effect(p), measured_as(p, a.get("pcid")), "chain" if p["chain"] else "added"]
            for p in shown_parts(a)]
    sc = a.get("sum_check")
    if sc:
        rows.append(["measured hand-off (process)", fmt_effect(sc["total"]), sc["total"]["id"], "total"])
        rows.append(["not attributed (total - sum of the chain)", fmt_effect(sc["gap"]), "", "gap"])
    x = a.get("cross_cpu")
    if x:
        rows.append([x["quantity"], cross_cpu_cell(x), x["id"], "apart"])
    return rows


def shown_parts(a: dict) -> list[dict]:
    """The anatomy's parts, less those of rungs that ran without the
    property they exist for (`not_available`): what the table and the
    waterfall show."""
    bad = {s["rung"] for s in a.get("not_available") or []}
    return [p for p in a.get("parts") or [] if p["rung"] not in bad]


def as_read(x, key: str = ""):
    """The kept anatomy (builtins) with the nan the file wrote as null
    made nan again where a time belongs, so it is drawn as the command
    drew it; other nulls (no reference, no cross-CPU rung) stay None."""
    if isinstance(x, dict):
        return {k: as_read(v, k) for k, v in x.items()}
    timed = key.endswith("_ns") or key in _TIMES
    if isinstance(x, list):
        return [math.nan if v is None and timed else as_read(v) for v in x]
    return math.nan if x is None and timed else x


def kept(section) -> dict | None:
    """The anatomy a command's section kept, None where it holds no parts
    (a file written before they were kept)."""
    a = results.plain(section)
    return as_read(a) if isinstance(a, dict) and isinstance(a.get("parts"), list) else None
