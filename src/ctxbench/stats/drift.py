"""The run-to-run part of an interval (docs/method.md#drift-within-a-run,
#another-runs-median and #between-runs: an interval must reflect the
run-to-run variation).

A cluster bootstrap over groups covers the noise inside one run. A run at
another time also meets the host in another state: on a VM the whole
machine drifts faster or slower by a few percent over seconds to hours,
moving every id alike. Five default runs on a 2-vCPU KVM guest showed it:
the within-run intervals held another run's median in about a third to
a half of the pairs.

In an interleaved run (group g of every id measured in round g), that
drift is visible: per round, the median over ids of log(group median / the
id's median) is the machine's common factor. Round-to-round jitter of that
factor is already in the bootstrap (it resamples groups); what persists
over more than one round is drift, which a later run samples anew. Its
size is estimated as the standard deviation of the common factor averaged
over blocks of BLOCK consecutive rounds, and added in quadrature (relative
to the median) to each side of the bootstrap interval. The result covers
"a run of the same ids at another time on this machine", which is what a
user compares against; the within-run interval is kept beside it.
"""
from __future__ import annotations

import math

import numpy as np

BLOCK = 2  # rounds per block: drift is what outlasts one round
MIN_BLOCKS = 3  # fewer: the drift cannot be estimated, nothing is added
Z95 = 1.959963984540054


def log_table(series: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Ids x rounds: log(round median / id median), nan where an id has no
    kept sample in a round. `series`: per id, (kept samples, their round
    labels, in order). One column per label present, and one nan column
    where labels skip (so a lag still pairs only adjacent rounds): never
    sized by the largest label, which a damaged file may make 10^9."""
    present = [g for _, g in series if g.size]
    labels = np.unique(np.concatenate(present)) if present else np.zeros(0, dtype=int)
    cols = np.arange(labels.size) + np.concatenate([[0], np.cumsum(np.diff(labels) > 1)]).astype(int)
    table = np.full((len(series), int(cols[-1]) + 1 if cols.size else 0), np.nan)
    for i, (x, g) in enumerate(series):
        ok = np.isfinite(x) & (x > 0)
        x, g = x[ok], g[ok]
        if not x.size:
            continue
        med = np.median(x)
        for r in np.unique(g):
            table[i, cols[np.searchsorted(labels, r)]] = math.log(np.median(x[g == r]) / med)
    return table


def common_factor(series: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Per round, the median over ids of log(round median / id median)."""
    return factor_of(log_table(series))


def factor_of(table: np.ndarray) -> np.ndarray:
    """The common factor of a log_table: per round, its median over ids."""
    rounds = table.shape[1]
    if rounds == 0:
        return np.zeros(0)
    with np.errstate(all="ignore"):
        out = np.full(rounds, np.nan)
        has = np.isfinite(table).any(axis=0)
        out[has] = np.nanmedian(table[:, has], axis=0)
    return out


def relative_sd(factor: np.ndarray, block: int = BLOCK) -> float:
    """Standard deviation of the block means of the common factor (relative
    units); nan where there are too few blocks to say."""
    f = factor[np.isfinite(factor)]
    nb = f.size // block
    if nb < MIN_BLOCKS:
        return math.nan
    means = f[: nb * block].reshape(nb, block).mean(axis=1)
    return float(np.std(means, ddof=1))


def _widened(summary: dict, rel_sd: float, kept_as: str, **record) -> dict:
    """The summary with Z95 x rel_sd x |median| added in quadrature to each
    side of its interval, the interval before kept as `kept_as` and
    `record`'s members set; unchanged where a number is missing."""
    med = summary.get("median")
    lo, hi = summary.get("ci95") or [math.nan, math.nan]
    if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in (rel_sd, med, lo, hi)):
        return summary
    d = Z95 * rel_sd * abs(med)
    out = dict(summary, **record)
    out[kept_as] = [lo, hi]
    out["ci95"] = [med - math.hypot(med - lo, d), med + math.hypot(hi - med, d)]
    return out


def widen(summary: dict, rel_sd: float) -> dict:
    """The summary with its interval widened by the drift (each side in
    quadrature); the bootstrap interval kept as ci95_within."""
    return _widened(summary, rel_sd, "ci95_within", drift_rel_sd=rel_sd)


# ---- an interval for another run of the same points (ctxbench ring) -----------
#
# `widen` above makes an interval for the machine's long-run value. What a
# user checks is whether a second run gives the same number, and that run
# has its own sampling error and meets the host in its own state: the
# difference of two runs' medians has twice the variance of one run's
# deviation, so an interval that is to hold another run's median 95% of the
# time is sqrt(2) times the one-run interval (a 95% interval of one run
# holds another run's median only 83% of the time: P(|Z| < 1.96/sqrt 2)).
#
# The run's rounds are few (16 by default), so its spread is itself
# uncertain: the multiple of it is Student's t with rounds - 1 degrees of
# freedom, not the normal's 1.96 (the textbook prediction interval; 1.09x
# at 16 rounds, 1.6x at 4).
#
# One run's deviation has three parts, each estimated from this run alone:
#   - its sampling error: the bootstrap over whole rounds (summary.ci95);
#   - the drift common to every point (relative_sd of the common factor);
#   - the point's own drift: what moves this point, not the others, and
#     outlasts one round (a shared LLC or memory that a neighbour fills for
#     a while moves the large rings and leaves the small ones alone). Its
#     variance is the lag-1 autocovariance of the point's residuals (round
#     log-median minus the common factor, centred on the point's median):
#     round-to-round jitter is uncorrelated from one round to the next and
#     drops out, a level that lasts two rounds or more does not. One point's
#     15 pairs of rounds say little, so the lag-1 autocorrelation is pooled
#     over every point of the run (each residual series scaled to unit
#     variance, so no point dominates) and each point's own drift variance
#     is that share of its residual variance. A run without drift gives a
#     correlation near 0 (below 0 counts as 0: nothing added; centring on
#     the run's own medians lowers it by about 1/rounds, so a persistence
#     smaller than that goes unseen).

MIN_ROUNDS = BLOCK * MIN_BLOCKS  # rounds a point needs to show its own drift (as the common one)


def persistence(residuals: np.ndarray) -> float:
    """Pooled lag-1 autocorrelation of the ids' residual series (ids x
    rounds, nan where a round has no median): the share of a point's
    round-to-round variance that lasts into the next round, over the
    points with at least MIN_ROUNDS rounds; nan if there are none."""
    num = den = 0.0
    pairs = 0
    for row in residuals:
        ok = np.isfinite(row)
        if ok.sum() < MIN_ROUNDS:
            continue
        scale = math.sqrt(float(np.mean(row[ok] ** 2)))
        if not scale > 0:
            continue
        z = row / scale
        adj = ok[:-1] & ok[1:]
        num += float(np.sum(z[:-1][adj] * z[1:][adj]))
        den += float(np.sum(z[ok] ** 2))
        pairs += int(adj.sum())
    if not (pairs and den > 0):
        return math.nan
    return num / den


def own_sd(residual_row: np.ndarray, rho: float) -> float:
    """A point's own drift (relative sd): the persisting share `rho` of its
    residual variance (around its median); 0 if nothing persists."""
    r = residual_row[np.isfinite(residual_row)]
    if not (math.isfinite(rho) and rho > 0 and r.size >= 2):
        return 0.0
    return math.sqrt(rho * float(np.mean(r ** 2)))


def next_run(summary: dict, common_sd: float, own: float, rounds: int) -> dict:
    """The summary with `ci95` the interval that holds another run's median
    95% of the time: sqrt(2) x t/z x (this run's bootstrap side over
    `rounds` rounds, in quadrature with the common and the point's own
    drift, relative to the median); the bootstrap interval kept as
    ci95_within and each part recorded."""
    med = summary.get("median")
    lo, hi = summary.get("ci95") or [math.nan, math.nan]
    if not (med is not None and math.isfinite(med) and math.isfinite(lo) and math.isfinite(hi) and rounds >= 2):
        return summary
    from ctxbench.stats.power import family_t  # late: scipy.stats costs start-up time

    k = math.sqrt(2) * family_t(1, rounds - 1) / Z95
    c = common_sd if math.isfinite(common_sd) else 0.0
    d = Z95 * abs(med) * math.hypot(c, own)
    out = dict(summary)
    out["ci95_within"] = [lo, hi]
    out["ci95"] = [med - k * math.hypot(med - lo, d), med + k * math.hypot(hi - med, d)]
    out["ci95_for"] = "another run's median"
    out["drift_rel_sd"] = common_sd if math.isfinite(common_sd) else None
    out["own_drift_rel_sd"] = own
    out["ci95_multiple"] = k  # of the one-run interval: sqrt(2) x t(rounds - 1) / z
    return out


# ---- the part between runs, from earlier runs of this host (ctxbench run) ------
#
# The drift above is what moves within one run; a run later meets the host in
# another state (its clock, a neighbour), which one run cannot see. Earlier
# runs of the same host, kernel and command in the results store can: the
# spread of their log medians (core/store/between.rel_sd) is what another
# run's median varies by, its own error and the host's state together. With
# this run's own error in quadrature, times Student's t over the earlier
# runs (few runs say little: issue 48 found the part beyond the runs' own
# intervals, with z, held the next run in a third of the ids), it makes the
# interval one for another run's median here.


# A relative sd between runs beyond this (1000%) is no host's: a damaged
# store or record; it widens nothing (rounds.apply_between_runs), and
# reanalyse refuses it in a file
MAX_REL_SD = 10.0


def between_runs(summary: dict, total_rel: float, runs: int) -> dict:
    """The summary with its interval made one for another run's median:
    t(runs - 1) / z x (each side of its interval in quadrature with
    z x `total_rel` x |median|), `total_rel` the relative sd of `runs`
    earlier runs' medians; the interval before kept as ci95_this_run."""
    from ctxbench.stats.power import family_t  # late: scipy.stats costs start-up time
    if runs < 2 or not math.isfinite(total_rel):
        return summary
    k = family_t(1, runs - 1) / Z95
    out = _widened(summary, total_rel, "ci95_this_run", between_run_rel_sd=total_rel, between_runs=runs,
                   ci95_multiple=k, ci95_for=f"another run's median on this host ({runs} earlier runs in the "
                                             f"store, t with {runs - 1} degrees of freedom)")
    if out is summary:
        return summary
    med, (lo, hi) = out["median"], out["ci95"]
    out["ci95"] = [med - k * (med - lo), med + k * (hi - med)]
    return out
