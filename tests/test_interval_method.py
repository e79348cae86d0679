"""The one interval over rounds (stats.power.effect, issue 23): it covers at
the few rounds a sweep affords, every effect record written names it, the
same file gives the same numbers, and records from before it still read."""
import math

import numpy as np
import pytest

from ctxbench import rounds
from ctxbench.irq import analysis as irq_analysis
from ctxbench.stats import power
from ctxbench.sweep import analysis as sweep_analysis
from ctxbench.tasks import analysis as tasks_analysis
from ctxbench.ui.format import fmt_effect

SWEEP_ROUNDS = (3, 5, 8)  # what a sweep's budget allows (sweep/command.py, CLOSE_ROUNDS)
RUNS = 150  # simulated experiments per round count and noise


def _noise(rng, n, kind):
    x = rng.standard_normal(n)
    return np.where(rng.random(n) < 0.10, 5.0 * x, x) if kind == "contaminated" else x


@pytest.mark.parametrize("kind", ["normal", "contaminated"])
def test_the_interval_covers_at_the_sweeps_round_counts(kind):
    """95% intervals of a null paired effect over 3, 5 and 8 rounds, normal
    noise and with 10% of rounds at 5x the spread (a disturbed round):
    their coverage over 450 simulated runs. Tolerance: the binomial error
    of a coverage of 0.95 over 450 runs is sqrt(0.95 * 0.05 / 450) = 0.010;
    3 of them (0.031) below 0.95 fails one seed in a thousand for a method
    that covers. The percentile bootstrap it replaced covers 0.76-0.89 here
    (bench/interval_coverage.py), far outside."""
    rng = np.random.default_rng(23)
    inside = total = 0
    for n in SWEEP_ROUNDS:
        for _ in range(RUNS):
            lo, hi = power.paired_mean(_noise(rng, n, kind))["ci95"]
            inside += lo <= 0 <= hi
            total += 1
    tol = 3 * math.sqrt(0.95 * 0.05 / total)
    assert inside / total >= 0.95 - tol, (kind, inside / total)


def _methods(obj, where="") -> list[str]:
    """Where an effect record (estimate_ns and ci95) has no method string."""
    if isinstance(obj, dict):
        bad = [where] if "estimate_ns" in obj and "ci95" in obj and not isinstance(obj.get("method"), str) else []
        return bad + [w for k, v in obj.items() for w in _methods(v, f"{where}.{k}")]
    if isinstance(obj, (list, tuple)):
        return [w for i, v in enumerate(obj) for w in _methods(v, f"{where}[{i}]")]
    return []


def test_every_effect_record_written_carries_its_method():
    rng = np.random.default_rng(5)
    e = power.paired_mean(rng.normal(10, 3, 6))
    assert e["method"] == f"bootstrap-se t over rounds, {power.resample.RESAMPLES} resamples, seed 20071"
    assert power.slope([1, 2, 3, 4] * 3, rng.normal(0, 1, 12), [0] * 4 + [1] * 4 + [2] * 4)["method"]
    assert power.paired_mean([1.0])["method"]  # even an effect with no interval says what was tried
    # the sweep's indirect cost (stride > 0 and the stride-0 check)
    for stride in (0, 64):
        rec = sweep_analysis.indirect_record(list(rng.normal(50, 10, 5)), list(range(5)), {}, stride)
        assert rec["method"].startswith("bootstrap-se t over rounds") and rec["df"] == 4
    # ring and anatomy: a paired difference of two results of one run
    a = {"samples": list(rng.normal(110, 1, 12)), "group": [g for g in range(4) for _ in range(3)]}
    b = {"samples": list(rng.normal(100, 1, 12)), "group": a["group"]}
    assert not _methods(rounds.paired_difference(a, b))
    # tasks: every effect of a pair's analysis
    from test_tasks_analysis import _job
    ns = (1, 1000, 2000)
    empty = _job("empty+empty", 6, ns, lambda n, x, y: 1e4 + n * 3000.0, lambda n: 0.0, lambda n: 0.0, 1)
    pair = _job("sort+crc", 6, ns, lambda n, x, y: x + y + n * 3100.0, lambda n: 5e8, lambda n: 4e8, 2)
    out = tasks_analysis.analyse_pair(pair, empty, resamples=200)
    assert not _methods(out.effects) and not _methods(out.points)
    assert "200 resamples" in out.effects["per_switch"]["method"]
    # irq: the per-interrupt costs, the slopes, D and the points
    from test_irq_analysis import RATES, table
    an = irq_analysis.derive({"sort": table(rng, 6, 800.0)}, None, RATES, {}, spin=table(rng, 6, 0.0))
    assert not _methods(an), _methods(an)


def test_re_analysing_gives_the_same_numbers():
    d = list(np.random.default_rng(9).normal(0, 1, 7))
    assert power.paired_mean(d) == power.paired_mean(d)


def test_a_record_from_before_the_method_still_reads_and_reports():
    old = {"estimate_ns": 120.0, "ci95": [80.0, 160.0], "se_ns": 20.0, "mde_ns": 56.0,
           "resolved": True, "below_mde": False}  # no method, no df: a file from before issue 23
    assert "120" in fmt_effect(old)
    r = {"id": "m", "params": {"size": 4096, "stride": 0}, "samples": [1.0], "group": [0],
         "indirect": dict(old)}
    r, = sweep_analysis.with_stride0_family([r])  # no df: the normal's multiple
    assert r["indirect"]["simultaneous_t"] == pytest.approx(power.Z_ALPHA, rel=1e-6)


def test_an_effect_at_its_mde_is_resolved_four_times_in_five():
    """The MDE is what the interval finds with 80% probability: at the
    sweep's 8 rounds (CLOSE_ROUNDS), a true effect of mde_factor(7) standard
    errors (3.27) is resolved in about 80% of 400 simulated runs (binomial
    error 0.020; 3 of them either side). The normal's 2.80 standard errors,
    the MDE before it, is resolved by this t interval in 67% of runs: a
    point "not below its MDE" then went unresolved one time in three."""
    rng = np.random.default_rng(2380)
    n, runs = 8, 400
    effect = power.mde_factor(n - 1) / math.sqrt(n)  # in units of the rounds' sd
    hits = sum(power.paired_mean(effect + rng.standard_normal(n))["resolved"] for _ in range(runs))
    assert abs(hits / runs - 0.80) <= 0.06, f"resolved {hits} of {runs} runs at the MDE, not ~80%"
    assert power.mde_factor(n - 1) > power.MDE_FACTOR  # fewer rounds, a larger multiple
    assert power.mde_factor(None) == power.MDE_FACTOR
