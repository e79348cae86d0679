"""The anatomy's and the peers' report draw what the command kept (issue
47): the anatomy's parts, sum check and cross-CPU wake-up from its
section, each peer row's ratio and verdict from its `comparison`, never
derived again from the results on reading; `ctxbench reanalyse` derives
them again with the command's own functions (anatomy/reanalysis.py,
peers/reanalysis.py). Each command's `--quick` runs once on the recorded
engine, as tests/test_reads_as_printed.py runs it; the files here are
that one, reanalysed, stripped of what it kept, or tampered with."""
from __future__ import annotations

import json

import pytest

from test_reads_as_printed import measure, reanalyse, report, write_json

from ctxbench.anatomy.section import NOT_KEPT as ANATOMY_NOTE
from ctxbench.peers.section import NOT_KEPT as PEERS_NOTE
from ctxbench.peers.table import NOT_KEPT_VERDICT

ANATOMY_NOT_KEPT, PEERS_NOT_KEPT = ANATOMY_NOTE.text, PEERS_NOTE.text

MEASURED: dict[str, tuple[str, str]] = {}  # command -> (what it printed, its file's text): one run each


def _file(command: str, tmp_path, monkeypatch) -> tuple[str, dict]:
    """What `command --quick` printed and its document (measured once in this module)."""
    if command not in MEASURED:
        printed, path = measure(command, tmp_path, monkeypatch)
        MEASURED[command] = printed, path.read_text()
    printed, text = MEASURED[command]
    return printed, json.loads(text)


def _section_of_report(md: str, title: str) -> str:
    """The report's part for one command (its title to the next section)."""
    start = md.index(f"## {title}")
    end = md.find("\n## ", start + 1)
    return md[start:] if end < 0 else md[start:end]


ANATOMY = "Anatomy of a switch (ctxbench anatomy)"
PEERS = "Peers: other tools' numbers beside ctxbench's (ctxbench peers)"


@pytest.mark.slow  # two reports with figures each (make test only)
@pytest.mark.parametrize("command,title,kept", [("anatomy", ANATOMY, "anatomy"), ("peers", PEERS, "comparison")])
def test_reanalyse_derives_what_the_command_kept_and_the_report_is_the_same(command, title, kept, tmp_path,
                                                                            monkeypatch):
    _, doc = _file(command, tmp_path, monkeypatch)
    path = write_json(tmp_path, "measured.json", doc)
    lines = reanalyse(path, tmp_path / "again.json")
    assert lines[0] == "nothing changed" and not any(x.startswith("note: ") for x in lines), lines
    again = json.loads((tmp_path / "again.json").read_text())
    if command == "anatomy":  # the section's members, derived again by the command's arithmetic: the same
        assert again["anatomy"] == doc["anatomy"]
    else:
        assert [r.get(kept) for r in again["results"]] == [r.get(kept) for r in doc["results"]]
    assert _section_of_report(report(tmp_path / "again.json", tmp_path), title) == \
        _section_of_report(report(path, tmp_path), title)


def test_an_anatomy_file_without_its_parts_is_reported_with_a_note_and_reanalyse_derives_them(tmp_path, monkeypatch):
    _, doc = _file("anatomy", tmp_path, monkeypatch)
    bare = json.loads(json.dumps(doc))
    for k in ("parts", "sum_check", "cross_cpu", "drift_rel_sd", "attribution"):
        bare["anatomy"].pop(k, None)
    path = write_json(tmp_path, "bare.json", bare)
    md = report(path, tmp_path)
    part = _section_of_report(md, ANATOMY)
    assert part.count(ANATOMY_NOT_KEPT) == 1, part
    assert "measured hand-off" not in part  # nothing drawn that the file did not keep
    lines = reanalyse(path, tmp_path / "derived.json")
    assert any("(the file kept none)" in x for x in lines), lines
    assert json.loads((tmp_path / "derived.json").read_text())["anatomy"] == doc["anatomy"]


def test_a_peers_file_without_comparisons_is_reported_with_a_note_and_reanalyse_judges_them(tmp_path, monkeypatch):
    _, doc = _file("peers", tmp_path, monkeypatch)
    bare = json.loads(json.dumps(doc))
    for r in bare["results"]:
        r.pop("comparison", None)
    path = write_json(tmp_path, "bare.json", bare)
    part = _section_of_report(report(path, tmp_path), PEERS)
    assert part.count(PEERS_NOT_KEPT) == 1 and f"| {NOT_KEPT_VERDICT} |" in part, part
    lines = reanalyse(path, tmp_path / "judged.json")
    assert any("row(s) kept none" in x for x in lines), lines
    judged = json.loads((tmp_path / "judged.json").read_text())
    assert [r.get("comparison") for r in judged["results"]] == [r.get("comparison") for r in doc["results"]]


def test_the_anatomy_report_draws_the_kept_parts_not_its_rungs(tmp_path, monkeypatch):
    """A kept part's estimate changed in the file is printed as changed;
    the rungs' samples changed are not seen: nothing is derived on reading."""
    _, doc = _file("anatomy", tmp_path, monkeypatch)
    before = _section_of_report(report(write_json(tmp_path, "measured.json", doc), tmp_path), ANATOMY)
    edited = json.loads(json.dumps(doc))
    part = next(p for p in edited["anatomy"]["parts"] if p["name"] == "the switch, thread to thread")
    part.update(estimate_ns=12345.0, ci95=[12000.0, 12600.0], below_mde=False)
    for r in edited["results"]:
        r["samples"] = [x * 3 if isinstance(x, (int, float)) else x for x in r["samples"]]
    after = _section_of_report(report(write_json(tmp_path, "edited.json", edited), tmp_path), ANATOMY)
    assert "| the switch, thread to thread | 12.3 µs [12.0 µs, 12.6 µs] |" in after, after
    unchanged = [x for x in before.splitlines() if x.startswith("| ") and "thread to thread" not in x]
    assert unchanged and all(x in after for x in unchanged)


def test_the_peers_report_prints_the_kept_verdict_not_one_judged_again(tmp_path, monkeypatch):
    _, doc = _file("peers", tmp_path, monkeypatch)
    edited = json.loads(json.dumps(doc))
    row = next(r for r in edited["results"] if r["id"].startswith("peers/"))
    row["comparison"]["ratio"].update(point=0.5, ci95=[0.45, 0.55])
    row["comparison"]["verdict"] = "agrees"
    row["raw"]["match_ns"] = [x * 10 for x in row["raw"]["match_ns"]]  # judged again, the ratio would move
    part = _section_of_report(report(write_json(tmp_path, "edited.json", edited), tmp_path), PEERS)
    cells = next(x for x in part.splitlines() if x.startswith(f"| {row['params']['title']} |"))
    assert "| 0.50 [0.45, 0.55] |" in cells and cells.endswith("| agrees |"), cells
