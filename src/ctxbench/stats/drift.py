"""The run-to-run part of an interval (METHOD.md, Statistics: "an interval
must reflect the run-to-run variation").

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


def common_factor(series: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Per round, the median over ids of log(round median / id median).
    `series`: per id, (kept samples, their round labels 0..R-1)."""
    rounds = 1 + max((int(g.max()) for _, g in series if g.size), default=-1)
    if rounds <= 0:
        return np.zeros(0)
    table = np.full((len(series), rounds), np.nan)
    for i, (x, g) in enumerate(series):
        ok = np.isfinite(x) & (x > 0)
        x, g = x[ok], g[ok]
        if not x.size:
            continue
        med = np.median(x)
        for r in np.unique(g):
            table[i, int(r)] = math.log(np.median(x[g == r]) / med)
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


def widen(summary: dict, rel_sd: float) -> dict:
    """The summary with its interval widened by the drift (each side in
    quadrature); the bootstrap interval kept as ci95_within."""
    med = summary.get("median")
    lo, hi = summary.get("ci95") or [math.nan, math.nan]
    if not (math.isfinite(rel_sd) and med is not None and math.isfinite(med) and math.isfinite(lo)):
        return summary
    d = Z95 * rel_sd * abs(med)
    out = dict(summary)
    out["ci95_within"] = [lo, hi]
    out["ci95"] = [med - math.hypot(med - lo, d), med + math.hypot(hi - med, d)]
    out["drift_rel_sd"] = rel_sd
    return out
