"""Power and paired designs for derived quantities (METHOD.md, Statistics:
Power). Every indirect cost is a small difference of large measured
quantities; before one is reported, the run must know the smallest effect
it can resolve.

- The minimum detectable effect (MDE) of an estimate with standard error
  `se` is (z_{1-alpha/2} + z_{power}) * se: the true effect that a two-sided
  test at alpha = 5% finds with 80% probability. An estimate whose absolute
  value is below its MDE is reported as "below MDE", not as a finding.
- Designs are paired: reference and treatment are measured in the same
  round (interleaved, ABAB...), and a round is the unit of resampling, so
  the drift between rounds is carried in every interval.
- `slope` fits a line over many points (seed 000's I against n, irq's
  R' - R against k) instead of differencing two large numbers.
- `rounds_for` is the effort a pilot implies: how many rounds bring the
  standard error down to a target, given the pilot's.

Every interval here is a percentile bootstrap over rounds with the
project's fixed seed (stats.resample), so re-analysing a file gives the
same numbers.
"""
from __future__ import annotations

import math
from statistics import NormalDist
from typing import Sequence

import numpy as np

from ctxbench.stats import resample

Z_ALPHA = 1.959963984540054  # two-sided, alpha = 5%
Z_POWER = 0.8416212335729143  # power 80%
MDE_FACTOR = Z_ALPHA + Z_POWER  # 2.80


def mde(se: float) -> float:
    """Minimum detectable effect of an estimate with standard error se."""
    return MDE_FACTOR * se if math.isfinite(se) else math.nan


def rounds_for(se_pilot: float, rounds_pilot: int, target_se: float, most: int) -> int:
    """Rounds needed for the standard error to shrink from se_pilot (measured
    over rounds_pilot rounds) to target_se: se falls as 1/sqrt(rounds).
    Capped at `most` (what the time budget allows)."""
    if not (math.isfinite(se_pilot) and se_pilot > 0 and target_se > 0):
        return max(rounds_pilot, 1)
    need = math.ceil(rounds_pilot * (se_pilot / target_se) ** 2)
    return int(max(rounds_pilot, min(most, need)))


def family_t(tests: int, df: int | None = None) -> float:
    """The multiple of a standard error that makes `tests` two-sided
    intervals hold together at 95% (Bonferroni: 2.5% a side shared over the
    tests). A self-check that asks every one of many points to be zero is
    one statement about all of them: at 95% each, 16 points with no effect
    at all would show one outside in more than half the runs. With few
    rounds the standard error is itself uncertain: Student's t with `df`
    degrees of freedom (3 of them: 3x wider than the normal's at 16 tests)."""
    q = 1 - (1 - 0.95) / 2 / max(tests, 1)
    if df is None or df < 1:
        return NormalDist().inv_cdf(q)
    from scipy.stats import t  # late: scipy.stats costs a CLI start-up 0.5 s

    return float(t.ppf(q, df))


def ols_slope(x: np.ndarray, y: np.ndarray) -> float:
    xm = x - x.mean()
    den = float(np.dot(xm, xm))
    return float(np.dot(xm, y - y.mean()) / den) if den > 0 else math.nan


def round_draws(rounds: Sequence, resamples: int = resample.RESAMPLES,
                seed: int = resample.SEED) -> tuple[np.ndarray, np.ndarray]:
    """The distinct round labels and `resamples` draws of them with
    replacement (resamples x rounds): for statistics over several series
    measured in the same rounds (e.g. a task pair and the empty pair
    interleaved group by group), resampled together."""
    labels = np.unique(np.asarray(rounds))
    return labels, resample.generator(seed).choice(labels, size=(resamples, labels.size))


def rows_by_round(row_rounds: Sequence) -> dict:
    """Round label -> indices of its rows (to gather a draw's rows fast)."""
    rr = np.asarray(row_rounds)
    return {r: np.flatnonzero(rr == r) for r in np.unique(rr)}


def rows_of(index: dict, draw: np.ndarray) -> np.ndarray:
    """Indices of the rows of the rounds in `draw`, with multiplicity."""
    parts = [index[r] for r in draw if r in index]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=int)


def _cluster_draws(clusters: np.ndarray, seed: int, resamples: int) -> list[np.ndarray]:
    """Row indices of `resamples` draws of whole clusters with replacement."""
    _, draws = round_draws(clusters, resamples, seed)
    index = rows_by_round(clusters)
    return [rows_of(index, d) for d in draws]


def _clusters(n: int, clusters: Sequence | None) -> np.ndarray:
    return np.arange(n) if clusters is None else np.asarray(clusters)


def effect(estimate: float, boot: np.ndarray, level: float = resample.LEVEL) -> dict:
    """The record every derived effect carries: estimate, its percentile
    interval, standard error (sd of the bootstrap), MDE, and two verdicts:
    `resolved` (the interval excludes 0) and `below_mde` (|estimate| < MDE:
    the run cannot tell it from noise)."""
    boot = boot[np.isfinite(boot)]
    if not math.isfinite(estimate) or boot.size < 2:
        nan = math.nan
        return {"estimate_ns": estimate, "ci95": [nan, nan], "se_ns": nan, "mde_ns": nan,
                "resolved": False, "below_mde": True}
    lo, hi = resample.interval(boot, level)
    se = float(np.std(boot, ddof=1))
    m = mde(se)
    return {"estimate_ns": float(estimate), "ci95": [lo, hi], "se_ns": se, "mde_ns": m,
            "resolved": bool(lo > 0 or hi < 0), "below_mde": bool(abs(estimate) < m)}


def slope(x: Sequence[float], y: Sequence[float], clusters: Sequence | None = None,
          resamples: int = resample.RESAMPLES, seed: int = resample.SEED) -> dict:
    """Least-squares slope of y on x, as an `effect`; the bootstrap draws
    whole clusters (rounds) with replacement."""
    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ok = np.isfinite(xa) & np.isfinite(ya)
    cl = _clusters(xa.size, clusters)[ok]
    xa, ya = xa[ok], ya[ok]
    est = ols_slope(xa, ya) if xa.size >= 2 else math.nan
    if xa.size < 3 or np.unique(cl).size < 2:
        return effect(est, np.array([]))
    boot = np.array([ols_slope(xa[i], ya[i]) for i in _cluster_draws(cl, seed, resamples)])
    return effect(est, boot)


def paired_mean(diffs: Sequence[float], clusters: Sequence | None = None,
                resamples: int = resample.RESAMPLES, seed: int = resample.SEED) -> dict:
    """Mean of paired differences (treatment - reference of one round), as an
    `effect`; the bootstrap draws whole clusters with replacement."""
    d = np.asarray(diffs, dtype=float)
    ok = np.isfinite(d)
    cl = _clusters(d.size, clusters)[ok]
    d = d[ok]
    est = float(d.mean()) if d.size else math.nan
    if d.size < 2 or np.unique(cl).size < 2:
        return effect(est, np.array([]))
    boot = np.array([d[i].mean() for i in _cluster_draws(cl, seed, resamples)])
    return effect(est, boot)


TRIM = 0.2  # 20% each side: Wilcox's default for a trimmed mean


def trimmed_mean(diffs: Sequence[float], trim: float = TRIM) -> dict:
    """A paired difference per round (one value each), as an `effect`: the
    20% trimmed mean with its Tukey-McLaughlin t interval (winsorized
    variance, scipy.stats.mstats). For the few rounds a budget allows (6-10)
    a percentile bootstrap of the mean is too narrow, and one disturbed
    round moves the mean; the trimmed mean resists that round and the t
    interval is calibrated for small samples."""
    from scipy.stats import mstats  # late: start-up time of the CLI

    d = np.asarray(diffs, dtype=float)
    d = d[np.isfinite(d)]
    if d.size < 3:
        return effect(float(d.mean()) if d.size else math.nan, np.array([]))
    lim = (trim, trim)
    est = float(mstats.trimmed_mean(d, limits=lim))
    lo, hi = (float(x) for x in mstats.trimmed_mean_ci(d, limits=lim, alpha=0.05))
    se = float(mstats.trimmed_stde(d, limits=lim))
    if not (math.isfinite(se) and se > 0):
        return effect(est, np.array([]))
    m = mde(se)
    kept = int(mstats.trimboth(d, trim).count())  # the t interval's degrees of freedom are kept - 1
    return {"estimate_ns": est, "ci95": [lo, hi], "se_ns": se, "mde_ns": m, "df": kept - 1,
            "resolved": bool(lo > 0 or hi < 0), "below_mde": bool(abs(est) < m),
            "estimator": f"{trim:.0%} trimmed mean, Tukey-McLaughlin t interval"}

