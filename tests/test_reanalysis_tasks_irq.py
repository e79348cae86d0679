"""tasks and irq under issue 47: the report draws what the command kept in
its section (tasks' per_pair, irq's chunks), never an analysis made again
on reading; `ctxbench reanalyse` derives the points and those members
again from the runs the file keeps, with the functions the commands
measure with (tasks/reanalysis.py, irq/reanalysis.py). The files are the
commands' --quick runs on the recorded engine, made as
tests/test_reads_as_printed.py makes them; the old ones are fixtures."""
from __future__ import annotations

import json
import re

import pytest

from conftest import FIXTURES
from test_reads_as_printed import measure, reanalyse, report, write_json

# (command, what its section keeps for the report, a kept estimate and the cell it is printed as)
KEPT = {"tasks": ("per_pair", ("tasks", "per_pair", "aes+crc", "chunks", "per_switch"),
                  "-4.32 µs [-5.00 µs, -4.00 µs]"),
        "irq": ("chunks", ("irq", "chunks", "tasks", "crc", "per_interrupt"), "4.32 µs [4.00 µs, 5.00 µs]")}
NOTE = "not kept in this file (an older ctxbench's, or removed); `ctxbench reanalyse FILE -o NEW` derives"


def _reanalysed(path, tmp_path) -> tuple[str, object]:
    out = tmp_path / "reanalysed.json"
    return "\n".join(reanalyse(path, out)) + "\n", out


def _as_printed(md: str) -> str:
    """A report's Markdown without what differs between two files of one
    run: the time it was made, the files' names, the figures' links."""
    return "\n".join(line for line in md.splitlines()
                     if not re.match(r"^(\d+ results file|Results files:|!\[|generated )", line))


def _at(doc: dict, path: tuple) -> dict:
    for k in path:
        doc = doc[k]
    return doc


@pytest.mark.slow  # a --quick run, a reanalyse and two reports with figures
@pytest.mark.parametrize("command", ["tasks", "irq"])
def test_reanalyse_of_a_quick_file_changes_nothing_the_report_prints(command, tmp_path, monkeypatch):
    _, path = measure(command, tmp_path, monkeypatch)
    said, again = _reanalysed(path, tmp_path)
    assert said.splitlines()[0] == "nothing changed", said
    # the points and the section's analysed members made again: the same numbers
    kept, new = json.loads(path.read_text())[command], json.loads(again.read_text())[command]
    assert new[KEPT[command][0]] and set(new) == set(kept)
    before = _as_printed(report(path, tmp_path))
    after = _as_printed(report(again, tmp_path))
    assert "per switch" in before or "per interrupt" in before
    assert after == before


@pytest.mark.slow  # a --quick run, two reports with figures and a reanalyse
@pytest.mark.parametrize("command", ["tasks", "irq"])
def test_a_section_without_the_kept_values_is_one_note(command, tmp_path, monkeypatch):
    """A file of an older ctxbench, whose section lacks what the report
    draws but whose results keep what it is derived from: the report says
    so in one note (and succeeds); reanalyse then makes it."""
    _, path = measure(command, tmp_path, monkeypatch)
    doc = json.loads(path.read_text())
    del doc[command][KEPT[command][0]]
    old = write_json(tmp_path, "old.json", doc)
    md = report(old, tmp_path)
    assert md.count(NOTE) == 1, md
    _, again = _reanalysed(old, tmp_path)
    assert NOTE not in report(again, tmp_path)


# one in make check; the others (a report each, a second or so) in make test
@pytest.mark.parametrize("name", ["tasks-small.json", *(pytest.param(n, marks=pytest.mark.slow) for n in (
    "irq-small.json", "irq-fresh.json", "v1/tasks_before_rounds.json", "v1/irq_I_pct_number.json"))])
def test_old_fixtures_report_and_reanalyse(name, tmp_path):
    """Files from before the runs or the chunk records were kept: nothing
    to derive, so no note in the report; reanalyse says what it left."""
    md = report(FIXTURES / name, tmp_path)
    assert NOTE not in md
    said, again = _reanalysed(FIXTURES / name, tmp_path)
    assert " -> " not in said, said  # what it could not derive is a note, not a change
    report(again, tmp_path)


@pytest.mark.slow  # a --quick run, two reports with figures and a reanalyse
@pytest.mark.parametrize("command", ["tasks", "irq"])
def test_the_report_draws_the_kept_values_not_the_runs(command, tmp_path, monkeypatch):
    """A kept estimate changed in the file, and the runs it came from
    changed too: the report prints the kept one (it derives nothing)."""
    _, path = measure(command, tmp_path, monkeypatch)
    doc = json.loads(path.read_text())
    e = _at(doc, KEPT[command][1])
    sign = -1 if command == "tasks" else 1
    e.update(estimate_ns=sign * 4321.0, ci95=sorted([sign * 5000.0, sign * 4000.0]), below_mde=False, resolved=True)
    e.pop("cycles", None)  # the cell in ns (ui/twin: a twin in cycles may be the unit it is printed in)
    e["unit"] = "ns"
    tampered = 0
    for r in doc["results"]:  # what a report that derived again would have drawn from
        if command == "tasks" and r["id"] == "tasks/aes+crc":
            r["raw"]["t_total_ns"] = [3 * x for x in r["raw"]["t_total_ns"]]
            tampered += 1
        if command == "irq" and r.get("chunks"):
            del r["chunks"]
            tampered += 1
    assert tampered
    path = write_json(tmp_path, "tampered.json", doc)
    assert KEPT[command][2] in report(path, tmp_path)
    # reanalyse derives from the runs as they now are: the kept estimate is gone
    _, again = _reanalysed(path, tmp_path)
    assert KEPT[command][2] not in report(again, tmp_path)
