"""The sweep's plan and statistics without measuring: sizes, strides,
mechanism mapping, the indirect cost's known answer on synthetic samples,
and bad input giving one line."""
import numpy as np
import pytest

from conftest import run_cli
from ctxbench.sweep import analysis as sweep_analysis
from ctxbench.sweep import plan as sweep_plan
from ctxbench.sweep import rounds
from ctxbench.stats import power
from ctxbench.core import model
from ctxbench.core.errors import UserError
from ctxbench.core.results import plain
from ctxbench.records import RECORDS

ENV = {"topology": {"caches": [
    {"level": 1, "type": "data", "size": 48 * 1024, "line": 64, "shared_by_pus": 1},
    {"level": 2, "type": "unified", "size": 2 << 20, "line": 64, "shared_by_pus": 1},
    {"level": 3, "type": "unified", "size": 96 << 20, "line": 64, "shared_by_pus": 2}]},
    "tlb": {"page_size": 4096, "dtlb": [{"level": 1, "entries": 64, "page_size": 4096},
                                        {"level": 2, "entries": 2048, "page_size": 4096}]}}


def test_sizes_and_strides_parse():
    assert sweep_plan.parse_sizes("1K..16K") == [1024, 2048, 4096, 8192, 16384]
    assert sweep_plan.parse_sizes("48K,1K,1.5M") == [1024, 48 * 1024, 3 << 19]
    assert sweep_plan.parse_strides("64,0,8") == [0, 8, 64]
    for bad in ("0,3", "8,16", "x"):
        with pytest.raises(UserError):
            sweep_plan.parse_strides(bad)
    for bad in ("12", "1K..x", "16K..1K", "-4K"):
        with pytest.raises(UserError):
            sweep_plan.parse_sizes(bad)


def test_default_sizes_cover_the_boundaries():
    s = sweep_plan.default_sizes(ENV)
    assert s[0] == 1024
    assert s[-1] >= 2 * (2 << 20)            # twice the per-core L2
    assert s[-1] > 64 * 4096                 # past the first-level dTLB reach
    assert 48 * 1024 in s and 72 * 1024 in s  # L1d and 1.5 x L1d
    assert s == sorted(set(s))
    assert sweep_plan.default_sizes({})[-1] >= 1 << 20  # no cache info: still a sensible range


def test_boundaries_and_where():
    labels = [b["label"] for b in sweep_plan.boundaries(ENV)]
    assert any(l.startswith("L1d 48K") for l in labels)
    assert any(l.startswith("LLC share 48M") for l in labels)
    assert any("dTLB L1 reach 256K" in l for l in labels)
    assert "L1d" in sweep_analysis.where(24 * 1024, ENV)  # both parties: 48K


def test_mechanisms_map_and_skip_unknown():
    known = {"kernel/process/pipe/same-cpu", "kernel/thread/futex/same-cpu"}
    m, notes = sweep_plan.resolve_mechanisms(None, known)
    assert m == [("kernel/process/pipe", "kernel/process/pipe/same-cpu")]
    assert len(notes) == 1 and "user/asm" in notes[0]
    with pytest.raises(UserError):
        sweep_plan.resolve_mechanisms("nonsense", known)


def _result(bid, size, stride, per_round):
    """A point measured in len(per_round) rounds, one list of samples each."""
    samples = [x for v in per_round for x in v]
    groups = [g for g, v in enumerate(per_round) for _ in v]
    return {"id": bid, "params": {"size": size, "stride": stride}, "samples": samples, "group": groups}


def test_indirect_known_answer_on_synthetic_samples():
    """A known indirect cost of 500 ns under a drift of +-300 ns from round
    to round (common to the point and its reference): the pairing cancels
    the drift, so the estimate is within a few noise SEs of 500."""
    rng = np.random.default_rng(1)
    rounds = 12
    drift = rng.normal(0, 300, rounds)

    def pt(size, stride, cost):
        return _result("m", size, stride, [list(cost + drift[g] + rng.normal(0, 30, 6)) for g in range(rounds)])

    res = [pt(4096, 0, 1000), pt(8192, 0, 1000), pt(16384, 0, 1000), pt(4096, 64, 1500)]
    res = sweep_analysis.with_indirect(res)
    ind = res[3]["indirect"]
    assert ind["n"] == rounds and ind["resolved"] and not ind["below_mde"]
    # per-round median of 6 samples of sd 30, differenced: sd ~ 30*1.25*sqrt(2/6) ~ 22 ns,
    # se over 12 rounds ~ 7 ns: 40 ns is more than 5 se
    assert abs(ind["estimate_ns"] - 500) < 40
    assert ind["ci95"][0] < 500 < ind["ci95"][1]
    assert ind["mde_ns"] < 100  # the drift (300 ns) is not in it: paired
    assert ind["reference"]["sizes"] == [4096]
    for r in res[:3]:  # stride 0 against the other sizes' stride 0 in the same rounds: zero
        lo, hi = r["indirect"]["ci95"]
        assert lo < 0 < hi and r["indirect"]["n"] == rounds
    # negative indirect cost stays negative, with a warning that says what it is
    res2 = [pt(4096, 0, 1000), pt(4096, 8, 800)]
    res2 = sweep_analysis.with_indirect(res2)
    assert res2[1]["indirect"]["estimate_ns"] < 0 and res2[1]["indirect"]["resolved"]
    w = [w for w in res2[1]["warnings"] if w["code"] == "negative_indirect"]
    assert w and "excludes 0" in w[0]["text"]
    # the text grid says 'below X' for a point under its MDE
    res3 = [pt(4096, 0, 1000), pt(4096, 8, 1000)]
    res3 = sweep_analysis.with_indirect(res3)
    assert res3[1]["indirect"]["below_mde"]
    assert sweep_analysis.cell(model.Result(res3[1]).indirect).startswith("<")


def test_stride0_check_is_one_statement_over_all_sizes():
    """18 stride-0 points of one configuration: over many synthetic sweeps
    the per-point 95% intervals leave 0 out about 5% of the time (so some
    sweep shows a miss), while the family-wise check fails in about 5% of
    the sweeps, not 60%; and a stride-0 point that truly differs (a
    leftover of +150 ns at 32M, 5 se) fails it."""
    rng = np.random.default_rng(3)
    sizes = [1024 << i for i in range(18)]

    def sweep(off=0.0):
        drift = rng.normal(0, 100, 10)
        res = [_result("m", s, 0, [list(2300 + drift[g] + (off if s == sizes[-1] else 0)
                                        + rng.normal(0, 40, 5)) for g in range(10)]) for s in sizes]
        res = sweep_analysis.with_indirect(res)
        return sweep_analysis.counts(res, "m")

    runs = [sweep() for _ in range(60)]
    missed = sum(c["zero"] - c["zero_ok"] for c in runs) / (60 * 18)
    assert 0.01 < missed < 0.12, missed  # each 95% interval: about 5% outside
    assert sum(c["zero_family_ok"] < c["zero"] for c in runs) <= 9  # family: ~5% of 60 sweeps (p < 0.01 above 9)
    assert all(c["zero_mde"] > 0 for c in runs)
    off = sweep(off=150.0)
    assert off["zero_family_ok"] < off["zero"]
    # with one test the family's interval is the point's own 95% t interval (same df)
    e = power.paired_mean(list(rng.normal(0, 40, 10)))
    assert abs(power.family_t(1, e["df"]) * e["se_ns"] - (e["ci95"][1] - e["ci95"][0]) / 2) < 1e-6 * e["se_ns"]


def test_a_resumed_point_from_before_sample_n_keeps_n_aligned():
    """A sweep point of a file from before sample_n gets its rounds' n on
    reading (core/results/upgrade.py): the first round's, params.n."""
    point = {"id": "kernel/thread/pipe/same-cpu", "samples": [1.0, 2.0], "group": [0, 0], "params": {"n": 4},
             "raw": {"t_single_ns": [400.0, 400.0]}, "round_cost_s": [0.1]}
    old = plain(RECORDS.read({"schema": "ctxbench/1", "results": [point], "sweep": {}}))["results"][0]
    new = {"samples": [3.0], "params": {"n": 2}, "raw": {"t_single_ns": [100.0]}}
    m = rounds.merge(old, new, 1, 0.1)
    assert m["sample_n"] == [4, 4, 2] and m["group"] == [0, 0, 1]
    assert sweep_analysis.work_per_switch(m) == 100.0  # median of 100, 100 and 50 ns per switch


def test_default_sizes_pass_the_llc():
    s = sweep_plan.default_sizes(ENV)
    assert s[-1] >= 96 << 20  # one party alone holds the whole 96 MiB LLC: two hold twice it


def test_round_points_put_the_reference_first():
    assert sweep_plan.round_points([(4096, 64), (1024, 8), (4096, 8)]) == [
        (1024, 0), (1024, 8), (4096, 0), (4096, 8), (4096, 64)]


@pytest.mark.parametrize("args", [["--strides", "0,3"], ["--sizes", "1K..x"], ["--mechanism", "nonsense"],
                                  ["--groups", "0"], ["--strides", "8,16"], ["--budget", "5"]])
def test_bad_arguments_one_line(args, tmp_path, engine_bin):
    p = run_cli("sweep", "-o", str(tmp_path / "s.json"), *args, timeout=60)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not (tmp_path / "s.json").exists()


def test_not_a_sweep_file(tmp_path, engine_bin):
    f = tmp_path / "s.json"
    f.write_text('{"schema": "ctxbench/1", "results": []}')
    p = run_cli("sweep", "-o", str(f), "--sizes", "1K", "--strides", "0", timeout=60)
    assert p.returncode == 2 and "not a sweep results file" in p.stderr


def test_past_the_l2_line_states_each_open_points_mde():
    """Each point past the L2 that is not resolved gets its own MDE as a
    share of its pass, and one without an MDE is named n/a (issue 22: an
    honest statement per point, not a range)."""
    def pt(size, resolved, mde):
        return {"id": "m", "params": {"size": size, "stride": 64}, "sample_n": [1, 1],
                "raw": {"t_single_ns": [1e6, 1e6]},
                "indirect": {"resolved": resolved, "mde_ns": mde, "estimate_ns": 1.0, "n": 8, "ci95": [0.5, 1.5]}}
    res = [pt(2 << 20, True, 5e3), pt(4 << 20, False, 2e4), pt(8 << 20, False, None)]
    line = [x for x in sweep_analysis.text_summary(res, ENV, [("m", "m")], None).splitlines() if "past the L2" in x][0]
    assert "1 of 3 resolved" in line and "4M:64 2.0%" in line and "n/a" in line and line.endswith("8M:64")
