"""Statistics and verification rules, on synthetic data."""
import math

import numpy as np

from ctxbench.core import model as results
from ctxbench.stats import summary as stats
from ctxbench.core import verification
from ctxbench.core.results import plain


def analysed(raw: dict) -> dict:
    """model.analyse's record as builtins, read member by member below."""
    return plain(results.analyse(raw))


def test_summary_fields_and_ci():
    x = np.random.default_rng(1).normal(1000, 50, 400)
    s = stats.summarize(x)
    assert s["n"] == 400
    assert s["min"] <= s["median"] <= s["max"]
    lo, hi = s["ci95"]
    assert lo < s["median"] < hi and hi - lo < 20
    assert math.isclose(s["cv"], s["stdev"] / s["mean"])


def test_negative_values_are_not_clipped():
    s = stats.summarize([-5.0, -3.0, -4.0, -6.0])
    assert s["median"] == -4.5 and s["min"] == -6.0
    r = analysed({"id": "x", "samples": [-5.0, -3.0, -4.0, -6.0]})
    assert r["summary"]["median"] < 0
    assert [w["code"] for w in r["warnings"]] == ["negative"]
    assert "negative derived cost" in r["warnings"][0]["text"]


def test_summary_is_reproducible():
    x = list(np.random.default_rng(2).normal(10, 1, 50))
    assert stats.summarize(x)["ci95"] == stats.summarize(x)["ci95"]


def test_outliers_counted_not_dropped():
    x = [100.0] * 50 + [101.0] * 50 + [10000.0]
    s = stats.summarize(x)
    assert s["n"] == 101 and s["outliers"] == 1 and s["max"] == 10000.0


def _res(vol, inv, exp, placement="same-cpu", mig=None, single=None):
    n = len(vol)
    return {"id": "k", "params": {"placement": placement}, "samples": [1.0] * n,
            "verify": {"expected_voluntary": exp, "voluntary": vol, "involuntary": inv,
                       "migrations": mig or [0] * n, "single_voluntary": single or [0] * n,
                       "single_involuntary": [0] * n, "single_migrations": [0] * n}}


def test_same_cpu_total_switches_checked():
    # wake-up preemption turns voluntary into involuntary: the total counts
    rec, keep = verification.judge(_res([250, 300, 200, 200], [190, 141, 240, 300], [440] * 4))
    assert keep == [True, True, True, False]
    assert rec["reasons"] == {"extra switches": 1}


def test_migration_and_single_switch_disturb():
    rec, keep = verification.judge(_res([440, 440], [0, 0], [440, 440], mig=[0, 1], single=[2, 0]))
    assert keep == [False, False]
    assert not rec["ok"]


def test_user_level_expects_no_kernel_switch():
    rec, keep = verification.judge(_res([0, 1], [0, 0], [0, 0]))
    assert keep == [True, False]


def test_cross_cpu_rejects_involuntary():
    rec, keep = verification.judge(_res([128, 120], [0, 1], [128, 128], placement="cross-cpu"))
    assert keep == [True, False]


def test_dropped_samples_leave_summary():
    r = _res([440, 900], [0, 0], [440, 440])
    r["samples"] = [1.0, 1000.0]
    a = analysed(r)
    assert a["summary"]["n"] == 1 and a["summary"]["max"] == 1.0
    assert a["summary_all"]["n"] == 2
    assert any(w["code"] == "dropped" and "disturbed and dropped" in w["text"] for w in a["warnings"])


def _grouped(group_sd, rng, groups=40, per=10):
    g = np.repeat(np.arange(groups), per)
    x = 1000 + rng.normal(0, 10, groups * per) + np.repeat(rng.normal(0, group_sd, groups), per)
    return x, g


def test_ci_resamples_groups_when_samples_are_grouped():
    """Samples sharing a group's machine state are not independent: with a
    strong group effect the interval must widen to cover it (a sample-wise
    bootstrap would not); without one, the two methods agree."""
    rng = np.random.default_rng(5)
    x, g = _grouped(50, rng)
    per_sample = stats.summarize(x)
    per_group = stats.summarize(x, g)
    assert per_group["ci95_resampled"] == "groups" and per_group["groups"] == 40
    assert per_sample["ci95_resampled"] == "samples"
    width = lambda s: s["ci95"][1] - s["ci95"][0]
    assert width(per_group) > 2 * width(per_sample)
    # the group-level spread of the median (sd 50/sqrt(40) ~ 8) is covered
    assert width(per_group) > 2 * 1.96 * 50 / math.sqrt(40) * 0.7
    x, g = _grouped(0, rng)
    assert 0.6 < width(stats.summarize(x, g)) / width(stats.summarize(x)) < 1.6


def test_grouped_ci_with_dropped_samples_and_one_group():
    rng = np.random.default_rng(6)
    x, g = _grouped(20, rng)
    keep = rng.random(x.size) > 0.2
    s = stats.summarize(x[keep], g[keep])
    assert s["ci95"][0] <= s["median"] <= s["ci95"][1]
    assert s == stats.summarize(x[keep], g[keep])  # fixed seed: re-analysis is stable
    one = stats.summarize(x[:10], g[:10])
    assert one["ci95_resampled"] == "samples" and one["groups"] == 1


def test_analyse_uses_the_engine_group_array():
    r = {"id": "baseline/call", "quantity": "call", "samples": [1.0, 2.0, 3.0, 4.0], "group": [0, 0, 1, 1]}
    assert analysed(r)["summary"]["ci95_resampled"] == "groups"
    r["group"] = [0, 1]  # a mismatched array is ignored, not trusted
    assert analysed(r)["summary"]["ci95_resampled"] == "samples"


def test_rank_test_is_exact_at_small_n():
    # 5 vs 5, fully separated: exact two-sided p = 2 / C(10, 5) = 2/252; the
    # normal approximation this replaced gave 0.012
    from ctxbench.stats.rank import mann_whitney
    u, p = mann_whitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
    assert u == 0 and abs(p - 2 / 252) < 1e-12


def test_bootstrap_memory_is_bounded_and_chunking_changes_nothing():
    # chunked draws continue the same random stream: the interval of a
    # tiny cell budget equals the interval of one big draw
    from ctxbench.stats import resample
    x = np.random.default_rng(3).normal(size=400)
    g = np.repeat(np.arange(40), 10)
    one = resample.interval(resample.cluster_medians(x, g, resample.generator()))
    many = resample.interval(resample.cluster_medians(x, g, resample.generator(), budget=400 * 3))
    assert one == many
    assert list(resample.chunks(2000, 1 << 20)) == [(a, min(2000, a + 16)) for a in range(0, 2000, 16)]


def test_third_task_time_marks_the_sample():
    # clean windows: the parties ran all but a few µs; a busy loop took 3 ms
    r = _res([440] * 3, [0] * 3, [440] * 3)
    r["verify"].update(window_ns=[1_000_000, 1_000_000, 4_000_000], runtime_ns=[999_997, 1_000_003, 1_000_000])
    rec, keep = verification.judge(r)
    assert keep == [True, True, False]
    assert rec["reasons"] == {"other tasks ran on the CPU": 1}
    assert rec["disturbed"] == 1 and rec["failed"] == 0


def test_third_task_time_is_not_judged_across_cpus():
    r = _res([128], [0], [128], placement="cross-cpu")
    r["verify"].update(window_ns=[1_000_000], runtime_ns=[1_500_000])  # two CPUs' time in one window
    assert verification.judge(r)[1] == [True]


def test_a_runnable_third_task_marks_the_sample():
    r = _res([440] * 2, [0] * 2, [440] * 2)
    r["verify"]["others_runnable"] = [0, 1]
    rec, keep = verification.judge(r)
    assert keep == [True, False] and rec["reasons"] == {"another task runnable on the CPU": 1}


def test_disturbed_and_failed_are_two_verdicts():
    # 10% of samples met other load: disturbed, dropped, the rest stands
    n = 50
    vol = [0] * n
    inv = [1 if i < 5 else 0 for i in range(n)]
    a = analysed(_res(vol, inv, [0] * n))
    assert a["verification"]["verdict"] == "ok" and a["verification"]["disturbed"] == 5
    assert results.Result(a).verified == ("ok (5 disturbed, dropped)", False)
    # most samples met other load: not verified (not "failed")
    inv = [1 if i < 30 else 0 for i in range(n)]
    a = analysed(_res(vol, inv, [0] * n))
    assert a["verification"]["verdict"] == "not verified"
    assert results.Result(a).verified[0].startswith("NOT VERIFIED (30 of 50")
    # the method's switches missing: failed
    a = analysed(_res([100] * 10, [0] * 10, [440] * 10))
    assert a["verification"]["verdict"] == "failed" and a["verification"]["failed"] == 10
    assert results.Result(a).verified[1]


def test_long_segments_allow_the_pairs_own_preemptions():
    # one round trip of two 15 ms traversals: a tick gave the CPU back to the
    # other party 4 times (8 switches for 2 expected), no other task's time
    r = _res([3, 3, 3], [5, 5, 5], [2, 2, 2])
    r["verify"].update(window_ns=[30_000_000, 30_000_000, 30_000_000],
                       runtime_ns=[29_998_000, 29_998_000, 24_000_000])
    rec, keep = verification.judge(r)
    assert keep == [True, True, False]  # the third: 6 ms of another task's time, and its switches
    assert rec["reasons"] == {"other tasks ran on the CPU": 1, "extra switches": 1}
    assert rec["own_preemptions"] == 2 * (3 + 5 - 2 - verification.SLACK)
    # the same counts in a ping-pong of µs segments: another task ran
    r = _res([3], [5], [2])
    r["verify"].update(window_ns=[20_000], runtime_ns=[20_000])
    assert verification.judge(r)[1] == [False]
    # the same extra switches beside 2 ms of another task's time (under the time
    # rule's 2%, over what interrupts take): another task, disturbed
    r = _res([3], [5], [2])
    r["verify"].update(window_ns=[220_000_000], runtime_ns=[218_000_000])
    rec, keep = verification.judge(r)
    assert keep == [False] and rec["reasons"] == {"extra switches": 1}
    # more extra switches than two per millisecond of window: disturbed
    r = _res([1000 + 40], [40], [1000])
    r["verify"].update(window_ns=[20_000_000], runtime_ns=[20_000_000])
    rec, keep = verification.judge(r)
    assert keep == [False] and rec["own_preemptions"] == 0
