"""Summaries of quantities derived from several independent sets of
samples (seed 000's I = R'_total - (R_total - C) - n*C and friends).

The point estimate uses the means of the sets (seed 000 reports averages
of repeated runs); the 95% interval is a percentile bootstrap that resamples
every set independently (rows of a set stay together, so the parts of one
run move together), with a fixed seed so re-analysis gives the same
interval. Nothing is clipped: a negative derived cost stays negative."""
from __future__ import annotations

import math
from typing import Callable, Mapping

import numpy as np

from ctxbench.stats import resample
from ctxbench.stats.summary import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED


def derived_summary(fn: Callable[[Mapping[str, np.ndarray]], float],
                    sets: Mapping[str, np.ndarray], level: float = 0.95,
                    resamples: int = BOOTSTRAP_RESAMPLES) -> dict:
    """fn gets, per set name, the column means (1-D array) of that set."""
    arrs = {k: np.atleast_2d(np.asarray(v, dtype=float).T).T if np.ndim(v) == 1 else np.asarray(v, dtype=float)
            for k, v in sets.items()}
    if any(a.shape[0] == 0 for a in arrs.values()):
        nan = math.nan
        return {"n": 0, "mean": nan, "median": nan, "stdev": nan, "cv": nan, "ci95": [nan, nan],
                "ci95_of": "mean", "method": "bootstrap of independent sets"}
    point = float(fn({k: a.mean(axis=0) for k, a in arrs.items()}))
    vals = resample.of_sets(fn, arrs, resample.generator(BOOTSTRAP_SEED), resamples)
    lo, hi = resample.interval(vals, level)
    sd = float(np.std(vals, ddof=1))
    return {"n": int(min(a.shape[0] for a in arrs.values())), "mean": point, "median": point,
            "stdev": sd, "cv": sd / abs(point) if point else math.nan,
            "ci95": [float(lo), float(hi)], "ci95_of": "mean",
            "method": "bootstrap of independent sets (stdev: of the estimate)"}


def ratio(num: float | None, den: float | None) -> float | None:
    """num / den of two measured costs; None where it means nothing."""
    if num is None or den is None or den <= 0 or num < 0:
        return None  # a ratio of a negative or zero cost means nothing
    return num / den
