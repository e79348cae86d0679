"""What earlier runs of this host say about the next one (issue 32): the
part of the spread between runs beyond each run's own interval, and this
run's intervals widened by it in ns and in cycles (known numbers, no
measuring)."""
from __future__ import annotations

import math

import pytest

from ctxbench import rounds
from ctxbench.core.store.between import Spread, between_part, rel_sd
from ctxbench.run import table

Z = 1.959963984540054


def test_runs_that_agree_within_their_own_error_add_nothing():
    # medians 1% apart, each with a +-5% interval: all of it is within-run error
    assert between_part([(100.0, 95.0, 105.0), (101.0, 96.0, 106.0), (100.5, 95.5, 105.5)]) == 0.0


def test_runs_that_move_beyond_their_error_give_the_excess():
    meds = [100.0, 110.0, 90.0, 105.0, 95.0]
    half = 0.01  # each run's own sd: 1% / 1.96
    rows = [(m, m * (1 - half), m * (1 + half)) for m in meds]
    import numpy as np
    total = np.var(np.log(meds), ddof=1)
    own = (half / Z) ** 2
    assert between_part(rows) == pytest.approx(math.sqrt(total - own))
    assert rel_sd(meds) == pytest.approx(math.sqrt(total))


def test_fewer_than_two_runs_say_nothing():
    assert math.isnan(between_part([(100.0, 99.0, 101.0)]))
    assert math.isnan(rel_sd([100.0]))


def _result(med_ns: float, ghz: float, rid: str = "kernel/thread/pipe/same-cpu") -> dict:
    return {"id": rid, "quantity": "switch", "params": {"cpu": 1},
            "summary": {"median": med_ns, "ci95": [med_ns * 0.99, med_ns * 1.01], "n": 30},
            "cycles": {"applies": True, "method": "probe",
                       "summary": {"median": med_ns * ghz, "ci95": [med_ns * ghz * 0.995, med_ns * ghz * 1.005]}}}


def test_the_intervals_hold_another_run_from_the_earlier_runs_spread_with_t():
    """Each side: t(runs - 1)/z x (this run's side in quadrature with z x
    the earlier runs' relative sd of their medians x the median), in ns
    and in cycles: the spread of runs' medians is what another run varies
    by (its own error and the host's state), and few runs say little."""
    from scipy import stats
    r = _result(1000.0, 3.0)
    (r,), n = rounds.apply_between_runs([r], {"kernel/thread/pipe/same-cpu": Spread(5, 0.1, 0.01, 0.08, 0.004)})
    assert n == 1
    k = stats.t.ppf(0.975, 4) / Z
    lo, hi = r["summary"]["ci95"]
    assert hi - 1000.0 == pytest.approx(k * math.hypot(10.0, Z * 0.1 * 1000.0))
    assert 1000.0 - lo == pytest.approx(hi - 1000.0)
    assert r["summary"]["ci95_this_run"] == [990.0, 1010.0] and r["summary"]["between_runs"] == 5
    clo, chi = r["cycles"]["summary"]["ci95"]
    assert chi - 3000.0 == pytest.approx(k * math.hypot(15.0, Z * 0.01 * 3000.0))
    assert "another run's median on this host" in r["summary"]["ci95_for"]
    # two earlier runs: t with one degree of freedom, 6.5 times z
    (two,), _ = rounds.apply_between_runs([_result(1000.0, 3.0)],
                                          {"kernel/thread/pipe/same-cpu": Spread(2, 0.01, 0.01, 0.0, 0.0)})
    assert two["summary"]["ci95"][1] - 1000.0 == pytest.approx(stats.t.ppf(0.975, 1) / Z * math.hypot(10.0, Z * 10.0))


def test_without_earlier_runs_the_table_says_the_intervals_cover_this_run_only():
    lines = table.earlier_lines([_result(1000.0, 3.0)], {"why": "no results store (--no-store)"}, 30)
    assert "cover this run only" in " ".join(lines) and "--no-store" in " ".join(lines)
