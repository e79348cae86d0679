"""Power and paired designs for derived quantities
(docs/method.md#effects-over-rounds and #minimum-detectable-effect).
Every indirect cost is a small difference of large measured quantities;
before one is reported, the run must know the smallest effect it can
resolve.

- The minimum detectable effect (MDE) of an estimate with standard error
  `se` is the true effect that a two-sided test at alpha = 5% finds with
  80% probability: (z_{1-alpha/2} + z_{power}) * se = 2.80 se for a normal
  estimate, and for a t interval on df degrees of freedom (every effect
  over rounds) the multiple that gives the t test that power (`mde_factor`:
  3.27 at 8 rounds, 5.65 at 3), so that "below MDE" and "resolved" speak of
  the same test. An estimate whose absolute value is below its MDE is
  reported as "below MDE", not as a finding.
- Designs are paired: reference and treatment are measured in the same
  round (interleaved, ABAB...), and a round is the unit of resampling, so
  the drift between rounds is carried in every interval.
- `slope` fits a line over many points (David et al.'s I against n, irq's
  R' - R against k) instead of differencing two large numbers.
- `rounds_for` is the effort a pilot implies: how many rounds bring the
  standard error down to a target, given the pilot's.

Every interval over rounds is one method (`effect`, named in each record's
"method"): the bootstrap's standard error over whole rounds, with the
project's fixed seed (stats.resample, so re-analysing a file gives the same
numbers), and Student's t with rounds - 1 degrees of freedom. Chosen by
bench/interval_coverage.py (issue 23): at the 3-8 rounds a budget allows,
a percentile bootstrap covers 72-89% and scipy's BCa 68-87%, the
bootstrap-t is infinite at 3 rounds; this one covers 94-97%, normal or
with disturbed rounds, and 90-95% at 3-32 rounds when a disturbance slows
one side only (skewed differences, where the trimmed-mean t falls to 80%
at 32 rounds: it estimates another quantity than the mean); and it
applies to any statistic of the rounds (slopes, sums of parts, ratios).
"""
from __future__ import annotations

import functools
import math
from statistics import NormalDist
from typing import Sequence

import numpy as np

from ctxbench.stats import resample

Z_ALPHA = 1.959963984540054  # two-sided, alpha = 5%
Z_POWER = 0.8416212335729143  # power 80%
MDE_FACTOR = Z_ALPHA + Z_POWER  # 2.80


@functools.lru_cache(maxsize=None)
def mde_factor(df: int | None = None) -> float:
    """The MDE in standard errors. With df: the noncentrality at which the
    two-sided t test at 5% on df degrees of freedom rejects with 80%
    probability (scipy's noncentral t, solved once per df). (t_{.975} +
    t_{.80}) x se, the textbook shortcut, gives that test 77% at 3 rounds;
    the normal's 2.80 gives it 35% at 3 rounds and 67% at 8."""
    if df is None or df < 1:
        return MDE_FACTOR
    from scipy.optimize import brentq  # late: scipy costs a CLI start-up 0.5 s
    from scipy.stats import nct, t

    q = float(t.ppf(1 - (1 - 0.95) / 2, df))
    # the far tail (rejecting on the wrong side) is < 3e-5 past 2.80 se at any df, and scipy's
    # nct.cdf returns nan there at df = 1: left out
    power_at = lambda ncp: float(nct.sf(q, df, ncp)) - NormalDist().cdf(Z_POWER)  # noqa: E731
    return float(brentq(power_at, MDE_FACTOR, 2 * q + 4))  # power 0.8 lies between (df >= 1)


def mde(se: float, df: int | None = None) -> float:
    """Minimum detectable effect of an estimate with standard error se (a t
    interval on df degrees of freedom when df is given, else the normal's)."""
    return mde_factor(df) * se if math.isfinite(se) else math.nan


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
    """The least-squares slope of y on x; nan with fewer than two points (a
    loaded host can leave a derived point none: numpy then warned about the
    mean of an empty slice on stderr)."""
    if x.size < 2:
        return math.nan
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


def method(resamples: int = resample.RESAMPLES, seed: int = resample.SEED) -> str:
    """What `effect` did, as the records name it."""
    return f"bootstrap-se t over rounds, {resamples} resamples, seed {seed}"


def effect(estimate: float, boot: np.ndarray, rounds: int, level: float = resample.LEVEL,
           seed: int = resample.SEED) -> dict:
    """The record every effect over rounds carries: estimate, its interval,
    standard error, MDE (of that standard error, for the t test on rounds - 1
    degrees of freedom the interval is), degrees of freedom, the
    method, and two verdicts: `resolved` (the interval excludes 0) and
    `below_mde` (|estimate| < MDE: the run cannot tell it from noise).

    `boot` holds the statistic over draws of whole rounds (`rounds` of them
    measured). Interval: estimate +- t(rounds - 1) x se, se the sd of the
    draws times sqrt(rounds / (rounds - 1)) (a bootstrap's plug-in variance
    is (n - 1) / n of the sample's). Hand-written, not scipy.stats.bootstrap:
    scipy's percentile, basic and BCa intervals undercover at 3-8 rounds
    (bench/interval_coverage.py: 72-89% for 95%) and it has no t interval
    on a bootstrap standard error."""
    name = method(int(np.size(boot)), seed)
    boot = boot[np.isfinite(boot)]
    if not math.isfinite(estimate) or boot.size < 2 or rounds < 2:
        nan = math.nan
        return {"estimate_ns": estimate, "ci95": [nan, nan], "se_ns": nan, "mde_ns": nan,
                "resolved": False, "below_mde": True, "method": name}
    from scipy.stats import t  # late: scipy.stats costs a CLI start-up 0.5 s

    se = float(np.std(boot, ddof=1)) * math.sqrt(rounds / (rounds - 1))
    half = float(t.ppf((1 + level) / 2, rounds - 1)) * se
    lo, hi = estimate - half, estimate + half
    m = mde(se, rounds - 1)
    return {"estimate_ns": float(estimate), "ci95": [lo, hi], "se_ns": se, "mde_ns": m, "df": rounds - 1,
            "resolved": bool(lo > 0 or hi < 0), "below_mde": bool(abs(estimate) < m), "method": name}


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
        return effect(est, np.array([]), 0, seed=seed)
    boot = np.array([ols_slope(xa[i], ya[i]) for i in _cluster_draws(cl, seed, resamples)])
    return effect(est, boot, np.unique(cl).size, seed=seed)


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
        return effect(est, np.array([]), 0, seed=seed)
    # a draw's mean is the sum of its clusters' sums over the sum of their
    # sizes: the same draws as _cluster_draws, without gathering rows
    labels, draws = round_draws(cl, resamples, seed)
    at = np.searchsorted(labels, cl)
    sums, sizes = np.bincount(at, weights=d), np.bincount(at)
    pick = np.searchsorted(labels, draws)
    boot = sums[pick].sum(axis=1) / sizes[pick].sum(axis=1)
    return effect(est, boot, labels.size, seed=seed)
