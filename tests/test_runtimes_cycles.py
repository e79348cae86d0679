"""The runtimes rows in core cycles and their intervals over launches
(issue 32), on synthetic records whose answer is known: no engine, no
harness, nothing timed.

- A harness's launch gets the engine's clock_probe shape from readings
  taken around it (runtimes/probe.py): launches with known clocks give back
  known cycles through rounds.merge and analysis.row_of, a slower host
  leaves the cycles where they were and moves the ns.
- A row's interval is Student's t over its launches' medians with
  launches - 1 degrees of freedom (analysis.launch_interval), in ns and in
  cycles; a row of one launch keeps its interval over groups and says so.
- A default-placement row (two CPUs) keeps ns only, with why."""
import math

import pytest

from conftest import own_engine

from ctxbench.core import cycles
from ctxbench.core.engine import Engine
from ctxbench.core.model import Result
from ctxbench.runtimes import analysis, command, probe, references, rounds, table
from ctxbench.core.results import plain
from ctxbench.records import RECORDS

OPS = 131072  # the engine's PROBE_OPS; any positive count does


def row_of(raw: dict) -> dict:
    """analysis.row_of's record as builtins, read member by member below."""
    return plain(analysis.row_of(raw))


def _reading(ghz: float, k: int = 3) -> dict:
    """What `ctxbench-engine probe` prints (its clock_probe object) on a
    core running at `ghz`, k readings, no PMU."""
    return {"chain": "add reg,reg (x86-64)", "ops": OPS, "reps": 5, "check_chain": "imul reg,reg (x86-64)",
            "check_ops": OPS // 4, "check_reps": 3, "check_latency_cycles": 3, "timed_with": "CLOCK_MONOTONIC_RAW",
            "pmu": "none here", "add_ns": [OPS / ghz] * k, "check_ns": [3 * (OPS // 4) / ghz] * k,
            "pmu_cycles_per_op": [None] * k, "cpu": 1}


def _launch(cyc: float, ghz: float, groups: int = 2, per: int = 3, mech: str = "channel", placement: str = "pinned",
            jitter: float = 0.0) -> dict:
    """One harness launch's record: every sample `cyc` core cycles on a
    core at `ghz` (so cyc / ghz ns), groups 0..groups-1."""
    n = groups * per
    ns = [cyc * (1 + jitter * ((i % per) - 1)) / ghz for i in range(n)]
    cpus = [1] if placement == "pinned" else [1, 0]
    return {"id": f"runtimes/go/{mech}/{placement}", "quantity": "handoff", "unit": "ns",
            "params": {"runtime": "go", "mechanism": mech, "placement": placement, "n": 1000, "delay_ns": 0,
                       "workers": 1, "cpus": cpus},
            "samples": ns, "group": [i // per for i in range(n)],
            "raw": {"total_ns": [x * 2000 for x in ns], "handoffs": [2000] * n},
            "verify": {"voluntary": [0] * n, "involuntary": [0] * n, "source": "getrusage"}, "warnings": []}


def _row(launches: list[tuple[float, float]], **kw) -> dict:
    """(cycles, GHz) per launch -> the analysed row, each launch with the
    probe readings around it, merged as a run's rounds are."""
    per_round = [2] * len(launches)
    recs = [probe.attach([_launch(c, f, **kw)], _reading(f), _reading(f)) for c, f in launches]
    return row_of(rounds.merge(recs, per_round)[0])


def test_a_launch_gets_the_engines_probe_shape():
    before, after = _reading(3.0), dict(_reading(2.5), add_ns=[OPS / 2.5, OPS / 2.4, OPS / 2.6])
    p = probe.launch_record(before, after, [1, 0, 1, 0])
    assert p["group"] == [0, 1] and p["ops"] == OPS and p["check_latency_cycles"] == 3
    assert p["before_ns"] == [pytest.approx(OPS / 3.0)] * 2
    assert p["after_ns"] == [pytest.approx(OPS / 2.5)] * 2  # the median of the three readings after
    assert p["pmu_cycles_per_op"] == [None, None] and p["cpu"] == [1, 1]
    # core/cycles.py reads it unchanged: each group's clock is the mean of its readings' f
    assert cycles.group_clock(p) == {0: pytest.approx(2.75), 1: pytest.approx(2.75)}
    assert cycles.method(p) == "probe" and cycles.check(p)["ok"] is True
    # only time-valued records get it, and none without both sides' readings
    memory = dict(_launch(1.0, 1.0), unit="bytes", quantity="memory")
    got = probe.attach([_launch(300, 3.0), memory], before, after)
    assert "clock_probe" in got[0] and "clock_probe" not in got[1]
    assert probe.attach([_launch(300, 3.0)], before, None) == [_launch(300, 3.0)]


def test_known_clocks_give_back_known_cycles_and_a_slower_host_moves_only_ns():
    # 300 cycles a hand-off in every launch; the host ran at 3.0 GHz, then 2.0 (1.5x slower), then 3.0
    r = _row([(300, 3.0), (300, 2.0), (300, 3.0)])
    c = Result(r).cycles
    assert c.applies and c.method == "probe"
    assert c.samples == pytest.approx([300.0] * len(r["samples"]))
    assert c.summary.median == pytest.approx(300)
    assert rounds.launches(r) == [[100, 100], [150, 150], [100, 100]]  # ns: the slow launch shows
    assert r["cycles"]["summary"]["launch_interval"]["sd"] == pytest.approx(0, abs=1e-9)
    assert r["summary"]["launch_interval"]["medians"] == pytest.approx([100, 150, 100])
    # the same run on a host 10% slower throughout: cycles unchanged, ns 10% higher
    slow = _row([(300, 3.0 / 1.1), (300, 2.0 / 1.1), (300, 3.0 / 1.1)])
    assert Result(slow).cycles.summary.median == pytest.approx(300)
    assert Result(slow).summary.median == pytest.approx(1.1 * Result(r).summary.median)


def test_the_interval_is_students_t_over_the_launches_medians():
    medians = [100.0, 110.0, 90.0, 105.0, 95.0, 100.0]
    iv = analysis.launch_interval(medians)
    mean = sum(medians) / 6
    sd = math.sqrt(sum((m - mean) ** 2 for m in medians) / 5)
    t5 = 2.570581835636314  # t(0.975, 5 degrees of freedom)
    assert iv["launches"] == 6 and iv["df"] == 5 and iv["mean"] == pytest.approx(100)
    assert iv["sd"] == pytest.approx(sd) and iv["se"] == pytest.approx(sd / math.sqrt(6))
    assert iv["t"] == pytest.approx(t5, rel=1e-9)
    assert iv["ci95"] == pytest.approx([mean - t5 * sd / math.sqrt(6), mean + t5 * sd / math.sqrt(6)])
    assert analysis.launch_interval([100.0]) is None and analysis.launch_interval([]) is None
    # two launches: one degree of freedom, t = 12.71
    assert analysis.launch_interval([90.0, 110.0])["ci95"] == pytest.approx([100 - 12.7062 * 10, 100 + 12.7062 * 10],
                                                                           rel=1e-4)


def test_a_rows_interval_covers_its_launches_in_ns_and_in_cycles():
    # launches at 300, 330, 270, 315, 285, 300 cycles, each with 2% jitter within its groups,
    # the host at 3 GHz then 2.5 GHz alternately
    cyc = [300, 330, 270, 315, 285, 300]
    ghz = [3.0, 2.5] * 3
    r = _row(list(zip(cyc, ghz)), jitter=0.02)
    s, cs = r["summary"], r["cycles"]["summary"]
    want_c = analysis.launch_interval([float(c) for c in cyc])  # each launch's median is its cycles
    assert cs["ci95"] == pytest.approx(want_c["ci95"]) and cs["launch_interval"]["df"] == 5
    want_ns = analysis.launch_interval([c / f for c, f in zip(cyc, ghz)])
    assert s["ci95"] == pytest.approx(want_ns["ci95"])
    # the bootstrap over groups is kept beside it, and the interval says what it is over
    assert len(s["ci95_groups"]) == 2 and "launches" in s["ci95_over"]
    # the MDEs: 2.8-ish standard errors of the launches, on their degrees of freedom
    res = r["resolution"]
    assert res["over"] == "launches" and res["df"] == 5
    assert res["se_ns"] == pytest.approx(want_ns["se"]) and res["se_cycles"] == pytest.approx(want_c["se"])
    assert res["mde_ns"] > 2.8 * want_ns["se"] and res["mde_cycles"] > 2.8 * want_c["se"]
    # re-analysing gives the same row
    again = row_of(r)
    assert again["summary"]["ci95"] == pytest.approx(s["ci95"])
    assert again["cycles"]["summary"]["ci95"] == pytest.approx(cs["ci95"])


def test_a_row_of_one_launch_keeps_its_interval_over_groups_and_says_so():
    recs = probe.attach([_launch(300, 3.0, groups=4, jitter=0.02)], _reading(3.0), _reading(3.0))
    r = row_of(rounds.merge([recs], [4])[0])
    assert "launch_interval" not in r["summary"] and r["resolution"]["over"] == "groups"
    line = table.interval_line([r])
    assert "covers this launch only" in line and "Student's t" not in line
    col = table.HANDOFF_HEADER.index("ns per hand-off [95% CI]")
    assert table.handoff_rows([r])[0][col].startswith("100 ns [")  # the median of its groups


def test_default_rows_keep_ns_only_and_the_table_says_why():
    pinned = _row([(300, 3.0), (320, 3.0)])
    default = _row([(600, 3.0), (640, 3.0)], placement="default")
    assert not Result(default).cycles.applies and Result(default).cycles.why == cycles.MORE_THAN_ONE_CPU
    rows = table.handoff_rows([pinned, default])
    col = table.HANDOFF_HEADER.index("core cycles [95% CI]")
    assert rows[0][col].startswith("310 cyc [") and rows[1][col] == "ns only"  # the mean of 300 and 320
    assert "ns only (1 row): its parties ran on more than one CPU" in " ".join(table.cycles_lines([pinned, default]))
    line = table.interval_line([pinned, default])
    assert "measured in 2 launches: the mean of its launches' medians" in line and "Student's t" in line
    assert "ns only (1 row)" in table.render([pinned, default]).replace("\n", " ")


def test_the_engines_reference_rows_carry_its_probe_and_cpus():
    def engine(rid, cpu_b):
        return {"id": rid, "quantity": "switch", "unit": "ns", "params": {"n": 10, "cpu": 1, "cpu_b": cpu_b},
                "samples": [50.0] * 4, "group": [0, 0, 1, 1], "raw": {"t_switch_ns": [2000.0] * 4},
                "verify": {"voluntary": [20] * 4, "involuntary": [0] * 4},
                "clock_probe": probe.launch_record(_reading(2.0), _reading(2.0), [0, 1])}
    same = references.handoff_record(engine("kernel/thread/pipe/same-cpu", 1))
    cross = references.handoff_record(engine("kernel/thread/pipe/cross-cpu", 0))
    assert same["params"]["cpus"] == [1] and cross["params"]["cpus"] == [0, 1]
    a, b = row_of(same), row_of(cross)
    assert Result(a).cycles.applies and Result(a).cycles.summary.median == pytest.approx(100 * 2.0)  # 2000/20 ns
    assert Result(b).cycles.why == cycles.MORE_THAN_ONE_CPU


def test_a_probe_that_fails_costs_one_note_not_the_run(monkeypatch, capsys, tmp_path):
    own_engine(monkeypatch, "/bin/false")
    notes: list[str] = []
    eng = Engine()  # the command's engine context, its engine /bin/false
    assert command._probe(eng, 1, notes) is None and command._probe(eng, 1, notes) is None
    err = capsys.readouterr().err
    assert err.count("note: core-clock probe failed") == 1 and len(notes) == 2


def test_the_report_keeps_the_interval_over_launches_of_a_file_read_back(tmp_path):
    """The reader takes a row as written and the runtimes' section draws
    it so (derives nothing again): its interval over launches, in ns and
    in cycles, as the command printed it (tests/test_reanalysis_runtimes.py:
    reanalyse and a tampered file)."""
    from ctxbench.core import model, reader, writer
    from ctxbench.runtimes.section import render_runtimes

    r = _row([(300, 3.0), (330, 2.5), (270, 3.0), (315, 2.5)], jitter=0.02)
    path = tmp_path / "runtimes.json"
    writer.write_results(str(path), model.document({"name": "ctxbench"}, {}, [r], {"runtimes": {}}, records=RECORDS))
    back = reader.load(str(path), RECORDS).results
    (tab,) = [x for x in render_runtimes(back, {}, []) if hasattr(x, "rows")]
    want = table.handoff_rows([r])[0]
    assert tab.rows[0] == want and "measured in 4 launches" in tab.caption and "this launch only" not in tab.caption
    # applied again to its own output, the groups' interval is kept as it was
    again = analysis.over_launches(dict(r))
    assert again["summary"]["ci95_groups"] == r["summary"]["ci95_groups"]
    assert again["cycles"]["summary"]["ci95_groups"] == r["cycles"]["summary"]["ci95_groups"]
