"""The ring's and the sweep's report draw what the command kept (issue 47):
each ring point's cost above the ping-pong and the section's N = 2 checks,
each sweep point's indirect cost and the tallies of them, never derived
again on reading; `ctxbench reanalyse` derives them again with the
command's own functions (ring/analysis.derived, sweep/analysis.with_indirect:
ring/reanalysis.py, sweep/reanalysis.py). Each command's `--quick` runs
once on the recorded engine, as tests/test_reads_as_printed.py runs it;
the files here are that one, reanalysed, tampered with or edited."""
from __future__ import annotations

import json
import math
import statistics

import pytest

from test_reads_as_printed import measure, reanalyse, report, write_json

from ctxbench.core.model import Result
from ctxbench.ring import analysis as ring_analysis
from ctxbench.ring.section import NOT_KEPT as RING_NOTE
from ctxbench.ui.format import fmt_time

MEASURED: dict[str, str] = {}  # command -> its file's text: one run each


def _doc(command: str, tmp_path, monkeypatch) -> dict:
    """The document of `command --quick` (measured once in this module)."""
    if command not in MEASURED:
        MEASURED[command] = measure(command, tmp_path, monkeypatch)[1].read_text()
    return json.loads(MEASURED[command])


def _close(a, b, where: str = "") -> list[str]:
    """Where `a` and `b` differ beyond float precision (their paths)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [f"{where}: members" for _ in [1] if a.keys() != b.keys()] + \
            [x for k in a.keys() & b.keys() for x in _close(a[k], b[k], f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        return [f"{where}: length"] if len(a) != len(b) else \
            [x for i, (u, v) in enumerate(zip(a, b)) for x in _close(u, v, f"{where}[{i}]")]
    if isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool):
        return [] if math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) else [f"{where}: {a} != {b}"]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


def _times(r: dict, f: float) -> None:
    """A point's samples and raw per-sample arrays multiplied by `f`, in place."""
    r["samples"] = [x * f if isinstance(x, (int, float)) else x for x in r["samples"]]
    r["raw"] = {k: [x * f if isinstance(x, (int, float)) else x for x in v] for k, v in r["raw"].items()}


def _ring_point(doc: dict, kind: str, mech: str, parties: int, footprint: int = 0) -> dict:
    return next(r for r in doc["results"] if r["id"] == f"ring/{kind}/{mech}" and
                r["params"]["parties"] == parties and r["params"]["footprint"] == footprint)


def _sweep_point(doc: dict, size: int, stride: int) -> dict:
    return next(r for r in doc["results"] if r["params"].get("size") == size and r["params"].get("stride") == stride)


def _section_of_report(md: str, title: str) -> str:
    start = md.index(f"## {title}")
    end = md.find("\n## ", start + 1)
    return md[start:] if end < 0 else md[start:end]


RING = "Process working set: ring of N parties (ctxbench ring)"
SWEEP = "Indirect cost: working-set and stride sweep"


@pytest.mark.parametrize("command", ["ring", "sweep"])
def test_reanalyse_of_a_quick_file_changes_nothing(command, tmp_path, monkeypatch):
    """The same samples, the same statistics, the command's own functions:
    nothing changed, no note, and the same section and results."""
    doc = _doc(command, tmp_path, monkeypatch)
    lines = reanalyse(write_json(tmp_path, "measured.json", doc), tmp_path / "again.json")
    assert lines[0] == "nothing changed" and not any(x.startswith("note: ") for x in lines), lines
    again = json.loads((tmp_path / "again.json").read_text())
    assert _close(doc[command], again[command], command) == []
    assert _close(doc["results"], again["results"], "results") == []


def test_a_ring_point_tampered_with_has_its_effect_and_n2_check_derived_again(tmp_path, monkeypatch):
    """The two-party thread pipe ring twice as slow: its cost above the
    ping-pong grows by its own round medians (the mean of the rounds'
    differences), its N = 2 ratio doubles and fails, and reanalyse says
    so (the point's line, and the note for what no result line shows)."""
    doc = _doc("ring", tmp_path, monkeypatch)
    tampered = json.loads(json.dumps(doc))
    r = _ring_point(tampered, "thread", "pipe", 2)
    _times(r, 2)
    lines = reanalyse(write_json(tmp_path, "tampered.json", tampered), tmp_path / "again.json")
    key = Result(r).point_key
    assert any(x.startswith(f"{key}: median ") for x in lines), lines
    notes = [x for x in lines if x.startswith("note: ")]
    assert len(notes) == 1 and f"{key} above the ping-pong " in notes[0], lines
    assert "N = 2 check thread pipe verdict ok -> FAILED" in notes[0], notes
    again = json.loads((tmp_path / "again.json").read_text())
    old, new = _ring_point(doc, "thread", "pipe", 2), _ring_point(again, "thread", "pipe", 2)
    ref = Result(next(x for x in doc["results"] if x["id"] == ring_analysis.pingpong_id("thread", "pipe")))
    rounds = sorted(set(Result(old).round_medians()) & set(ref.round_medians()))
    grown = statistics.fmean(Result(old).round_medians()[g] for g in rounds)
    assert math.isclose(new["above_pingpong"]["estimate_ns"], old["above_pingpong"]["estimate_ns"] + grown,
                        rel_tol=1e-9)
    n2 = {(c["kind"], c["mechanism"]): c for c in again["ring"]["n2_check"]}
    was = {(c["kind"], c["mechanism"]): c for c in doc["ring"]["n2_check"]}
    assert math.isclose(n2["thread", "pipe"]["ratio"], 2 * was["thread", "pipe"]["ratio"], rel_tol=1e-9)
    assert n2["thread", "pipe"]["ok"] is False and was["thread", "pipe"]["ok"] is True
    assert _close(n2["process", "pipe"], was["process", "pipe"]) == []  # the others' own rounds: as they were
    for k in ("parties", "footprints", "kinds", "mechanisms", "engine_args", "settle", "started"):
        assert again["ring"].get(k) == doc["ring"].get(k), k  # the plan and the machine: as the file holds them


def test_a_sweep_point_tampered_with_has_its_indirect_cost_derived_again(tmp_path, monkeypatch):
    """A strided point twice as slow: its indirect cost (paired by round
    with its size's stride 0) grows by its own round medians, it is
    resolved now, and reanalyse says so: the point's line, and the note
    with its indirect cost and the mechanism's tallies."""
    doc = _doc("sweep", tmp_path, monkeypatch)
    tampered = json.loads(json.dumps(doc))
    r = _sweep_point(tampered, 4096, 64)
    _times(r, 2)
    lines = reanalyse(write_json(tmp_path, "tampered.json", tampered), tmp_path / "again.json")
    key = Result(r).point_key
    bid = r["id"]
    assert any(x.startswith(f"{key}: median ") for x in lines), lines
    notes = [x for x in lines if x.startswith("note: ")]
    assert len(notes) == 1 and f"{key}: indirect below " in notes[0], lines
    assert f"{bid} resolved: 0 -> 1" in notes[0] and f"{bid} below MDE: 2 -> 1" in notes[0], notes
    again = json.loads((tmp_path / "again.json").read_text())
    old, new = _sweep_point(doc, 4096, 64), _sweep_point(again, 4096, 64)
    ref = Result(_sweep_point(doc, 4096, 0)).round_medians()
    rounds = sorted(set(Result(old).round_medians()) & set(ref))
    grown = statistics.fmean(Result(old).round_medians()[g] for g in rounds)
    assert math.isclose(new["indirect"]["estimate_ns"], old["indirect"]["estimate_ns"] + grown, rel_tol=1e-9)
    assert new["indirect"]["resolved"] and not old["indirect"]["resolved"]
    assert _close(_sweep_point(again, 256 * 1024, 64)["indirect"], _sweep_point(doc, 256 * 1024, 64)["indirect"]) == []
    for k in ("plan", "settings", "budget_s", "rounds", "wall_s", "updated", "complete"):
        assert again["sweep"].get(k) == doc["sweep"].get(k), k  # the plan and the machine: as the file holds them


@pytest.mark.slow  # the ring's report draws its figure
def test_the_ring_report_draws_the_kept_effects_not_the_results(tmp_path, monkeypatch):
    """A kept cost above the ping-pong and a kept N = 2 verdict edited in
    the file are printed as edited; the samples tampered with are not
    seen there: nothing is derived on reading."""
    doc = _doc("ring", tmp_path, monkeypatch)
    edited = json.loads(json.dumps(doc))
    r = _ring_point(edited, "thread", "pipe", 8)
    r["above_pingpong"].update(estimate_ns=123456.0, ci95=[120000.0, 127000.0], below_mde=False, unit="ns")
    _times(_ring_point(edited, "thread", "pipe", 2), 2)  # derived again, the N = 2 check would fail
    check = next(c for c in edited["ring"]["n2_check"] if (c["kind"], c["mechanism"]) == ("process", "pipe"))
    check["ok"] = False
    part = _section_of_report(report(write_json(tmp_path, "edited.json", edited), tmp_path), RING)
    row = next(x for x in part.splitlines() if x.startswith("| ring/thread/pipe | 8 | 0 |"))
    assert "| 123.5 µs [120.0 µs, 127.0 µs] | ns 0.94x |" in row, row
    n2 = {tuple(c.strip() for c in x.strip("|").split("|")[:2]): x for x in part.splitlines()
          if x.startswith(("| thread |", "| process |"))}
    assert n2[("process", "pipe")].endswith("| FAILED (more than 10% apart) |"), n2
    assert n2[("thread", "pipe")].endswith("| ok |"), n2
    assert RING_NOTE.text not in part


@pytest.mark.slow  # the ring's report draws its figure
def test_a_ring_file_without_its_effects_is_reported_with_a_note_and_reanalyse_derives_them(tmp_path, monkeypatch):
    doc = _doc("ring", tmp_path, monkeypatch)
    bare = json.loads(json.dumps(doc))
    for r in bare["results"]:
        r.pop("above_pingpong", None)
    path = write_json(tmp_path, "bare.json", bare)
    part = _section_of_report(report(path, tmp_path), RING)
    assert part.count(RING_NOTE.text) == 1, part
    lines = reanalyse(path, tmp_path / "derived.json")
    assert any(x.startswith("note: ") and "above the ping-pong - -> " in x for x in lines), lines
    derived = json.loads((tmp_path / "derived.json").read_text())
    assert _close(doc["results"], derived["results"], "results") == []


def test_the_sweep_report_draws_the_kept_indirect_costs_not_the_results(tmp_path, monkeypatch):
    """A kept indirect cost edited in the file is printed as edited, and
    the mechanism's tallies count it as kept (resolved now); the samples
    tampered with are not seen there: nothing is derived on reading."""
    doc = _doc("sweep", tmp_path, monkeypatch)
    edited = json.loads(json.dumps(doc))
    r = _sweep_point(edited, 256 * 1024, 64)
    r["indirect"].update(estimate_ns=98765.0, median=98765.0, ci95=[90000.0, 107530.0], resolved=True,
                         below_mde=False)
    _times(_sweep_point(edited, 4096, 64), 2)  # derived again, it would be resolved too
    part = _section_of_report(report(write_json(tmp_path, "edited.json", edited), tmp_path), SWEEP)
    row = next(x for x in part.splitlines() if x.startswith(f"| {r['id']} | 262144 | 64 |"))
    assert "| 98.8 µs ± 8.77 µs |" in row, row
    row = next(x for x in part.splitlines() if x.startswith(f"| {r['id']} | 4096 | 64 |"))
    old = Result(_sweep_point(doc, 4096, 64)).indirect
    assert f"| {fmt_time(old.median)} ± {fmt_time((old.ci95[1] - old.ci95[0]) / 2)} |" in row, row  # as kept
    checks = next(x for x in part.splitlines() if x.startswith(f"| {r['id']} | ") and " of " in x)
    cells = [c.strip() for c in checks.strip("|").split("|")]
    assert cells[2:5] == ["2", "1", "1"], cells  # strided points, resolved, below MDE: the edited one alone
