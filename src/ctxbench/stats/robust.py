"""Robust location over rounds: the Hodges-Lehmann estimator of per-round
values, with its interval from the bootstrap of whole rounds (stats.power:
the same draws every effect of a run uses, so that effects of one run can
be differenced draw by draw).

Why Hodges-Lehmann: a round that a host stall or a neighbour hit moves
one value of a few dozen, and the median of the pairwise means (the
Walsh averages) sets it aside, while keeping 95% of the mean's efficiency
where the rounds are normal (the median keeps 64%). Written here because
scipy has no Hodges-Lehmann estimator, and the bootstrap needs it over
thousands of draws at once (vectorised, memory bounded by
resample.chunks)."""
from __future__ import annotations

import math

import numpy as np

from ctxbench.stats import power, resample

METHOD = "Hodges-Lehmann estimator over rounds (median of the pairwise means of the rounds' values)"


def hodges_lehmann(x) -> float:
    """The median of the Walsh averages (x_i + x_j) / 2, i <= j, of the
    finite values; nan if none."""
    v = np.asarray(x, dtype=float)
    v = v[np.isfinite(v)]
    if not v.size:
        return math.nan
    i, j = np.triu_indices(v.size)
    return float(np.median((v[i] + v[j]) / 2))


def median_of(xs) -> float:
    """The median of the finite values, nan if none (no numpy warning)."""
    v = np.asarray([x for x in xs if isinstance(x, (int, float)) and math.isfinite(x)], dtype=float)
    return float(np.median(v)) if v.size else math.nan


def hodges_lehmann_rows(m: np.ndarray) -> np.ndarray:
    """hodges_lehmann of every row of m (nan cells left out)."""
    m = np.asarray(m, dtype=float)
    if m.ndim != 2 or not m.shape[1]:
        return np.full(m.shape[0] if m.ndim else 0, math.nan)
    i, j = np.triu_indices(m.shape[1])
    out = np.empty(m.shape[0])
    for a, b in resample.chunks(m.shape[0], i.size):
        w = (m[a:b, i] + m[a:b, j]) / 2
        with np.errstate(all="ignore"):
            ok = np.isfinite(w).any(axis=1)
            out[a:b] = np.nan
            if ok.any():
                out[a:b][ok] = np.nanmedian(w[ok], axis=1)
    return out


class Rounds:
    """The rounds of one run and the bootstrap's draws of them (whole
    rounds with replacement, stats.power.round_draws: the same seed and
    labels give the same draws as the run's other effects)."""

    def __init__(self, labels, resamples: int = resample.RESAMPLES):
        self.labels, self.draws = power.round_draws(np.asarray(list(labels)), resamples)
        self.at = {lab: k for k, lab in enumerate(self.labels.tolist())}
        self.pick = np.searchsorted(self.labels, self.draws)

    def vector(self, by_round: dict) -> np.ndarray:
        """A value per round label (nan where a round has none)."""
        v = np.full(self.labels.size, math.nan)
        for lab, x in by_round.items():
            k = self.at.get(lab)
            if k is not None and x is not None and math.isfinite(x):
                v[k] = x
        return v

    def estimate(self, v: np.ndarray) -> tuple[float, np.ndarray]:
        """HL of the rounds' values and of each draw's."""
        return hodges_lehmann(v), hodges_lehmann_rows(v[self.pick])

    def effect(self, v: np.ndarray) -> dict:
        """stats.power.effect of the HL estimate (rounds: those with a value)."""
        est, boot = self.estimate(v)
        return self.effect_of(est, boot, int(np.isfinite(v).sum()))

    def effect_of(self, est: float, boot: np.ndarray, rounds: int) -> dict:
        e = power.effect(est, boot, rounds)
        e["method"] = f"{METHOD}; {e['method']}"
        return e
