"""ctxbench tasks / irq / noise end to end at tiny sizes (structure, not
timing), and bad arguments: one clear line, non-zero exit."""
import json
import subprocess

import pytest

from conftest import run_cli
from test_irq_known_answer import assert_status_is_the_verdict

pytestmark = pytest.mark.machine


@pytest.mark.flow
@pytest.mark.parametrize("args,needle", [
    (["tasks", "--pair", "sort+foo"], "--pair"),
    (["tasks", "--pair", "sort+sort"], "itself"),
    (["tasks", "--switches", "0"], "--switches"),
    (["tasks", "--switches", "5..1"], "--switches"),
    (["tasks", "--rounds", "0"], "--rounds"),
    (["tasks", "--budget", "1"], "--budget"),
    (["tasks", "--scale", "-1"], "--scale"),
    (["irq", "--rates", "abc"], "--rates"),
    (["irq", "--task", "bogus"], "--task"),
    (["noise", "--seconds", "0"], "--seconds"),
    (["noise", "--cpu", "-3"], "--cpu"),
])
def test_bad_arguments(args, needle):
    p = run_cli(*args, timeout=60)
    assert p.returncode != 0
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and needle in lines[0], p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.flow
@pytest.mark.parametrize("scale", ["lots", "0", "1e9", ""])
def test_engine_bad_task_scale(engine_bin, scale):
    p = subprocess.run([str(engine_bin), "run", "tasks/sort+crc/warm", "--n", "1", "--task-scale", scale],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "--task-scale" in p.stderr


def test_engine_records_the_task_scale(engine_bin):
    p = subprocess.run([str(engine_bin), "run", "irq/sort", "--n", "100", "--groups", "1", "--iterations", "1",
                        "--task-scale", "0.02", "--json"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["results"][0]["params"]["scale"] == 0.02


@pytest.mark.flow
def test_tasks_end_to_end(tmp_path):
    out = tmp_path / "t.json"
    p = run_cli("tasks", "--pair", "sort+crc", "--switches", "1,5,20", "--rounds", "3", "--scale", "0.01",
                "--warm", "-o", str(out), "--plot", str(tmp_path / "figs"), timeout=240)
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    assert doc["schema"] == "ctxbench/2"
    pts = [r for r in doc["results"] if r["id"].startswith("tasks/sort+crc/") and "parts" in r]
    assert [r["params"]["n"] for r in pts] == [1, 5, 20]
    # the runs are kept (the pair's and the empty pair's), for the report to re-derive from
    from ctxbench.tasks import analysis as tasks_analysis
    assert list(tasks_analysis.runs_in(doc["results"])) == ["sort+crc"]
    for r in pts:
        # a round every run of which the verification dropped (this flow test runs beside others) is not
        # counted: fewer rounds, never more
        assert r["params"]["pair"] == "sort+crc" and 1 <= r["params"]["rounds"] <= 3
        for part in ("R_total", "R_prime", "C", "I", "I_task_a", "I_task_b", "I_switch"):
            s = r["parts"][part]
            assert "mean" in s and len(s["ci95"]) == 2
    assert pts[0]["parts"]["I"]["mean"] == 0
    per = doc["tasks"]["per_pair"]["sort+crc"]
    for e in [per["per_switch"], *per["per_task"].values()]:
        assert {"estimate_ns", "ci95", "se_ns", "mde_ns", "resolved", "below_mde"} <= set(e)
    assert set(per["per_task"]) == {"sort", "crc"}
    assert [(m["n_from"], m["n_to"]) for m in per["marginal"]] == [(1, 5), (5, 20)] and per["linear"]["checked"]
    for f in ("tasks-fig2-overheads", "tasks-fig3-breakdown"):
        for ext in ("png", "svg"):
            assert (tmp_path / "figs" / f"{f}.{ext}").stat().st_size > 0
    assert "Max CV" in p.stdout and "per switch" in p.stdout


def test_tasks_recovers_a_known_cost_per_switch(tmp_path):
    """Known answer: the hidden pair's tasks spin 5 µs (wall time) after
    every switch-in; what the tasks pay per switch must come out as 5 µs
    within 10%, each task half (a resumes after every other switch). A
    500 ns tolerance is ten times the spread of a 5 µs spin (a clock read,
    ~20-50 ns, each side) and leaves room for the empty tasks' own small
    indirect cost. The per-switch figure is the tasks' part plus what the
    switch itself got dearer than in the empty pair (`switch_inflation`,
    measured by the run: 0.3 µs on an AMD guest, the spin's 5 µs gap
    changing the wake-up), so it is checked as that sum, not against 5 µs:
    it once read 5.64 µs with the tasks' part within tolerance."""
    out = tmp_path / "t.json"
    # 12 rounds of 4 values of n: the whole runs' slope needs them (6 rounds of 3 read 5.56 µs under a
    # memory-walking hog on the other CPU); the chunks resolve it to +-1% with far fewer
    p = run_cli("tasks", "--pair", "empty+empty/burn-5us", "--rounds", "12", "--switches", "1,500,1000,2000",
                "-o", str(out), timeout=240)
    assert p.returncode == 0, p.stderr
    per = json.loads(out.read_text())["tasks"]["per_pair"]["empty+empty/burn-5us"]
    paid = sum(e["estimate_ns"] for e in per["per_task"].values())
    assert abs(paid - 5000) < 500, per["per_task"]
    e = per["per_switch"]
    assert e["estimate_ns"] == pytest.approx(paid + per["switch_inflation"]["estimate_ns"], abs=1.0), e
    # the chunk design (tasks/chunked.py) sees it where it is paid: 5 µs in the first chunk after each
    # switch-in (the spin's overshoot is a clock read, tens of ns) and nothing after it (empty chunks:
    # a timer read and a call; 250 ns is 5% of the burn, ten times what a few refilled lines of the
    # loop's code could cost)
    ch = per["chunks"]
    for role in "ab":
        assert abs(ch["per_switch_in"][role]["estimate_ns"] - 5000) < 500, ch["per_switch_in"]
        pts = ch["curve"][role]["points"]
        assert abs(pts[0]["excess_ns"] - 5000) < 500, pts[0]
        assert all(abs(p["excess_ns"]) < 250 for p in pts[1:]), pts
    assert ch["per_switch"]["estimate_ns"] == pytest.approx(
        ch["paid_by"]["a"]["estimate_ns"] + ch["paid_by"]["b"]["estimate_ns"]
        + ch["switch_inflation"]["estimate_ns"], rel=0.05), ch


@pytest.mark.flow
def test_irq_end_to_end(tmp_path):
    out = tmp_path / "i.json"
    p = run_cli("irq", "--task", "crc", "--rates", "500,2000", "--rounds", "2", "--scale", "0.02",
                "-o", str(out), "--plot", str(tmp_path / "figs"), timeout=240)
    assert out.exists(), p.stderr
    doc = json.loads(out.read_text())
    assert_status_is_the_verdict(p, doc["irq"])  # two rounds of small tasks: its self-check may well fail
    pts = [r for r in doc["results"] if r["id"].startswith("irq/crc/")]
    assert sorted(r["params"]["rate_hz"] for r in pts) == [500, 2000]
    for r in pts:
        assert r["params"]["task"] == "crc"
        for part in ("R_task", "R_prime", "D", "I"):
            assert len(r["parts"][part]["ci95"]) == 2
        # every expiration due is either handled or merged into a pending one
        raw = r["raw"]
        for h, o, e in zip(raw["interrupts"], raw["overruns"], raw["expirations"]):
            assert abs(h + o - e) <= 2
    assert (tmp_path / "figs" / "irq-fig5-overhead.png").exists()


@pytest.mark.flow
def test_noise_end_to_end(tmp_path):
    out = tmp_path / "n.json"
    p = run_cli("noise", "--seconds", "1", "-o", str(out), "--plot", str(tmp_path), timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    nz = doc["results"][0]["noise"]
    assert nz["threshold_ns"] == 20 * nz["min_step_ns"]
    assert sum(h["count"] for h in nz["histogram"]) == nz["count"]
    assert sum(h["total_ns"] for h in nz["histogram"]) == nz["total_ns"]
    assert isinstance(nz["interrupts"], list)
    assert (tmp_path / "noise-gaps.svg").exists()
