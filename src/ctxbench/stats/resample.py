"""Every bootstrap of the project, in one place: index draws with a fixed
seed (re-analysing a file gives the same interval), percentile intervals,
and memory bounded by drawing the resamples in chunks.

Not scipy.stats.bootstrap: that resamples observations of one or more
samples together, where this project needs whole groups resampled and
the median of their pooled samples taken (samples of one group share one
stretch of machine state). Effects over rounds (slopes, paired
differences, several series measured in the same rounds) are resampled by
whole rounds in stats.power, with this module's seed and intervals.
"""
from __future__ import annotations


import numpy as np

RESAMPLES = 2000
SEED = 20071
LEVEL = 0.95
# Largest array of resampled values held at once (cells of 8 bytes: 128 MiB).
CELL_BUDGET = 16 << 20


def generator(seed: int = SEED) -> np.random.Generator:
    return np.random.default_rng(seed)


def interval(values: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """Percentile interval of a bootstrap distribution."""
    lo, hi = np.percentile(values, [(1 - level) / 2 * 100, (1 + level) / 2 * 100])
    return float(lo), float(hi)


def chunks(resamples: int, cells_per_resample: int, budget: int | None = None):
    """Row ranges [a, b) such that (b - a) * cells_per_resample <= budget."""
    step = max(1, (budget or CELL_BUDGET) // max(1, cells_per_resample))
    for a in range(0, resamples, step):
        yield a, min(resamples, a + step)


def medians(x: np.ndarray, rng: np.random.Generator, resamples: int = RESAMPLES,
            budget: int | None = None) -> np.ndarray:
    """Medians of `resamples` resamples (with replacement) of the samples x."""
    out = np.empty(resamples)
    for a, b in chunks(resamples, x.size, budget):
        out[a:b] = np.median(x[rng.integers(0, x.size, size=(b - a, x.size))], axis=1)
    return out


def cluster_medians(x: np.ndarray, groups: np.ndarray, rng: np.random.Generator,
                    resamples: int = RESAMPLES, budget: int | None = None) -> np.ndarray:
    """Medians of the pooled samples of groups drawn with replacement (a
    cluster bootstrap): memory O(budget), not resamples x groups x samples."""
    labels, inv = np.unique(groups, return_inverse=True)
    sizes = np.bincount(inv)
    # one row per group, padded with nan; a resample takes whole rows
    table = np.full((labels.size, int(sizes.max())), np.nan)
    order = np.argsort(inv, kind="stable")
    col = np.arange(x.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    table[inv[order], col] = x[order]
    out = np.empty(resamples)
    for a, b in chunks(resamples, table.size, budget):
        pick = rng.integers(0, labels.size, size=(b - a, labels.size))
        out[a:b] = np.nanmedian(table[pick].reshape(b - a, -1), axis=1)
    return out
