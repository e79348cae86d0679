"""The sweep's plan and statistics without measuring: sizes, strides,
mechanism mapping, the indirect cost's known answer on synthetic samples,
and bad input giving one line."""
import numpy as np
import pytest

from conftest import run_cli
from ctxbench.sweep import analysis as sweep_analysis
from ctxbench.sweep import plan as sweep_plan
from ctxbench.core.errors import UserError

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
    assert m == [("kernel/process/pipe", "kernel/process/pipe/same-cpu"),
                 ("kernel/thread/futex", "kernel/thread/futex/same-cpu")]
    assert len(notes) == 1 and "user/asm" in notes[0]
    with pytest.raises(UserError):
        sweep_plan.resolve_mechanisms("nonsense", known)


def _result(bid, size, stride, samples):
    return {"id": bid, "params": {"size": size, "stride": stride}, "samples": list(samples)}


def test_indirect_known_answer_on_synthetic_samples():
    rng = np.random.default_rng(1)
    direct = 1000 + rng.normal(0, 30, 60)
    res = [_result("m", 4096, 0, direct), _result("m", 8192, 0, 1000 + rng.normal(0, 30, 60)),
           _result("m", 4096, 64, 1500 + rng.normal(0, 30, 60))]
    sweep_analysis.add_indirect(res)
    ind = res[2]["indirect"]
    assert abs(ind["median"] - 500) < 40
    assert ind["ci95"][0] < 500 < ind["ci95"][1]
    assert 4096 in ind["reference"]["sizes"]
    for r in res[:2]:  # stride 0 against the other sizes' stride 0: zero
        lo, hi = r["indirect"]["ci95"]
        assert lo < 0 < hi
    # negative indirect cost stays negative, with a warning
    res2 = [_result("m", 4096, 0, direct), _result("m", 4096, 8, direct - 200)]
    sweep_analysis.add_indirect(res2)
    assert res2[1]["indirect"]["median"] < 0
    assert any(w["code"] == "negative_indirect" for w in res2[1]["warnings"])


@pytest.mark.parametrize("args", [["--strides", "0,3"], ["--sizes", "1K..x"], ["--mechanism", "nonsense"],
                                  ["--groups", "0"], ["--strides", "8,16"]])
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
