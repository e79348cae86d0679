"""Two-sample comparison for `ctxbench compare`: the Mann-Whitney U test,
implemented with numpy (normal approximation with tie correction and
continuity correction; fine for the >= 10 samples per side a verdict
needs), and the verdict rule."""
from __future__ import annotations

import math

import numpy as np

MIN_SAMPLES = 10
ALPHA = 0.05


def _ranks(x: np.ndarray) -> np.ndarray:
    """Average ranks (1-based), ties sharing the mean of their ranks."""
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    ranks = np.empty(x.size, dtype=float)
    i = 0
    while i < xs.size:
        j = i
        while j + 1 < xs.size and xs[j + 1] == xs[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def mann_whitney(a, b) -> tuple[float, float]:
    """(U of `a`, two-sided p). p is nan when either side is empty."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    n1, n2 = a.size, b.size
    if n1 == 0 or n2 == 0:
        return math.nan, math.nan
    both = np.concatenate([a, b])
    r = _ranks(both)
    u1 = float(r[:n1].sum() - n1 * (n1 + 1) / 2.0)
    mu = n1 * n2 / 2.0
    _, counts = np.unique(both, return_counts=True)
    n = n1 + n2
    tie = float((counts ** 3 - counts).sum())
    var = n1 * n2 / 12.0 * ((n + 1) - tie / (n * (n - 1))) if n > 1 else 0.0
    if var <= 0:
        return u1, 1.0
    z = (abs(u1 - mu) - 0.5) / math.sqrt(var)
    p = math.erfc(max(z, 0.0) / math.sqrt(2.0))
    return u1, min(1.0, p)


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
