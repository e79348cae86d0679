"""The sweep's numbers: indirect cost per point (paired by round, with its
interval and minimum detectable effect), counters per thousand
instructions, peaks and the boundaries they sit at.

Indirect cost (docs/method.md#indirect-cost-per-switch):
indirect(S, D) = total(S, D) - direct, where direct is the stride-0 cost
of the same mechanism.

- Design. The sweep measures in rounds (steps/measure.py): in a round, each
  mechanism's engine process measures, size by size, the stride-0 point
  at S and then the strided points at S, one group each. A round is the
  unit of pairing: the round's value of a point is the median of its kept
  samples in that round, and the point's paired difference in round r is

      d_r(S, D) = total_r(S, D) - total_r(S, 0)

  (the direct cost measured seconds before, in the same process). What the
  machine's drift adds to both cancels; what is left varies from round to
  round and is in the interval.
- Estimate and interval: `stats.power.paired_mean` of the d_r, the one
  interval over rounds of the project (bootstrap standard error over
  rounds, Student's t on rounds - 1: it covers at the 3-8 rounds a budget
  allows, bench/interval_coverage.py; standard error and MDE). A point whose
  |estimate| is below its MDE is "below MDE": the sweep could not tell it
  from noise, and the text says "below X".
- Stride 0 checks the instrument: the stride-0 points at different sizes
  are one configuration (no array is traversed), so a stride-0 point's
  own "indirect cost" is its round value minus the median of the stride-0
  points of up to two sizes each side in the same round. Its interval
  should contain 0.
- Nothing is clipped: a negative estimate is printed as measured, with a
  warning that says whether its interval excludes 0 (then no switch cost
  explains it: after the traversal, the single run's own messages (a pipe
  write and read to itself) slowed more than the switching run's hand-offs
  did, or its traversals were slower; at 64K per party here the first: the
  self-message +600 ns, the hand-off +340 ns, the pass itself the same. A
  bias of the t_avg formula at that point, not a saving).
"""
from __future__ import annotations

import math

import numpy as np

from ctxbench.core import model
from ctxbench.stats import power
from ctxbench.sweep.plan import boundaries, fmt_size, key
from ctxbench.ui.format import fmt_effect, fmt_time

NEIGHBOURS = 2  # stride-0 check: sizes on each side compared with
PAIRED = ("mean of per-round paired differences: the point's median in a round minus the stride-0 median at "
          "the same size in the same round; interval over rounds (stats.power.paired_mean, its method in `method`)")
PLACEBO = ("stride 0 against the stride-0 points of up to two sizes each side in the same round (one "
           "configuration: should be 0)")


def _diffs(bid: str, size: int, stride: int, rm: dict) -> tuple[list[float], list[int], dict]:
    """Paired differences of one point, their rounds, and the reference."""
    mine = rm.get((bid, size, stride)) or {}
    if stride:
        ref = rm.get((bid, size, 0)) or {}
        rounds = sorted(set(mine) & set(ref))
        return [mine[g] - ref[g] for g in rounds], rounds, {"kind": "stride 0 at this size, same round",
                                                             "sizes": [size], "stride": 0}
    sizes0 = sorted(s for (b, s, d) in rm if b == bid and d == 0)
    i = sizes0.index(size)
    near = [s for s in sizes0[max(0, i - NEIGHBOURS):i + NEIGHBOURS + 1] if s != size]
    diffs, rounds = [], []
    for g in sorted(mine):
        others = [rm[(bid, s, 0)][g] for s in near if g in rm[(bid, s, 0)]]
        if others:
            diffs.append(mine[g] - float(np.median(others)))
            rounds.append(g)
    return diffs, rounds, {"kind": "stride 0 at up to two sizes each side, same round (not this point)",
                           "sizes": near, "stride": 0}


def indirect_record(diffs: list[float], rounds: list[int], ref: dict, stride: int) -> dict:
    """A power.effect dict, plus what Summary readers (figures, report)
    use: median (= the estimate), n (rounds), and what the numbers are."""
    e = power.paired_mean(diffs, clusters=rounds)
    d = np.asarray(diffs, dtype=float)
    e.update(median=e["estimate_ns"], n=len(diffs), rounds=len(rounds),
             sd_ns=float(np.std(d, ddof=1)) if d.size >= 2 else math.nan,
             ci95_of=PAIRED if stride else PLACEBO, reference=ref)
    return e


def with_indirect(results: list[dict], only: set | None = None) -> list[dict]:
    """The results, every sweep point (or those whose key is in `only`) a
    new one with its `indirect`; `results` is not changed."""
    # round medians of the points asked for and of what they are paired with (their
    # size's stride 0; every stride 0 for a stride-0 check), not of the whole sweep
    need = None if only is None else ({(b, s) for b, s, _ in only}, {b for b, _, d in only if d == 0})
    rm = {key(r): model.Result(r).round_medians() for r in results
          if key(r) and (need is None or key(r) in only or (key(r)[2] == 0 and (
              key(r)[:2] in need[0] or key(r)[0] in need[1])))}
    out = []
    for r in results:
        k = key(r)
        if not k or (only is not None and k not in only):
            out.append(r)
            continue
        bid, size, stride = k
        diffs, rounds, ref = _diffs(bid, size, stride, rm)
        s = indirect_record(diffs, rounds, ref, stride)
        warn = model.Result(r).warnings_stored("negative_indirect")
        est = s["estimate_ns"]
        if stride and math.isfinite(est) and est < 0:
            why = ("its interval excludes 0: no switch cost explains that; after the traversal the single "
                   "run's own messages slowed more than the hand-offs, or its passes were slower (a bias of "
                   "the t_avg formula here, not a saving)"
                   if s["resolved"] else "its interval contains 0: noise")
            warn.append(model.warning("negative_indirect", f"negative indirect cost (printed as measured, "
                                                           f"not clipped): {why}", estimate_ns=est,
                                      resolved=bool(s["resolved"])))
        out.append(model.with_members(r, indirect=s, warnings=warn))
    return with_stride0_family(out) if only is None else out


def with_stride0_family(results: list[dict]) -> list[dict]:
    """The stride-0 check as one statement per mechanism: every stride-0
    point is the same configuration, so all of them are zero at once, and
    that is tested with intervals that hold together (`power.family_t`:
    Bonferroni over the mechanism's stride-0 points, Student's t with the
    effect's degrees of freedom). At 95% each, 18 points of a correct
    instrument leave at least one interval without 0 in 60% of the sweeps;
    their 95% intervals are kept and counted beside this one. Returns the
    results, those points new ones; `results` is not changed."""
    by: dict[str, list[int]] = {}
    for i, r in enumerate(results):
        k, e = key(r), model.Result(r).indirect
        if k and k[2] == 0 and e and math.isfinite(e.se):
            by.setdefault(k[0], []).append(i)
    out = list(results)
    for family in by.values():
        for i in family:
            e = model.Result(out[i]).indirect
            t = power.family_t(len(family), e.df)  # df: rounds - 1 (a file from before it: the normal's)
            out[i] = model.with_members(out[i], indirect=dict(e.as_dict(), ci_simultaneous=[e.estimate - t * e.se,
                                                                              e.estimate + t * e.se],
                                                simultaneous_t=t, family=len(family)))
    return out


def direct_cost(results: list[dict], bid: str) -> float:
    """The mechanism's direct cost: median over sizes of the stride-0 medians."""
    meds = [s.median for _, s in series(results, bid, 0, "summary")]
    return float(np.median(meds)) if meds else math.nan


def work_per_switch(r: dict | None) -> float:
    """Nanoseconds of work one party does between two switches at this
    point: the single run's time per message (one traversal plus the
    message calls), median over samples; nan if the engine did not say."""
    per = model.Result(r or {}).per_message("t_single_ns")
    return float(np.median(per)) if per.size else math.nan


# ---- counters ---------------------------------------------------------------

MISS_EVENTS = ("l1d_load_misses", "l1i_load_misses", "dtlb_load_misses")


def with_counter_rates(r: dict) -> dict:
    """The result (a new one; `r` is not changed) with
    counters.per_kilo_instructions[phase][party][event] = 1000 * misses / instructions."""
    c = model.Result(r).counters
    if not c.get("available"):
        return r
    pki: dict = {}
    for phase in ("single", "switch"):
        for party in ("a", "b"):
            v = (c.get(phase) or {}).get(party) or {}
            ins = v.get("instructions") or 0
            if ins <= 0:
                continue
            pki.setdefault(phase, {})[party] = {e: 1000.0 * v.get(e, 0) / ins for e in MISS_EVENTS if e in v}
        # both parties together: what the caches see in the switching run
        a = (c.get(phase) or {}).get("a") or {}
        b = (c.get(phase) or {}).get("b") or {}
        ins = (a.get("instructions") or 0) + (b.get("instructions") or 0)
        if ins > 0:
            pki.setdefault(phase, {})["both"] = {e: 1000.0 * (a.get(e, 0) + b.get(e, 0)) / ins
                                                  for e in MISS_EVENTS if e in a}
    return model.with_members(r, counters=dict(c, per_kilo_instructions=pki))


def counters_status(results: list[dict]) -> str | None:
    """One line about counters, or None if no result asked for them."""
    asked = [c for c in (model.Result(r).counters for r in results) if c]
    if not asked:
        return None
    ok = [c for c in asked if c.get("available")]
    if ok:
        return f"hardware counters recorded for {len(ok)} of {len(results)} points"
    err = next((c.get("error") for c in asked if c.get("error")), "refused")
    return f"hardware counters unavailable here ({err}): measured without them"


# ---- summary ----------------------------------------------------------------

def series(results: list[dict], bid: str, stride: int, what: str = "indirect") -> list[tuple[int, model.Summary]]:
    """[(size, summary)] of one mechanism and stride, by size (the indirect
    cost as a model.Effect)."""
    out = []
    for r in results:
        k = key(r)
        if k and k[0] == bid and k[2] == stride:
            s = model.Result(r).indirect if what == "indirect" else model.Result(r).summary
            if s and s.n:
                out.append((k[1], s))
    return sorted(out, key=lambda t: t[0])


def where(size: int, env: dict, parties: int = 2) -> str:
    """The boundary nearest (log2) to the combined working set of the parties."""
    bs = boundaries(env)
    ws = size * parties
    if not bs:
        return f"(no cache/TLB sizes known for this machine; both parties together: {fmt_size(ws)})"
    b = min(bs, key=lambda b: abs(math.log2(ws / b["size"])))
    ratio = ws / b["size"]
    rel = ("at" if 0.8 <= ratio <= 1.25 else "just below" if 0.5 <= ratio < 0.8
           else "just past" if 1.25 < ratio <= 2 else "below" if ratio < 1 else "beyond")
    return f"both parties {fmt_size(ws)}: {rel} {b['label']}"


def _indirect(r: dict) -> model.Effect:
    """A point's indirect cost as a view (an empty one if it has none)."""
    return model.Result(r).indirect or model.Effect({})


def cell(e: model.Effect | None) -> str:
    """One point in the text grid: the estimate if resolved, 'below X' (its
    MDE) if |estimate| < MDE, else '~estimate' (neither)."""
    if not e or not math.isfinite(e.estimate) or not math.isfinite(e.mde):
        return "n/a"  # fewer than 2 rounds with kept samples: no interval, no MDE
    if e.resolved:
        return fmt_time(e.estimate)
    if e.below_mde:
        return "<" + fmt_time(e.mde)
    return "~" + fmt_time(e.estimate)


def grid(results: list[dict], bid: str, planned: set | None = None) -> list[str]:
    """Sizes down, strides across: every point's indirect cost in one cell;
    '-' where the plan has no point (`planned`: its (size, stride) pairs)."""
    pts = {key(r): model.Result(r).indirect for r in results if key(r) and key(r)[0] == bid}
    cells = set(planned or ()) | {k[1:] for k in pts}
    sizes = sorted({s for s, _ in cells})
    strides = sorted({d for _, d in cells})
    w = 11
    out = ["    size/party " + "".join(f"{('D=' + str(d) + ' B'):>{w}}" for d in strides)]
    for s in sizes:
        out.append(f"    {fmt_size(s):>10} " + "".join(
            f"{cell(pts.get((bid, s, d))) if (s, d) in cells else '-':>{w}}" for d in strides))
    return out


def counts(results: list[dict], bid: str) -> dict:
    """How many strided points are resolved / below MDE / neither, and how
    many stride-0 checks contain 0."""
    c = {"resolved": 0, "below_mde": 0, "neither": 0, "points": 0, "zero_ok": 0, "zero": 0, "no_mde": 0,
         "zero_family_ok": 0, "zero_mde": 0.0}
    for r in results:
        k, e = key(r), _indirect(r)
        if not k or k[0] != bid or not e:
            continue
        if not math.isfinite(e.mde):
            c["no_mde"] += 1
            continue
        if k[2] == 0:
            lo, hi = e.ci95
            c["zero"] += 1
            c["zero_ok"] += bool(lo <= 0 <= hi)
            slo, shi = e.ci_simultaneous
            c["zero_family_ok"] += bool(slo <= 0 <= shi)
            c["zero_mde"] = max(c["zero_mde"], e.mde)
            continue
        c["points"] += 1
        c["resolved" if e.resolved else "below_mde" if e.below_mde else "neither"] += 1
    return c


CHECKS_HEADER = ("direct (stride 0)", "strided points", "resolved", "below MDE", "neither", "n/a",
                 "stride-0 check (should be 0)")


def checks_row(results: list, bid: str) -> list[str]:
    """What the sweep resolved of one mechanism and its stride-0 check, as
    the report's table has them (CHECKS_HEADER): tallies of the points'
    kept indirect costs (counts) and the median of their kept stride-0
    medians (direct_cost), no statistic made again."""
    c = counts(results, bid)
    zero = (f"{'ok' if c['zero_family_ok'] == c['zero'] else 'FAILED'}: {c['zero_family_ok']} of {c['zero']} "
            f"within simultaneous 95% intervals; {c['zero_ok']} own 95% intervals contain 0; resolution "
            f"{fmt_time(c['zero_mde'])}") if c["zero"] else "-"
    return [fmt_time(direct_cost(results, bid)), str(c["points"]), str(c["resolved"]), str(c["below_mde"]),
            str(c["neither"]), str(c["no_mde"]), zero]


def indirect_phrase(r) -> str:
    """A point's indirect cost in one phrase: its estimate with its
    interval, or below its MDE (ui/format.fmt_effect); '-' without one."""
    e = model.Result(r).indirect
    return fmt_effect(e.as_dict()) if e else "-"


def l2_size(env: dict) -> int | None:
    """The L2 data cache of one CPU (bytes), if the environment says."""
    caches = model.Environment(env).caches
    l2 = [c["size"] for c in caches if c.get("level") == 2 and c.get("size") and c.get("type") != "instruction"]
    return min(l2) if l2 else None


def past_l2(results: list[dict], bid: str, env: dict, min_stride: int = 64) -> dict | None:
    """The points where each party's array is at least the L2, at strides of
    a cache line and more: how many are resolved, and for each of the rest
    its MDE as a share of the work between two switches (one traversal):
    what the run could not tell from 0, in the units the physics sets
    (None: no MDE, fewer than 2 rounds with kept samples)."""
    l2 = l2_size(env)
    if not l2:
        return None
    pts = [r for r in results if key(r) and key(r)[0] == bid and key(r)[1] >= l2 and key(r)[2] >= min_stride]
    if not pts:
        return None
    open_ = sorted((r for r in pts if not _indirect(r).resolved), key=key)
    share = {f"{fmt_size(key(r)[1])}:{key(r)[2]}": _indirect(r).mde / work_per_switch(r)
             for r in open_}
    return {"l2": l2, "points": len(pts), "resolved": len(pts) - len(open_),
            "open": {k: (v if math.isfinite(v) else None) for k, v in share.items()}}


def text_summary(results: list[dict], env: dict, mechs: list[tuple[str, str]], wall_s: float | None,
                 budget_s: float | None = None, planned: set | None = None) -> str:
    lines = ["indirect cost per switch (paired by round; 'X' resolved: 95% interval excludes 0; '<X': "
             "|estimate| below its MDE X; '~X' neither; '-' not in the plan):"]
    for name, bid in mechs:
        if not any(key(r) and key(r)[0] == bid for r in results):
            continue
        d = direct_cost(results, bid)
        lines.append(f"{name} ({bid}): direct cost (stride 0) {fmt_time(d)} per switch")
        lines += grid(results, bid, planned)
        c = counts(results, bid)
        lines.append(f"  {c['resolved']} of {c['points']} strided points resolved, {c['below_mde']} below their "
                     f"MDE, {c['neither']} neither" + (f"; {c['no_mde']} n/a (fewer than 2 rounds with kept "
                                                       f"samples: long samples met other load and were dropped, "
                                                       f"or the budget ended)" if c["no_mde"] else ""))
        if c["zero"]:
            ok = c["zero_family_ok"] == c["zero"]
            lines.append(f"  stride-0 check ({'ok' if ok else 'FAILED'}): {c['zero_family_ok']} of {c['zero']} "
                         f"stride-0 points are 0 within intervals that hold together at 95% (Bonferroni); "
                         f"their own 95% intervals: {c['zero_ok']} contain 0 (chance alone leaves "
                         f"{0.05 * c['zero']:.1f} outside); resolution (largest MDE) {fmt_time(c['zero_mde'])}"
                         + ("" if ok else ": a stride-0 point differs from its neighbours beyond chance: drift "
                                          "within the round or what the points before it left behind"))
        band = past_l2(results, bid, env)
        if band:
            line = (f"  past the L2 ({fmt_size(band['l2'])} per party and more, strides >= 64 B): {band['resolved']} of "
                    f"{band['points']} resolved")
            bounded = {k: v for k, v in band["open"].items() if v is not None}
            if bounded:
                line += ("; not resolved, each with its MDE as a share of the traversal between two switches "
                         "(an indirect cost smaller than that is not told from 0 by this run; more --budget buys "
                         "it): " + ", ".join(f"{k} {100 * v:.1f}%" for k, v in bounded.items()))
            unbounded = [k for k, v in band["open"].items() if v is None]
            if unbounded:
                line += f"; n/a (no MDE: fewer than 2 rounds with kept samples): {', '.join(unbounded)}"
            lines.append(line)
        peak = [(_indirect(r), key(r)) for r in results
                if key(r) and key(r)[0] == bid and key(r)[2] and _indirect(r).resolved]
        if peak:
            e, k = max(peak, key=lambda t: t[0].estimate)
            lo, hi = e.ci95
            lines.append(f"  largest resolved: {fmt_time(e.estimate)} [{fmt_time(lo)}, {fmt_time(hi)}] at "
                         f"{fmt_size(k[1])} per party, stride {k[2]} B ({where(k[1], env)})")
    if wall_s is not None:
        lines.append(f"wall time: {wall_s:.0f} s" + (f" of a {budget_s:.0f} s budget" if budget_s else ""))
    return "\n".join(lines)
