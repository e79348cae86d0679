"""irq's arithmetic on synthetic rounds with a known answer: D, the rate
slope and the indirect cost per interrupt come back with intervals that
contain what was put in; a biased D is caught by the self-check and blamed
on D, not printed as a finding."""
import numpy as np
import pytest

from ctxbench.irq import analysis
from ctxbench.stats import power
from ctxbench.irq.command import render
from ctxbench.core.results import plain

RATES = [100, 1000, 4000, 10000]
D_NS = 10_000.0
RUN_S = 0.05  # each task run: 50 ms


def derived(*args, **kw) -> dict:
    """analysis.derive's record with its points as builtins, read member by member below."""
    return plain(analysis.derive(*args, **kw))


def table(rng, rounds, per_int_ns, d_seen_ns=D_NS, noise_ns=20_000.0):
    """One task's samples: every rate once a round; the runs pay D_NS plus
    per_int_ns per interrupt, the gap loop reports d_seen_ns."""
    n = rounds * len(RATES)
    rate = np.tile(np.array(RATES, float), rounds)
    rnd = np.repeat(np.arange(rounds), len(RATES))
    drift = rng.normal(0, 200_000.0, rounds)[rnd]  # the host's speed, common to both runs of a round
    k = np.round(rate * RUN_S)
    R = 5e7 + drift + rng.normal(0, noise_ns, n)
    Rp = 5e7 + drift + k * (D_NS + per_int_ns) + rng.normal(0, noise_ns, n)
    z = np.zeros(n)
    return {"rate_hz": rate, "r_task_ns": R, "r_prime_ns": Rp, "interrupts": k, "overruns": z,
            "expirations": k, "d_ns": d_seen_ns + rng.normal(0, 300.0, n), "d_dropped": z, "waited_ns": z,
            "waited_prime_ns": z, "switches": z, "switches_prime": z, "round": rnd,
            "keep": np.ones(n, bool)}


def test_known_indirect_cost_comes_back_with_its_interval():
    rng = np.random.default_rng(0)
    truth = {"sort": 800.0, "crc": 0.0}
    tables = {t: table(rng, 30, c) for t, c in truth.items()}
    an = derived(tables, None, RATES, {}, spin=table(rng, 30, 0.0))
    d = an["D"]
    assert d["ci95"][0] <= D_NS <= d["ci95"][1]
    for task, c in truth.items():
        # a 95% interval misses the truth one time in twenty (the coverage is
        # 95% over seeds); the truth must lie within 4 standard errors
        f = an["per_task"][task]
        per, sl = f["per_interrupt"], f["slope"]
        assert abs(per["estimate_ns"] - c) < 4 * per["se_ns"], (task, per)
        assert abs(sl["estimate_ns"] - D_NS - c) < 4 * sl["se_ns"], (task, sl)
        assert per["se_ns"] < 100  # 30 rounds resolve the 800 ns
        for p in an["points"][task]:
            i = p["parts"]["I"]
            assert set(i) >= {"estimate_ns", "ci95", "se_ns", "mde_ns", "resolved", "below_mde"}
    assert an["D_check"]["agreement"]["within"]
    assert an["per_task"]["crc"]["agreement"]["within"]
    assert an["rounds"] == 30
    # every I with its MDE in the table
    assert "MDE" in render(an)


def test_a_results_file_is_analysed_again_to_the_same_numbers():
    rng = np.random.default_rng(4)
    an = derived({"crc": table(rng, 8, 300.0)}, None, RATES, {}, spin=table(rng, 8, 0.0))
    pts = an["points"]["crc"] + an["spin_points"]
    tables = analysis.tables_from_points(pts)
    spin = tables.pop("spin")
    again = derived(tables, None, RATES, {}, spin=spin)
    # (the samples come back grouped by rate: sums in another order)
    assert again["D"]["estimate_ns"] == pytest.approx(an["D"]["estimate_ns"], rel=1e-9)
    for k in ("slope", "per_interrupt"):
        a, b = again["per_task"]["crc"][k], an["per_task"]["crc"][k]
        assert a["estimate_ns"] == pytest.approx(b["estimate_ns"], rel=1e-9)
        assert a["ci95"] == pytest.approx(b["ci95"], rel=1e-6)


def test_a_gap_loop_that_charges_too_much_is_set_right_by_the_control():
    # the gap loop reports 2 us per signal more than any run pays (as here:
    # ticks served in a signal's interrupt, host stalls ending at a signal):
    # D's level comes from the spin, so no I is pushed below zero, the
    # offset is measured and the tasks' true costs come back
    rng = np.random.default_rng(2)
    biased = D_NS + 2000.0
    an = derived({"aes": table(rng, 20, 0.0, biased), "sort": table(rng, 20, 800.0, biased)}, None,
                          RATES, {}, spin=table(rng, 20, 0.0, biased))
    assert an["self_check_failed"] == [] and an["control"]["ok"] is True
    off = an["D_check"]["per_interrupt"]
    assert off["resolved"] and abs(off["estimate_ns"] + 2000.0) < 4 * off["se_ns"]
    d = an["D"]
    assert abs(d["estimate_ns"] - D_NS) < 4 * d["se_ns"]
    assert an["D_gap"]["estimate_ns"] > d["estimate_ns"] + 1000
    for task, c in (("aes", 0.0), ("sort", 800.0)):
        per = an["per_task"][task]["per_interrupt"]
        assert abs(per["estimate_ns"] - c) < 4 * per["se_ns"], (task, per)
        for p in an["points"][task]:
            i, k = p["parts"]["I"], p["parts"]["interrupts"]["mean"]
            assert i["trusted"] is True
            assert abs(i["estimate_ns"] - k * c) < 4 * i["se_ns"], (task, p["params"], i)
    out = render(an)
    assert "CONTROL FAILED" not in out and "Control (irq/spin" in out


@pytest.mark.slow  # many simulated runs
def test_without_bias_the_self_check_rarely_fails():
    # the self-check is one family-wise test at 5% (one-sided 2.5%) over all
    # points: with no bias anywhere it fails in a few percent of runs; over
    # 6 seeds, 3 or more failures has probability 0.2% (binomial, p = 0.05)
    failures = 0
    for seed in range(6):
        rng = np.random.default_rng(1000 + seed)
        an = derived({t: table(rng, 20, 0.0) for t in ("sort", "crc")}, None, RATES, {},
                              spin=table(rng, 20, 0.0))
        failures += bool(an["self_check_failed"])
    assert failures <= 2


def test_the_self_check_bound_is_family_wise():
    # one point: the 95% bound; sixteen: wider, so that 16 points without
    # any effect do not fail a third of the runs
    assert abs(power.family_t(1) - 1.96) < 0.01
    assert power.family_t(16) > 2.9
    # and wider still when the rounds are few (Student's t)
    assert power.family_t(16, 3) > 2 * power.family_t(16) > power.family_t(16, 999) * 1.9


def test_disturbed_samples_are_left_out_and_counted():
    rng = np.random.default_rng(3)
    t = table(rng, 10, 0.0)
    t["keep"][::4] = False
    an = derived({"crc": t}, None, RATES, {}, spin=table(rng, 10, 0.0))
    p = an["points"]["crc"][0]
    assert any(w["code"] == "dropped" for w in p["warnings"])
    assert p["parts"]["R_task"]["n"] == 0 or p["parts"]["R_task"]["n"] < 10


def test_a_failed_control_marks_every_i_untrusted_and_says_so_first():
    """The spin (true I = 0) comes out nonzero at every rate because its
    plain runs are 1.5 ms slower than its interrupted ones for a reason
    other than the signals (a biased pairing, which no D can take out):
    no task's I may be presented as a result, and the table starts with
    the control's failure and its reason."""
    rng = np.random.default_rng(5)
    spin = table(rng, 20, 0.0)
    spin["r_prime_ns"] = spin["r_prime_ns"] - 1.5e6
    an = derived({"sort": table(rng, 20, 800.0)}, None, RATES, {}, spin=spin)
    assert an["control"]["ok"] is False and "pair is biased" in an["control"]["reason"]
    for p in an["points"]["sort"]:
        assert p["parts"]["I"]["trusted"] is False
        assert p["warnings"][0]["code"] == "untrusted"
    out = render(an)
    assert out.startswith("CONTROL FAILED")
    rows = [ln for ln in out.splitlines() if ln.startswith("sort ")]
    assert len(rows) == len(RATES) and all("untrusted (" in ln for ln in rows)


def test_an_unresolved_point_says_its_mde_and_what_would_resolve_it():
    rng = np.random.default_rng(7)
    an = derived({"crc": table(rng, 6, 0.0, noise_ns=400_000.0)}, None, RATES, {}, spin=table(rng, 6, 0.0))
    below = [w["text"] for p in an["points"]["crc"] for w in p["warnings"] if w["code"] == "below_mde"]
    assert below and all("minimum detectable effect" in t and "6 rounds" in t for t in below)


def test_a_passing_control_leaves_the_is_as_results():
    rng = np.random.default_rng(6)
    an = derived({"sort": table(rng, 20, 800.0)}, None, RATES, {}, spin=table(rng, 20, 0.0))
    assert an["control"]["ok"] is True
    assert all(p["parts"]["I"]["trusted"] for p in an["points"]["sort"])
    assert "untrusted" not in render(an) and not render(an).startswith("CONTROL FAILED")


def test_the_pilot_gives_more_rounds_to_a_point_it_could_resolve():
    """A point whose pilot I is near its MDE gets the rounds that would
    resolve it when the budget allows them, even where the per-interrupt
    target is already met; one that no budget resolves is said, with the
    budget it would need."""
    from types import SimpleNamespace

    from ctxbench.irq.command import PILOT_ROUNDS, _plan

    def point(rate, est, se):
        return {"params": {"task": "crc", "rate_hz": rate}, "parts": {"I": {"estimate_ns": est, "se_ns": se}}}

    pilot = {"D": {"estimate_ns": 10_000.0}, "per_task": {"crc": {"per_interrupt": {"se_ns": 10.0}}},
             "points": {"crc": [point(10000, 1000.0, 500.0), point(100, 1.0, 500.0)]}}
    total, line = _plan(pilot, SimpleNamespace(budget=100), 1.0, float(PILOT_ROUNDS))
    # the MDE (2.8 SE) falls as 1/sqrt(rounds): 3 * (2.8 * 500 / 1000)^2 = 5.9 -> 6 rounds
    assert total == 6
    assert "1 of 2 points resolvable" in line and "the other 1 would need" in line


def test_a_failed_self_check_says_its_diagnosis_from_the_warning_s_data():
    # a task that an interrupt makes faster (-3 us per signal): the self-check fails at the
    # high rates, and the list of failures carries the diagnosis the warning was made with
    rng = np.random.default_rng(5)
    an = derived({"aes": table(rng, 20, -3000.0)}, None, RATES, {}, spin=table(rng, 20, 0.0))
    failed = an["self_check_failed"]
    assert failed and all(f["task"] == "aes" for f in failed)
    for f in failed:
        (p,) = [p for p in an["points"]["aes"] if p["params"]["rate_hz"] == f["rate_hz"]]
        (w,) = [w for w in p["warnings"] if w["code"] == "self_check"]
        assert f["diagnosis"] and w["data"]["diagnosis"] == f["diagnosis"] and w["text"].endswith(f["diagnosis"])
    out = render(an)
    assert all(f["diagnosis"] in out for f in failed)
