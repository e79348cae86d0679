"""Analyses of results measured in rounds that more than one command
makes, on the results model's views (core/model): the widening by the
part between runs (run measures it, reanalyse makes it again from a
file's record) and the paired difference of two results of one
interleaved run (ring, anatomy). Each returns new records, never changes one."""
from __future__ import annotations

import math

from ctxbench.core.model import Result, with_mde, with_members
from ctxbench.stats import drift, power


def apply_between_runs(res: list, spreads: dict) -> tuple[list, int]:
    """Make each result's interval, in ns and in cycles, one for another
    run's median here, from the spread of earlier runs of this host
    (`spreads`: core/store/between.spreads by point key; stats/drift.
    between_runs). Returns the results (new ones where widened; `res` is
    not changed) and how many were."""
    out, n = [], 0
    for r in res:
        v = Result(r)
        s = spreads.get(v.point_key)
        if s is None or not (0 <= s.ns <= drift.MAX_REL_SD):  # nan, or a damaged store's: widens nothing
            out.append(r)
            continue
        new = {"summary": with_mde(drift.between_runs(v.summary.as_dict(), s.ns, s.runs))}
        if v.cycles.applies and v.cycles.summary and 0 <= s.cycles <= drift.MAX_REL_SD:
            new["cycles"] = dict(v.cycles.as_dict(), summary=with_mde(
                drift.between_runs(v.cycles.summary.as_dict(), s.cycles, s.runs)))
        out.append(with_members(r, **new))
        n += 1
    return out, n


def paired_difference(a, b) -> dict:
    """a - b per round (group) over the rounds both were measured in, for two
    results of one interleaved run: a power.effect (the mean of the rounds'
    differences, whole rounds resampled), plus the rounds it used, the
    ratio of the two medians and the ratio's interval (the difference's
    interval over b's median, around the median ratio)."""
    ra, rb = Result(a).round_medians(), Result(b).round_medians()
    common = sorted(set(ra) & set(rb))
    e = power.paired_mean([ra[g] - rb[g] for g in common], clusters=common)
    base, top = Result(b).summary.median, Result(a).summary.median
    e["rounds"] = len(common)
    if math.isfinite(base) and base > 0 and math.isfinite(top) and math.isfinite(e["estimate_ns"]):
        e["ratio"] = top / base
        e["ratio_ci95"] = [e["ratio"] + (c - e["estimate_ns"]) / base if math.isfinite(c) else math.nan
                           for c in e["ci95"]]
    else:
        e["ratio"], e["ratio_ci95"] = math.nan, [math.nan, math.nan]
    return e
