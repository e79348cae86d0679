"""An interval over launches: what a benchmark's separate processes (a
runtime's harness, a peer's run) decide is the top level of its random
effects, so an interval meant to hold another launch is over the launches'
own results (runtimes, peers)."""
from __future__ import annotations

import math

import numpy as np

from ctxbench.stats import power
from ctxbench.stats.numbers import is_finite


def interval(medians: list[float]) -> dict | None:
    """Kalibera and Jones (2013): a benchmark's launches are the top level
    of its random effects, so an interval that is to cover what a launch
    decides is over the launches' own results. Student's t over the
    launches' medians with launches - 1 degrees of freedom: their mean,
    sd, standard error and 95% interval; None below two launches."""
    x = np.array([m for m in medians if is_finite(m)], dtype=float)
    if x.size < 2:
        return None
    mean, sd = float(x.mean()), float(x.std(ddof=1))
    se = sd / math.sqrt(x.size)
    t = power.family_t(1, x.size - 1)
    return {"launches": int(x.size), "df": int(x.size - 1), "mean": mean, "sd": sd, "se": se, "t": t,
            "ci95": [mean - t * se, mean + t * se], "medians": [float(m) for m in x]}
