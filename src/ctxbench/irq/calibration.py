"""D's level from the control: the gap loop's D is not what a running loop
pays per signal. Measured here (a clock loop timed whole, plain against
interrupted, 150 pairs at 10 kHz): its own gaps said 13.0 us per signal, the
same loop timed whole paid 12.0 us. The gaps charge a signal with what the
plain runs pay anyway: a scheduler tick that expires within one signal's
handling is served in the same interrupt (the interrupted runs had 36
separate 10-50 us interruptions per 50 ms, the plain ones 46), and a host
stall that covers an expiry ends at that signal's gap. Both scale with how
long a signal takes to serve, so the bias is largest where D is (23 us on a
Zen 4 guest).

So D's level is taken from the runs themselves: delta = the rate slope of
the spin's (R' - R - k*D_g) over k (a loop in registers pays the direct
cost and nothing else), and every I uses D_g + delta. The gap loop still
tracks D from round to round. delta is re-estimated in every bootstrap
draw, from the same rounds as the task's point, so its uncertainty is in
every interval."""
from __future__ import annotations

import math

import numpy as np

from ctxbench.stats import power


class Draws:
    """One set of round draws shared by every estimate of a run, so that a
    task's point and the control's delta come from the same rounds in each
    bootstrap draw."""

    def __init__(self, rounds):
        self.labels, self.draws = power.round_draws(rounds)

    def rows(self, g: np.ndarray) -> list[np.ndarray]:
        index = power.rows_by_round(g)
        return [power.rows_of(index, d) for d in self.draws]


def _slopes(k, v, rows) -> np.ndarray:
    return np.array([power.ols_slope(k[i], v[i]) if i.size >= 3 else math.nan for i in rows])


class Offset:
    """delta with its draws (0 and no uncertainty without a control)."""

    def __init__(self, draws: Draws, k=None, adj=None, g=None):
        self.draws = draws
        if k is None or k.size < 3:
            self.estimate, self.boot = 0.0, np.zeros(len(draws.draws))
        else:
            self.estimate = power.ols_slope(k, adj)
            self.boot = _slopes(k, adj, draws.rows(g))

    def effect(self) -> dict:
        return power.effect(self.estimate, self.boot, self.draws.labels.size)

    def mean(self, k, adj, g) -> dict:
        """mean(adj - k * delta) over the rounds, as an effect."""
        if not k.size:
            return power.effect(math.nan, np.array([]), 0)
        est = float(adj.mean() - k.mean() * self.estimate)
        boot = np.array([adj[i].mean() - k[i].mean() * b if i.size else math.nan
                         for i, b in zip(self.draws.rows(g), self.boot)])
        return power.effect(est, boot, np.unique(g).size)

    def slope(self, k, adj, g) -> dict:
        """d(adj)/dk - delta, as an effect."""
        if k.size < 3:
            return power.effect(math.nan, np.array([]), 0)
        return power.effect(power.ols_slope(k, adj) - self.estimate, _slopes(k, adj, self.draws.rows(g)) - self.boot,
                            np.unique(g).size)

    def shifted(self, d: np.ndarray, g: np.ndarray) -> dict:
        """The mean of the gap loop's D plus delta: D as the runs pay it."""
        ok = np.isfinite(d)
        d, g = d[ok], g[ok]
        est = float(d.mean() + self.estimate) if d.size else math.nan
        boot = np.array([d[i].mean() + b if i.size else math.nan for i, b in zip(self.draws.rows(g), self.boot)])
        return power.effect(est, boot, np.unique(g).size)
