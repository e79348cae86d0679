"""Coverage of 95% intervals for an effect paired by rounds (issue 23): which
interval the project uses for every effect over rounds (stats.power).

A fixed-seed simulation: `reps` runs of n rounds, each round one paired
difference with true mean 0, and how often each method's 95% interval
contains 0 (nominal 0.95; the binomial error of a coverage near 0.95 over
`reps` runs is sqrt(0.95 * 0.05 / reps), 0.011 at 400). Noise: normal, and
contaminated (10% of rounds with 5x the spread: a disturbed round).

Methods:
- percentile: percentile bootstrap of the mean over rounds (the project's
  interval before issue 23);
- BCa: scipy.stats.bootstrap, method="BCa";
- bootstrap-t: studentized bootstrap of the mean (t* = (m* - m) / se*);
- trimmed t: 20% trimmed mean, Tukey-McLaughlin t interval (the sweep's
  before issue 23, scipy.stats.mstats);
- boot-se t: the estimate +- t(rounds - 1) x the bootstrap's standard
  error over rounds scaled by sqrt(n / (n - 1)) (stats.power.effect).
Width: median interval width over runs, in units of the noise's sd.

Run: .venv/bin/python bench/interval_coverage.py [reps]   (< 1 min)
"""
from __future__ import annotations

import math
import sys
import warnings

import numpy as np
from scipy import stats
from scipy.stats import mstats

SEED = 20071
RESAMPLES = 2000
ROUNDS = (3, 5, 8, 16, 32)


def noise(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    x = rng.standard_normal(n)
    if kind == "contaminated":
        x = np.where(rng.random(n) < 0.10, 5.0 * x, x)
    return x


def intervals(x: np.ndarray, rng: np.random.Generator) -> dict[str, tuple[float, float]]:
    n, m = x.size, float(x.mean())
    draws = x[rng.integers(0, n, size=(RESAMPLES, n))]
    means = draws.mean(axis=1)
    out = {"percentile": tuple(np.percentile(means, [2.5, 97.5]))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # BCa warns on degenerate resamples at 3 rounds
        ci = stats.bootstrap((x,), np.mean, n_resamples=RESAMPLES, method="BCa",
                             random_state=rng).confidence_interval
    out["BCa"] = (ci.low, ci.high)
    se = x.std(ddof=1) / math.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (means - m) / (draws.std(axis=1, ddof=1) / math.sqrt(n))
    t = np.where(np.isnan(t), 0.0, t)  # a resample of one repeated round: m* = m only if all equal
    # a resample of one round repeated has se* = 0 and t* = +-inf (1 in 9 at 3 rounds): no interpolation
    q_lo, q_hi = np.quantile(t, [0.025, 0.975], method="inverted_cdf")
    out["bootstrap-t"] = (m - q_hi * se, m - q_lo * se)
    out["trimmed t"] = tuple(float(v) for v in mstats.trimmed_mean_ci(x, limits=(0.2, 0.2), alpha=0.05))
    tq = stats.t.ppf(0.975, n - 1)
    bse = float(means.std(ddof=1)) * math.sqrt(n / (n - 1))
    out["boot-se t"] = (m - tq * bse, m + tq * bse)
    return out


def main(reps: int = 400) -> None:
    rng = np.random.default_rng(SEED)
    names = ["percentile", "BCa", "bootstrap-t", "trimmed t", "boot-se t"]
    print(f"95% coverage (median width / sd), {reps} runs per cell, {RESAMPLES} resamples, seed {SEED}; "
          f"binomial error of a coverage of 0.95: {math.sqrt(0.95 * 0.05 / reps):.3f}")
    print(f"{'noise':<13}{'n':>3}  " + "".join(f"{k:>20}" for k in names))
    for kind in ("normal", "contaminated"):
        for n in ROUNDS:
            hit = {k: 0 for k in names}
            width = {k: [] for k in names}
            for _ in range(reps):
                for k, (lo, hi) in intervals(noise(rng, n, kind), rng).items():
                    hit[k] += bool(lo <= 0 <= hi)
                    width[k].append(hi - lo)
            print(f"{kind:<13}{n:>3}  " + "".join(
                f"{hit[k] / reps:>12.3f} ({np.median(width[k]):>5.2f})" for k in names))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
