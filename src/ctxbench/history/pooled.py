"""Several runs of one id as one estimate with a between-run component: a
random-effects model over the runs' own estimates and standard errors
(statsmodels' combine_effects: the between-run variance tau^2 by
Paule-Mandel, the interval by Hartung-Knapp-Sidik-Jonkman on runs - 1
degrees of freedom, which keeps its coverage at 3 runs where the normal
interval does not). One run's interval says what moved within it; this
one also holds what moved between runs (the tasks experiment's cost per
switch went from 3.0 to 5.0 us between two runs four minutes apart)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Pooled:
    runs: int
    estimate: float
    ci: tuple[float, float]
    tau: float              # between-run standard deviation
    between_share: float    # tau^2 / (tau^2 + the runs' mean within-run variance): I^2-like
    covers: int             # runs whose own estimate the pooled interval holds


def pool(estimates: list[float], lows: list[float | None], highs: list[float | None]) -> Pooled | None:
    """None with fewer than 2 runs that have an interval."""
    rows = [(e, lo, hi) for e, lo, hi in zip(estimates, lows, highs)
            if lo is not None and hi is not None and math.isfinite(e) and hi > lo]
    if len(rows) < 2:
        return None
    from statsmodels.stats.meta_analysis import combine_effects
    eff = np.array([r[0] for r in rows])
    var = np.array([((r[2] - r[1]) / (2 * Z95)) ** 2 for r in rows])
    # runs that agree exactly make Q = 0, and statsmodels' I^2 (1 - 1/H^2,
    # not used here) divides by it: numpy's warning, not ours to print
    with np.errstate(divide="ignore", invalid="ignore"):
        res = combine_effects(eff, var, method_re="pm", use_t=True)
    # (fixed, random, fixed HKSJ, random HKSJ): the random effect's, on t(runs - 1)
    lo, hi = (float(x) for x in res.conf_int(alpha=0.05, use_t=True)[3])
    tau2 = float(res.tau2)
    share = tau2 / (tau2 + float(var.mean())) if tau2 + var.mean() > 0 else 0.0
    return Pooled(len(rows), float(res.mean_effect_re), (lo, hi), math.sqrt(tau2), share,
                  int(sum(lo <= e <= hi for e in eff)))
