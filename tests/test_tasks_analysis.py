"""Seed 000's arithmetic, with known answers: I = 0 at n = 1 by
construction, and an injected indirect cost per switch is recovered, per
task and for the switch itself."""
import math

import numpy as np
import pytest

from ctxbench.irq.analysis import irq_point
from ctxbench.tasks import analysis as tasks_analysis
from ctxbench.stats.derived import derived_summary


def _pair_result(pair, n, total, a, b):
    k = len(total)
    return {"id": f"tasks/{pair}", "params": {"pair": pair, "n": n}, "samples": list(total),
            "raw": {"t_total_ns": list(total), "t_task_a_ns": list(a), "t_task_b_ns": list(b)},
            "verify": {"expected_voluntary": [n] * k, "voluntary": [n] * k, "involuntary": [0] * k,
                       "migrations": [0] * k},
            "warnings": []}


def test_known_indirect_cost_recovered():
    C, N = 3000.0, 99            # direct cost of a switch (ns)
    ka, kb, ks = 700.0, 300.0, 50.0  # injected per-switch indirect cost: task a, task b, the switch
    rng = np.random.default_rng(1)
    e1 = _pair_result("empty+empty", 1, 10000 + rng.normal(0, 5, 5), [0] * 5, [0] * 5)
    en = _pair_result("empty+empty", N, 10000 + (N - 1) * C + rng.normal(0, 5, 5), [0] * 5, [0] * 5)
    base_a, base_b = 5e8, 4e8
    runs = {}
    for n in (1, 10, 50, 99):
        a = base_a + (n - 1) * ka + rng.normal(0, 10, 5)
        b = base_b + (n - 1) * kb + rng.normal(0, 10, 5)
        total = a + b + n * C + (n - 1) * ks
        runs[n] = _pair_result("sort+crc", n, total, a, b)
    pts = tasks_analysis.pair_points(runs, e1, en)
    by_n = {p["params"]["n"]: p for p in pts}
    assert by_n[1]["parts"]["I"]["mean"] == 0.0  # by construction
    for n in (10, 50, 99):
        q = by_n[n]["parts"]
        want = (n - 1) * (ka + kb + ks)
        assert q["I"]["mean"] == pytest.approx(want, abs=200)
        assert q["I_task_a"]["mean"] == pytest.approx((n - 1) * ka, abs=50)
        assert q["I_task_b"]["mean"] == pytest.approx((n - 1) * kb, abs=50)
        assert q["I_switch"]["mean"] == pytest.approx((n - 1) * ks, abs=200)
        assert q["C"]["mean"] == pytest.approx(C, rel=0.01)
        assert q["direct"]["mean"] == pytest.approx(n * C, rel=0.01)
        lo, hi = q["I"]["ci95"]
        assert lo <= q["I"]["mean"] <= hi
        assert by_n[n]["params"]["pair"] == "sort+crc" and by_n[n]["params"]["n"] == n
    assert math.isfinite(tasks_analysis.max_cv(pts))


def test_n1_zero_even_when_noisy():
    rng = np.random.default_rng(2)
    e1 = _pair_result("empty+empty", 1, rng.normal(1e4, 3e3, 5), [0] * 5, [0] * 5)
    en = _pair_result("empty+empty", 99, rng.normal(4e5, 1e5, 5), [0] * 5, [0] * 5)
    r1 = _pair_result("aes+crc", 1, rng.normal(1e9, 1e8, 5), rng.normal(5e8, 1e7, 5), rng.normal(5e8, 1e7, 5))
    pts = tasks_analysis.pair_points({1: r1}, e1, en)
    assert pts[0]["parts"]["I"]["mean"] == 0.0


def test_negative_indirect_is_reported_not_clipped():
    e1 = _pair_result("empty+empty", 1, [1e4] * 3, [0] * 3, [0] * 3)
    en = _pair_result("empty+empty", 99, [1e4 + 98 * 5e3] * 3, [0] * 3, [0] * 3)
    r1 = _pair_result("sort+aes", 1, [1.0e9, 1.01e9, 0.99e9], [5e8] * 3, [5e8] * 3)
    r9 = _pair_result("sort+aes", 9, [0.9e9, 0.91e9, 0.89e9], [4.5e8] * 3, [4.5e8] * 3)
    pts = tasks_analysis.pair_points({1: r1, 9: r9}, e1, en)
    assert pts[1]["parts"]["I"]["mean"] < 0
    assert any(w["code"] == "negative_indirect" for w in pts[1]["warnings"])


def test_irq_known_answer():
    D = 11000.0
    R = np.full(6, 5e8)
    k = np.array([500, 510, 490, 500, 505, 495], dtype=float)
    ind = 2000.0  # per signal, injected
    Rp = R + k * (D + ind)
    r = {"params": {"task": "crc", "rate_hz": 1000}, "samples": list(Rp - R),
         "raw": {"r_task_ns": list(R), "r_prime_ns": list(Rp), "interrupts": list(k), "overruns": [0] * 6},
         "warnings": []}
    direct = {"samples": [D] * 10}
    p = irq_point(r, direct)
    assert p["parts"]["I"]["mean"] == pytest.approx(ind * k.mean(), rel=1e-6)
    assert p["params"]["task"] == "crc" and p["params"]["rate_hz"] == 1000


def test_derived_summary_interval_contains_point():
    s = derived_summary(lambda m: m["a"][0] - m["b"][0], {"a": [10, 11, 12, 13], "b": [1, 2, 3]})
    assert s["mean"] == pytest.approx(9.5)
    assert s["ci95"][0] <= 9.5 <= s["ci95"][1]
