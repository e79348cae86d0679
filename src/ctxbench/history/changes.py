"""Change points in a series of run medians: E-divisive means (Matteson &
James 2014) as MongoDB's CI runs it, from its own library
(signal-processing-algorithms), not a hand-written detector. Its
permutation test is random: a fixed seed makes a series give the same
answer every time."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ctxbench.core.errors import UserError

PVALUE = 0.01        # the permutation test's level for each change
PERMUTATIONS = 199   # permutations per test: the smallest p it can give is 1/200
SEED = 20071
MIN_POINTS = 6       # fewer runs than this: no test is made
# The step the detector finds at the right run in 90% of 60-run series, in
# units of the series' run-to-run noise (tests/test_history.py checks it on
# synthetic series: E-divisive is scale-free, so one noise level stands for
# all). Measured: a 5% step in 60 runs at 2% noise (2.5 sd) was found in
# 89-96% of series, at 3% (1.7 sd) in 70-76%.
FOUND_90_SD = 2.5
# the detector's distance matrix grows as n^2: 0.3 s at 500 runs, 1.7 s at
# 1000 here; a longer series is tested over its last MAX_POINTS runs
MAX_POINTS = 500


@dataclass(frozen=True)
class Change:
    index: int          # the first point after the change
    before: float       # median of the points since the previous change
    after: float        # median of the points up to the next change
    pct: float          # (after - before) / before


def noise(medians: list[float]) -> float:
    """The series' run-to-run noise as a fraction of its median: the
    median absolute difference of successive runs over 0.6745 * sqrt(2)
    (the sd for normal noise), so that a step moves one difference and not
    the estimate; nan under 3 runs."""
    x = np.asarray(medians, dtype=float)
    if x.size < 3 or not np.median(x):
        return float("nan")
    return float(np.median(np.abs(np.diff(x))) / (0.6744897501960817 * np.sqrt(2)) / abs(np.median(x)))


def find(medians: list[float], pvalue: float = PVALUE) -> list[Change]:
    if len(medians) < MIN_POINTS:
        return []
    skip = max(len(medians) - MAX_POINTS, 0)
    medians = medians[skip:]
    try:
        from signal_processing_algorithms.determinism import deterministic_numpy_random, deterministic_random
        from signal_processing_algorithms.energy_statistics.energy_statistics import e_divisive
    except ImportError as e:
        raise UserError(f"history: the change-point detector is not installed ({e.name or e}); in a checkout "
                        "`make run` installs it, else pip install --no-deps signal-processing-algorithms==2.1.6 "
                        "(it builds a C extension: a compiler is needed)")
    series = np.asarray(medians, dtype=float)
    with deterministic_random(SEED), deterministic_numpy_random(SEED):
        cps = sorted(int(i) for i in e_divisive(series, pvalue=pvalue, permutations=PERMUTATIONS))
    edges = [0, *cps, len(series)]
    out = []
    for k, i in enumerate(cps):
        before = float(np.median(series[edges[k]:i]))
        after = float(np.median(series[i:edges[k + 2]]))
        out.append(Change(skip + i, before, after, (after - before) / before if before else float("nan")))
    return out
