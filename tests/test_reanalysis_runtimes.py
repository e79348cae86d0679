"""`reanalyse` of a runtimes file, and its report (issue 47).

A runtimes row's interval is over its launches (analysis.row_of:
over_launches), several times wider than the interval over its groups
that model.analyse alone gives. `reanalyse` analyses every result again
and then makes each of the command's rows' own members again
(runtimes/reanalysis.py): a file whose samples are unchanged comes back as
written, and "nothing changed" is said. The report draws a row as the file
keeps it, never derived again (runtimes/section.py): a tampered interval
is shown tampered.

The file is made as the command makes its rows (rounds.merge of launches,
then row_of; the engine's own ids model.analyse alone), from synthetic
launches whose levels differ: no engine, no harness, nothing timed. A
`--quick` run has one launch per row, so its intervals are over groups
either way: it is held to the same here too."""
from __future__ import annotations

import json
import re

import pytest

from conftest import run_cli
from ctxbench.core import model, reader, results, writer
from ctxbench.records import RECORDS
from ctxbench.runtimes import analysis, probe, references, rounds, section, table

OPS = 131072  # the engine's PROBE_OPS; any positive count does
GROUPS, PER = 2, 3  # each launch's groups, and samples per group
CYCLES = [300, 330, 270, 315]  # each launch's level, in core cycles: they differ beyond the groups' spread
GHZ = [3.0, 2.5, 3.0, 2.5]


def _reading(ghz: float) -> dict:
    """What `ctxbench-engine probe` prints on a core at `ghz` (no PMU)."""
    return {"chain": "add reg,reg (x86-64)", "ops": OPS, "reps": 5, "check_chain": "imul reg,reg (x86-64)",
            "check_ops": OPS // 4, "check_reps": 3, "check_latency_cycles": 3, "timed_with": "CLOCK_MONOTONIC_RAW",
            "pmu": "none here", "add_ns": [OPS / ghz] * 3, "check_ns": [3 * (OPS // 4) / ghz] * 3,
            "pmu_cycles_per_op": [None] * 3, "cpu": 1}


def _samples(level: float) -> list[float]:
    n = GROUPS * PER
    return [level * (1 + 0.02 * ((i % PER) - 1)) for i in range(n)]


def _launch(k: int, runtime: str = "go", mech: str = "channel", placement: str = "pinned", **more) -> dict:
    """Launch k of a harness's row: its samples around CYCLES[k] / GHZ[k]
    ns, what others took of its CPUs, the JVM's pinned events."""
    ns = _samples(CYCLES[k] / GHZ[k])
    n = len(ns)
    cpus = [1] if placement == "pinned" else [1, 0]
    return {"id": f"runtimes/{runtime}/{mech}/{placement}", "quantity": "handoff", "unit": "ns",
            "params": {"runtime": runtime, "mechanism": mech, "placement": placement, "n": 1000, "delay_ns": 0,
                       "workers": 1, "cpus": cpus, "version": "1.0", "others_share": 0.02 * k,
                       "machine_share": 0.01, "launches_tried": 1},
            "samples": ns, "group": [i // PER for i in range(n)],
            "raw": {"total_ns": [x * 2000 for x in ns], "handoffs": [2000] * n},
            "verify": {"voluntary": [k] * n, "involuntary": [0] * n, "source": "getrusage"}, "warnings": [], **more}


def _spawn() -> dict:
    """A spawn row: measured in the first round only."""
    return {"id": "runtimes/go/goroutine/spawn/pinned", "quantity": "spawn", "unit": "ns",
            "params": {"runtime": "go", "mechanism": "goroutine", "placement": "pinned", "n": 100, "cpus": [1]},
            "samples": _samples(900.0), "group": [i // PER for i in range(GROUPS * PER)], "warnings": []}


def _engine(k: int) -> dict:
    """The engine's kernel/thread/pipe/same-cpu in round k, with its probe."""
    ns = _samples(2000.0 * CYCLES[k] / 300)
    return {"id": "kernel/thread/pipe/same-cpu", "quantity": "switch", "unit": "ns",
            "params": {"n": 10, "cpu": 1, "cpu_b": 1}, "samples": ns, "group": [i // PER for i in range(len(ns))],
            "raw": {"t_switch_ns": [x * 20 for x in ns]},
            "verify": {"voluntary": [20] * len(ns), "involuntary": [0] * len(ns)},
            "clock_probe": probe.launch_record(_reading(GHZ[k]), _reading(GHZ[k]), list(range(GROUPS)))}


def _rows() -> list[dict]:
    """The results as runtimes/command._rows makes them: each harness
    launch's records (one runtime in one placement; the probe around a
    pinned one) merged over the rounds, then the engine's."""
    per_round = [GROUPS] * len(CYCLES)
    engine_rounds = [[_engine(k)] for k in range(len(CYCLES))]
    by_launch = [[probe.attach([_launch(k)] + ([_spawn()] if k == 0 else []), _reading(GHZ[k]), _reading(GHZ[k]))
                  for k in range(len(CYCLES))],
                 [[_launch(k, placement="default")] for k in range(len(CYCLES))],
                 [[_launch(k, "java", "vt-park", jfr={"virtual_thread_pinned": 1})] for k in range(len(CYCLES))]]
    handoffs = [[references.handoff_record(r) for r in rs] for rs in engine_rounds]
    out = [analysis.row_of(x) for x in rounds.merge(handoffs, per_round)]
    for by_round in by_launch:
        out += [analysis.row_of(x) for x in rounds.merge(by_round, per_round)]
    return out + [model.analyse(x) for x in rounds.merge(engine_rounds, per_round)]


@pytest.fixture
def written(tmp_path):
    """A runtimes file (its path) and its results as the command wrote them."""
    rows = _rows()
    path = tmp_path / "runtimes.json"
    doc = model.document({"name": "ctxbench"}, {}, rows, {"runtimes": {"rounds": len(CYCLES)}}, records=RECORDS)
    writer.write_results(str(path), doc)
    return path, json.loads(path.read_text())["results"]


def _width(ci) -> float:
    return ci[1] - ci[0]


def test_the_file_holds_intervals_over_launches_wider_than_its_groups(written):
    """What the other tests hold reanalyse and the report to: rows whose
    launches differ, so the interval over launches is not the groups'."""
    _, rows = written
    over = [r for r in rows if r["summary"].get("launch_interval")]
    assert {r["id"] for r in over} >= {"runtimes/go/channel/pinned", "runtimes/c/kernel/thread/pipe/same-cpu"}
    for r in over:
        assert _width(r["summary"]["ci95"]) > 1.5 * _width(r["summary"]["ci95_groups"]), r["id"]
    pinned = next(r for r in rows if r["id"] == "runtimes/go/channel/pinned")
    assert pinned["cycles"]["summary"]["launch_interval"]["launches"] == len(CYCLES)
    assert {w["code"] for w in pinned["warnings"]} >= {"launch_spread"} and pinned["contention"]
    java = next(r for r in rows if r["id"].startswith("runtimes/java/"))
    assert [w["code"] for w in java["warnings"]].count("vt_pinned") == 1
    engine = next(r for r in rows if r["id"] == "kernel/thread/pipe/same-cpu")
    assert "launch_interval" not in engine["summary"] and "kernel" not in engine


def test_reanalyse_keeps_the_intervals_over_launches_and_says_nothing_changed(written, tmp_path):
    path, rows = written
    out = tmp_path / "reanalysed.json"
    p = run_cli("reanalyse", str(path), "-o", str(out), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    said = p.stdout.splitlines()
    assert said[0] == "nothing changed", p.stdout
    again = json.loads(out.read_text())["results"]
    assert [r["id"] for r in again] == [r["id"] for r in rows]
    for a, b in zip(rows, again):
        assert b["summary"]["ci95"] == pytest.approx(a["summary"]["ci95"], rel=1e-12), a["id"]
        assert b["summary"].get("launch_interval") == a["summary"].get("launch_interval"), a["id"]
        if a["cycles"].get("summary"):
            assert b["cycles"]["summary"]["ci95"] == pytest.approx(a["cycles"]["summary"]["ci95"], rel=1e-12)
        for member in ("kernel", "resolution", "contention", "launches", "warnings"):
            assert b.get(member) == a.get(member), (a["id"], member)
    # and the whole record, member by member: nothing added, nothing lost
    assert again == rows


def test_reanalyse_of_a_runtimes_file_the_command_wrote_says_nothing_changed(tmp_path, monkeypatch):
    """A `--quick` run (recorded engine, fake harness): one launch per row."""
    from test_reads_as_printed import measure
    _, path = measure("runtimes", tmp_path, monkeypatch)
    p = run_cli("reanalyse", str(path), "-o", str(tmp_path / "reanalysed.json"), cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.splitlines()[0] == "nothing changed", p.stdout + p.stderr


def _tampered(path, tmp_path):
    """The file with the go pinned row's kept interval (ns) set to 100-900 ns."""
    doc = json.loads(path.read_text())
    row = next(r for r in doc["results"] if r["id"] == "runtimes/go/channel/pinned")
    row["summary"]["ci95"] = [100.0, 900.0]
    out = tmp_path / "tampered.json"
    out.write_text(json.dumps(doc))
    return out


def _handoff_table(parts: list):
    (tab,) = [x for x in parts if getattr(x, "headers", None) == table.HANDOFF_HEADER]
    return tab


def test_the_report_draws_the_rows_as_the_file_keeps_them(written, tmp_path, monkeypatch):
    """The section's table is the command's printed table of the rows read
    back; a tampered interval is drawn as the file has it."""
    monkeypatch.setattr(section.figures, "figure", lambda rs, env: None)  # the table is the question here
    path, _ = written
    back = reader.load(str(path), RECORDS)
    printed = table.handoff_rows([results.plain(r) for r in back.results])
    assert _handoff_table(section.render_runtimes(back.results, {}, [back.runtimes])).rows == printed
    tampered = reader.load(str(_tampered(path, tmp_path)), RECORDS)
    rows = _handoff_table(section.render_runtimes(tampered.results, {}, [tampered.runtimes])).rows
    go = next(r for r in rows if r[0] == "go" and r[1] == "channel" and r[2].startswith("pinned"))
    assert "[100 ns, 900 ns]" in go[3]
    assert [r for r in rows if r is not go] == [r for r in printed if r[:3] != go[:3]]


@pytest.mark.slow  # the report draws its figure (a second or more)
def test_report_prints_a_tampered_interval_as_the_file_keeps_it(written, tmp_path):
    path, _ = written
    md = tmp_path / "report.md"
    p = run_cli("report", str(_tampered(path, tmp_path)), "-o", str(tmp_path / "report.html"), "--markdown", str(md),
                cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    text = re.sub(r"\\(.)", r"\1", md.read_text())  # Markdown's escapes undone
    line = next(x for x in text.splitlines() if x.startswith("| go | channel | pinned"))
    assert "[100 ns, 900 ns]" in line, line
    # the rows left alone are drawn as the command printed them
    for row in table.handoff_rows(json.loads(path.read_text())["results"]):
        if row[:2] != ["go", "channel"] or not row[2].startswith("pinned"):
            assert "| " + " | ".join(row) + " |" in text, row


def test_a_ctxbench_1_runtimes_file_is_read_with_its_intervals_over_launches(written, tmp_path):
    """A ctxbench/1 file is analysed once as it is read (core/reader's
    upgrade): its command's step runs too (RECORDS.derived), or a row with
    several launches read back with its groups' interval, narrower than
    what runtimes printed."""
    path, rows = written
    doc = json.loads(path.read_text())
    doc["schema"] = "ctxbench/1"
    old = tmp_path / "v1.json"
    old.write_text(json.dumps(doc))
    back = {r.id: results.plain(r) for r in reader.load(str(old), RECORDS).results}
    for r in rows:
        if r["summary"].get("launch_interval"):
            assert back[r["id"]]["summary"]["ci95"] == pytest.approx(r["summary"]["ci95"], rel=1e-12), r["id"]
