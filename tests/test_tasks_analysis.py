"""David et al.'s arithmetic (docs/method.md#task-pairs), with known
answers: I = 0 at n = 1 by construction, and an injected indirect cost per
switch is recovered, per task and for the switch itself."""
import math

import numpy as np
import pytest

from ctxbench.core import model
from ctxbench.core.results import plain
from ctxbench.tasks import analysis as tasks_analysis


def _job(pair, rounds, ns, total, a, b, seed):
    """A synthetic engine job: `rounds` groups of one run per n."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(rounds):
        drift = rng.normal(0, 2e6)  # a whole round slower or faster: cancels in slopes
        for n in ns:
            ta, tb = a(n) + rng.normal(0, 2e4), b(n) + rng.normal(0, 2e4)
            rows.append((r, n, total(n, ta, tb) + drift + rng.normal(0, 5e4), ta, tb))
    k = len(rows)
    return {"id": f"tasks/{pair}", "params": {"pair": pair}, "samples": [x[2] for x in rows],
            "group": [x[0] for x in rows],
            "raw": {"t_total_ns": [x[2] for x in rows], "t_task_a_ns": [x[3] for x in rows],
                    "t_task_b_ns": [x[4] for x in rows], "n": [float(x[1]) for x in rows]},
            "verify": {"expected_voluntary": [x[1] for x in rows], "voluntary": [x[1] for x in rows],
                       "involuntary": [0] * k, "migrations": [0] * k},
            "warnings": []}


def test_known_indirect_cost_per_switch_recovered():
    C = 3000.0                       # direct cost of a switch (ns)
    ka, kb, ks = 700.0, 300.0, 50.0  # planted per-switch cost: task a, task b, the switch
    ns = (1, 1000, 2000, 4000)
    empty = _job("empty+empty", 20, ns, lambda n, a, b: 1e4 + n * C, lambda n: 0.0, lambda n: 0.0, 1)
    pair = _job("sort+crc", 20, ns, lambda n, a, b: a + b + n * C + n * ks,
                lambda n: 5e8 + n * ka, lambda n: 4e8 + n * kb, 2)
    out = tasks_analysis.analyse_pair(pair, empty, resamples=300)
    s = out.effects
    ps = s["per_switch"]
    assert ps["ci95"][0] < ka + kb + ks < ps["ci95"][1] and ps["resolved"]
    assert s["per_task"]["sort"]["estimate_ns"] == pytest.approx(ka, abs=5)
    assert s["per_task"]["crc"]["estimate_ns"] == pytest.approx(kb, abs=5)
    assert s["C"]["estimate_ns"] == pytest.approx(C, rel=0.01)
    by_n = {p["params"]["n"]: p for p in plain(out.points)}
    assert by_n[1]["parts"]["I"]["mean"] == 0.0  # by construction
    q = by_n[4000]["parts"]
    lo, hi = q["I"]["ci95"]
    assert lo < 3999 * (ka + kb + ks) < hi
    assert q["I_task_a"]["mean"] == pytest.approx(3999 * ka, rel=0.02)
    assert math.isfinite(tasks_analysis.max_cv(out.points))


def test_null_effect_is_said_to_be_below_the_mde():
    ns = (1, 1000, 2000)
    empty = _job("empty+empty", 6, ns, lambda n, a, b: 1e4 + n * 3000, lambda n: 0.0, lambda n: 0.0, 3)
    pair = _job("aes+crc", 6, ns, lambda n, a, b: 3e8 + n * 3000, lambda n: 1.5e8, lambda n: 1.5e8, 4)
    ps = tasks_analysis.analyse_pair(pair, empty, resamples=300).effects["per_switch"]
    assert ps["below_mde"] or not ps["resolved"]


def test_negative_indirect_is_reported_not_clipped():
    ns = (1, 1000, 2000)
    empty = _job("empty+empty", 10, ns, lambda n, a, b: 1e4 + n * 5000, lambda n: 0.0, lambda n: 0.0, 5)
    # the pair's switch is cheaper than the empty pair's: a negative cost per switch
    pair = _job("sort+aes", 10, ns, lambda n, a, b: a + b + n * 3000, lambda n: 5e8, lambda n: 5e8, 6)
    out = tasks_analysis.analyse_pair(pair, empty, resamples=300)
    assert out.effects["per_switch"]["estimate_ns"] < 0 and out.effects["per_switch"]["resolved"]
    last = plain(out.points[-1])
    assert last["parts"]["I"]["mean"] < 0
    assert any(w["code"] == "negative_indirect" for w in last["warnings"])


def test_reanalyse_derives_the_per_switch_cost_from_the_runs_in_the_file(tmp_path):
    # a tasks file that keeps the points and the runs (the pair's and the empty
    # pair's) but not the per-switch effects derived from them: the report says
    # so and does not derive them (issue 47); `reanalyse` derives them from the runs
    import msgspec

    from conftest import run_cli

    ns = (1, 1000, 2000, 4000)
    empty = _job("empty+empty", 16, ns, lambda n, a, b: 1e4 + n * 3000.0, lambda n: 0.0, lambda n: 0.0, 5)
    pair = _job("sort+crc", 16, ns, lambda n, a, b: a + b + n * 3000.0, lambda n: 5e8 + n * 1000.0,
                lambda n: 4e8, 6)
    out = tasks_analysis.analyse_pair(pair, empty, resamples=300)
    runs = tasks_analysis.runs_in(out.points + [pair, dict(empty, id=tasks_analysis.EMPTY_WITH + "sort+crc")])
    assert list(runs) == ["sort+crc"]
    again = tasks_analysis.analyse_pair(*runs["sort+crc"], resamples=300).effects
    assert again["per_switch"]["estimate_ns"] == pytest.approx(out.effects["per_switch"]["estimate_ns"])
    # ctxbench/2 with the runs analysed (a file read as written: a ctxbench/1 one is analysed as it is upgraded)
    doc = {"schema": "ctxbench/2", "tool": {"name": "ctxbench"}, "environment": {},
           "results": plain(out.points) + plain([model.analyse(pair),
                                                 model.analyse(dict(empty, id=tasks_analysis.EMPTY_WITH + "sort+crc"))]),
           "tasks": {"pairs": ["sort+crc"]}}
    f = tmp_path / "tasks.json"
    f.write_bytes(msgspec.json.encode(doc))  # as the writer does: a NaN (unknown) is null, JSON has no NaN

    def report(path) -> str:
        md = tmp_path / "r.md"
        p = run_cli("report", str(path), "-o", str(tmp_path / "r.html"), "--markdown", str(md))
        assert p.returncode == 0, p.stderr
        return md.read_text()
    text = report(f)
    assert "R'\\_total" in text and "&\\#x27;" not in text  # a quote is text in Markdown, not an entity
    assert "not kept in this file" in text and "indirect cost per switch" not in text
    p = run_cli("reanalyse", str(f), "-o", str(tmp_path / "again.json"))
    assert p.returncode == 0, p.stderr
    text = report(tmp_path / "again.json")
    assert "indirect cost per switch" in text and "not kept in this file" not in text
    row = next(line for line in text.splitlines() if line.startswith("| sort+crc") and "rounds" not in line
               and "[" in line and "below" not in line.split("|")[2])
    est = float(row.split("|")[2].split()[0])
    assert 0.9 <= est <= 1.1  # 1.00 µs planted per switch (the file's unit: µs)


def test_marginal_cost_by_n_and_the_linearity_check():
    # linear: every interval of n gives the planted cost, and I is called linear
    ns = (1, 1000, 2000, 4000)
    empty = _job("empty+empty", 20, ns, lambda n, a, b: 1e4 + n * 3000.0, lambda n: 0.0, lambda n: 0.0, 11)
    pair = _job("sort+crc", 20, ns, lambda n, a, b: a + b + n * 3000.0, lambda n: 5e8 + n * 800.0,
                lambda n: 4e8, 12)
    s = tasks_analysis.analyse_pair(pair, empty, resamples=300).effects
    assert [(m["n_from"], m["n_to"]) for m in s["marginal"]] == [(1, 1000), (1000, 2000), (2000, 4000)]
    for m in s["marginal"]:
        assert m["ci95"][0] < 800.0 < m["ci95"][1]
    assert s["linear"]["linear"] and "linear in n" in tasks_analysis.marginal_text(s)
    # concave: 3 us per switch up to n = 1000, then 0.2 us (the tasks touch less between
    # switches the more often they switch): found, and said, not hidden in one slope
    def cost(n):
        return 3000.0 * min(n, 1000) + 200.0 * max(n - 1000, 0)
    pair = _job("sort+crc", 20, ns, lambda n, a, b: a + b + n * 3000.0, lambda n: 5e8 + cost(n), lambda n: 4e8, 13)
    s = tasks_analysis.analyse_pair(pair, empty, resamples=300).effects
    first, last = s["marginal"][0], s["marginal"][-1]
    assert first["estimate_ns"] == pytest.approx(3000.0 * 999 / 999, rel=0.05)
    assert last["estimate_ns"] == pytest.approx(200.0, abs=60)
    assert not s["linear"]["linear"]
    assert "NOT linear in n" in tasks_analysis.marginal_text(s)
