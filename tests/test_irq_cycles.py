"""irq in core cycles, without measuring: each run's ns times its round's
clock f gives its cycles; D, the slopes and every I are computed from those
cycles with the same rounds and draws as in ns, and each verdict uses the
unit whose MDE is smaller (core/cycles.py `twin`)."""
import numpy as np
import pytest

from ctxbench.core import cycles
from ctxbench.irq import analysis
from ctxbench.irq.command import render
from ctxbench.core.results import plain

RATES = [100, 1000, 4000, 10000]
D_CYC = 35_000.0        # a signal's direct cost in cycles
R_CYC = 1.8e8           # a task run in cycles (~50 ms at 3.6 GHz)
RUN_S = 0.05


def derived(*args, **kw) -> dict:
    """analysis.derive's record with its points as builtins, read member by member below."""
    return plain(analysis.derive(*args, **kw))


def table(rng, f_by_round, per_int_cyc, noise_cyc=0.0):
    """One task's samples (every rate once a round) whose runs take known
    cycles; ns = cycles over the round's clock, as the probe would give it."""
    rounds = len(f_by_round)
    n = rounds * len(RATES)
    rate = np.tile(np.array(RATES, float), rounds)
    rnd = np.repeat(np.arange(rounds), len(RATES))
    f = np.array([f_by_round[r] for r in rnd])
    k = np.round(rate * RUN_S)
    Rc = R_CYC + rng.normal(0, noise_cyc, n) if noise_cyc else np.full(n, R_CYC)
    Rpc = R_CYC + k * (D_CYC + per_int_cyc) + (rng.normal(0, noise_cyc, n) if noise_cyc else 0.0)
    z = np.zeros(n)
    return {"rate_hz": rate, "r_task_ns": Rc / f, "r_prime_ns": Rpc / f, "interrupts": k, "overruns": z,
            "expirations": k, "d_ns": np.full(n, D_CYC) / f, "d_dropped": z, "waited_ns": z,
            "waited_prime_ns": z, "switches": z, "switches_prime": z, "round": rnd,
            "keep": np.ones(n, bool), "f": f}


def clocks(seed, rounds, lo=3.0, hi=3.7):
    return {r: float(x) for r, x in enumerate(np.random.default_rng(seed).uniform(lo, hi, rounds))}


def test_known_clocks_give_known_cycles():
    rng = np.random.default_rng(0)
    f = clocks(1, 12)
    an = derived({"aes": table(rng, f, 1500.0)}, None, RATES, {}, spin=table(rng, f, 0.0))
    assert an["D"]["cycles"]["estimate_cycles"] == pytest.approx(D_CYC, rel=1e-9)
    per = an["per_task"]["aes"]["per_interrupt"]
    assert per["cycles"]["estimate_cycles"] == pytest.approx(1500.0, rel=1e-6)
    for p in an["points"]["aes"]:
        k = p["parts"]["interrupts"]["mean"]
        assert p["parts"]["I"]["cycles"]["estimate_cycles"] == pytest.approx(k * 1500.0, rel=1e-6)
        assert p["cycles"]["applies"] and p["cycles"]["R_task"]["mean"] == pytest.approx(R_CYC, rel=1e-9)
    # the clock's moves are the only noise: cycles resolve what ns cannot, and the verdicts say so
    assert per["unit"] == "cycles" and per["mde_ratio"] < 1e-3
    assert an["ghz"] == pytest.approx(np.median(list(f.values())))
    out = render(an)
    assert "in cycles: MDE" in out and "cyc" in out


def test_a_slower_clock_leaves_cycles_unchanged_and_ns_higher():
    x = 0.10
    f = clocks(2, 10, 3.5, 3.6)
    slow = {r: v / (1 + x) for r, v in f.items()}
    a = derived({"crc": table(np.random.default_rng(5), f, 400.0, 2e5)}, None, RATES, {},
                         spin=table(np.random.default_rng(6), f, 0.0, 2e5))
    b = derived({"crc": table(np.random.default_rng(5), slow, 400.0, 2e5)}, None, RATES, {},
                         spin=table(np.random.default_rng(6), slow, 0.0, 2e5))
    pairs = [(a["D"], b["D"]), (a["per_task"]["crc"]["per_interrupt"], b["per_task"]["crc"]["per_interrupt"])]
    pairs += [(p["parts"]["I"], q["parts"]["I"]) for p, q in zip(a["points"]["crc"], b["points"]["crc"])]
    for ea, eb in pairs:
        assert eb["cycles"]["estimate_cycles"] == pytest.approx(ea["cycles"]["estimate_cycles"], rel=1e-9)
        assert eb["cycles"]["mde_cycles"] == pytest.approx(ea["cycles"]["mde_cycles"], rel=1e-9)
        assert eb["estimate_ns"] == pytest.approx(ea["estimate_ns"] * (1 + x), rel=1e-9)
        assert eb["mde_ns"] == pytest.approx(ea["mde_ns"] * (1 + x), rel=1e-9)


def test_the_self_check_and_its_diagnosis_speak_the_unit_of_the_verdict():
    # a task an interrupt makes faster (-3000 cycles per signal), the clock moving from round to
    # round: at the high rates, where the clock's moves weigh most on I, the verdict is in cycles
    # (smaller MDE) and the self-check fails in cycles and says so; each failure in its I's unit
    rng = np.random.default_rng(3)
    f = clocks(4, 16)
    an = derived({"sort": table(rng, f, -3000.0, 1e5)}, None, RATES, {}, spin=table(rng, f, 0.0, 1e5))
    units = {c["rate_hz"]: c["I"]["unit"] for c in an["self_check_failed"]}
    assert units.get(10000) == "cycles"
    for c in an["self_check_failed"]:
        assert cycles.chosen(c["I"])["estimate"] < 0
        (p,) = [p for p in an["points"]["sort"] if p["params"]["rate_hz"] == c["rate_hz"]]
        (w,) = [w for w in p["warnings"] if w["code"] == "self_check"]
        assert w["data"]["unit"] == c["I"]["unit"]
        assert ("cyc" in w["text"]) == (c["I"]["unit"] == "cycles")
    assert "SELF-CHECK FAILED" in render(an)


def test_a_results_file_keeps_the_clock_and_is_analysed_again_to_the_same_cycles():
    rng = np.random.default_rng(8)
    f = clocks(9, 8)
    an = derived({"crc": table(rng, f, 300.0, 2e5)}, None, RATES, {}, spin=table(rng, f, 0.0, 2e5))
    pts = an["points"]["crc"] + an["spin_points"]
    assert all(len(p["raw"][analysis.CLOCK]) == len(p["group"]) for p in pts)
    tables = analysis.tables_from_points(pts)
    spin = tables.pop("spin")
    again = derived(tables, None, RATES, {}, spin=spin)
    for p, q in zip(an["points"]["crc"], again["points"]["crc"]):
        assert q["parts"]["I"]["cycles"]["estimate_cycles"] == pytest.approx(
            p["parts"]["I"]["cycles"]["estimate_cycles"], rel=1e-9)
        assert q["parts"]["I"]["unit"] == p["parts"]["I"]["unit"]


def test_without_a_clock_everything_stays_in_ns_and_says_why():
    rng = np.random.default_rng(10)
    f = clocks(11, 6)
    t, s = table(rng, f, 300.0, 2e5), table(rng, f, 0.0, 2e5)
    del t["f"], s["f"]
    an = derived({"crc": t}, None, RATES, {}, spin=s)
    i = an["points"]["crc"][0]["parts"]["I"]
    assert i["unit"] == "ns" and i["cycles"] is None and "probe" in i["cycles_why"]
    assert "in ns (no cycles" in render(an)


def test_a_clock_that_moves_between_the_plain_and_the_forced_run_is_taken_out():
    """The engine reads the clock before, between and after a sample's two
    runs: a host that slows by 4% for the forced run makes R' - R in ns
    4% of R (the Intel guest's self-check failures, I = -4.4 ms, were a
    pair the host's speed split); in cycles, each run at its own clock, I
    is the interrupts' cost alone."""
    rng = np.random.default_rng(5)
    f = clocks(6, 12)
    t = table(rng, f, 1500.0)
    t["f_plain"] = t["f"].copy()
    t["f_prime"] = t["f"] / 1.04
    t["r_prime_ns"] = t["r_prime_ns"] * 1.04  # the same cycles, at the slower clock
    an = derived({"aes": t}, None, RATES, {}, spin=table(rng, f, 0.0))
    per = an["per_task"]["aes"]["per_interrupt"]
    assert per["cycles"]["estimate_cycles"] == pytest.approx(1500.0, rel=1e-6)
    for p in an["points"]["aes"]:
        k = p["parts"]["interrupts"]["mean"]
        assert p["parts"]["I"]["cycles"]["estimate_cycles"] == pytest.approx(k * 1500.0, rel=1e-6)
        assert p["parts"]["I"]["estimate_ns"] > 0.03 * R_CYC / 3.7  # in ns the clock's 4% is in I


def test_in_cycles_takes_each_run_at_its_own_clock():
    t = {k: np.array([1000.0]) for k in analysis.TIMES}
    t.update(round=np.array([0]), f=np.array([3.0]), f_plain=np.array([2.0]), f_prime=np.array([4.0]))
    c = analysis.in_cycles(t)
    assert c["r_task_ns"][0] == 2000.0 and c["waited_ns"][0] == 2000.0
    assert c["r_prime_ns"][0] == 4000.0 and c["waited_prime_ns"][0] == 4000.0
    assert c["d_ns"][0] == 3000.0
