"""Two-sample comparison for `ctxbench compare`: the Mann-Whitney U test
(scipy's, exact at small n) and the verdict rule."""
from __future__ import annotations

import math

import numpy as np

MIN_SAMPLES = 10
ALPHA = 0.05


def mann_whitney(a, b) -> tuple[float, float]:
    """(U of `a`, two-sided p). scipy chooses the exact distribution for
    small samples without ties (compare's per-group medians: often 5-10 a
    side, where the normal approximation is off) and the normal one with
    tie correction otherwise. p is nan when either side is empty."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.size == 0 or b.size == 0:
        return math.nan, math.nan
    if np.all(a == a[0]) and np.all(b == a[0]):
        return a.size * b.size / 2.0, 1.0  # identical constants: no evidence of a shift
    from scipy.stats import mannwhitneyu  # here: scipy.stats takes 0.7 s to import, every CLI start paid it

    res = mannwhitneyu(a, b, alternative="two-sided", method="auto")
    return float(res.statistic), float(res.pvalue)


def verdict(base_median: float, new_median: float, p: float, threshold: float, n_base: int, n_new: int) -> str:
    """faster / slower / no significant change (cost: lower is faster)."""
    if not (math.isfinite(base_median) and math.isfinite(new_median)) or not math.isfinite(p):
        return "n/a"
    if min(n_base, n_new) < 2:
        return "n/a"
    rel = (new_median - base_median) / abs(base_median) if base_median else math.inf
    if p < ALPHA and abs(rel) >= threshold:
        return "slower" if new_median > base_median else "faster"
    return "no significant change"


def geomean_ratio(ratios: list[float]) -> float:
    r = [x for x in ratios if math.isfinite(x) and x > 0]
    return math.exp(sum(math.log(x) for x in r) / len(r)) if r else math.nan
