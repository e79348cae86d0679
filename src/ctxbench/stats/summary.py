"""Statistics of a result's samples (docs/method.md#summaries).

The summary never clips: a negative derived cost stays negative. The 95%
confidence interval is a percentile bootstrap of the median (the statistic
the table leads with), with a fixed seed so that re-analysing a file gives
the same interval. Where the samples come in groups (each group one set of
parties, measured in one short stretch of time), the groups are what is
resampled: samples within a group share that stretch's machine state and
are not independent, and resampling them one by one gives intervals far
narrower than the run-to-run spread.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from ctxbench.stats import resample

BOOTSTRAP_RESAMPLES = resample.RESAMPLES
BOOTSTRAP_SEED = resample.SEED


def bootstrap_ci(x: np.ndarray, level: float = 0.95, resamples: int = BOOTSTRAP_RESAMPLES,
                 seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Percentile bootstrap interval of the median of the samples `x`."""
    if x.size == 0:
        return (math.nan, math.nan)
    if x.size == 1:
        return (float(x[0]), float(x[0]))
    return resample.interval(resample.medians(x, resample.generator(seed), resamples), level)


def cluster_bootstrap_ci(x: np.ndarray, groups: np.ndarray, level: float = 0.95,
                         resamples: int = BOOTSTRAP_RESAMPLES,
                         seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Percentile bootstrap of the median of the pooled samples of groups
    drawn with replacement (a cluster bootstrap), in bounded memory."""
    return resample.interval(resample.cluster_medians(x, groups, resample.generator(seed), resamples), level)


OUTLIER_MADS = 10.0


def outliers(x: np.ndarray) -> int:
    """Samples more than OUTLIER_MADS scaled median absolute deviations from
    the median (hyperfine's rule). They are counted and reported, not
    dropped: only verification drops samples."""
    if x.size < 3:
        return 0
    med = np.median(x)
    mad = 1.4826 * np.median(np.abs(x - med))
    if mad == 0:
        return int(np.sum(x != med)) if np.sum(x != med) < x.size / 10 else 0
    return int(np.sum(np.abs(x - med) > OUTLIER_MADS * mad))


def summarize(samples: Iterable[float], groups: Iterable[int] | None = None) -> dict:
    """n, min, max, median, mean, stdev, cv, ci95 (of the median), outliers.
    `groups`, if given, labels each sample with its group (same length)."""
    pairs = list(zip(samples, groups)) if groups is not None else [(s, 0) for s in samples]
    pairs = [(s, g) for s, g in pairs if s is not None and math.isfinite(s)]
    x = np.asarray([s for s, _ in pairs], dtype=float)
    g = np.asarray([g for _, g in pairs])
    n = int(x.size)
    if n == 0:
        nan = math.nan
        return {"n": 0, "min": nan, "max": nan, "median": nan, "mean": nan, "stdev": nan,
                "cv": nan, "ci95": [nan, nan], "ci95_of": "median", "ci95_resampled": "samples",
                "groups": 0, "outliers": 0}
    mean = float(np.mean(x))
    stdev = float(np.std(x, ddof=1)) if n > 1 else 0.0
    ngroups = int(np.unique(g).size) if groups is not None else 0
    lo, hi = cluster_bootstrap_ci(x, g) if ngroups >= 2 else bootstrap_ci(x)
    return {
        "n": n,
        "min": float(np.min(x)),
        "max": float(np.max(x)),
        "median": float(np.median(x)),
        "mean": mean,
        "stdev": stdev,
        # cv relative to |mean|: defined for negative costs too; nan at 0
        "cv": stdev / abs(mean) if mean != 0 else math.nan,
        "ci95": [lo, hi],
        "ci95_of": "median",
        "ci95_resampled": "groups" if ngroups >= 2 else "samples",
        "groups": ngroups,
        "outliers": outliers(x),
    }
