"""`ctxbench reanalyse FILE -o OUT` (issue 47): reading a file never
re-analyses it (core/reader.py); reanalyse does, on purpose, into a new
file, and says per result what changed. A run's widening between runs is
made again from what its file recorded, once, or said not to be. The
store gives back what was written. No engine: the files are fixtures or
made here."""
from __future__ import annotations

import json
import math
import subprocess

from conftest import FIXTURES, ctxbench_cmd, run_cli
from ctxbench.core import reader, results
from ctxbench.records import RECORDS

RUN = FIXTURES / "v1" / "run.json"  # a ctxbench/1 run: analysed once when it is read (its upgrade)


def _v2(tmp_path, name: str = "run.json") -> dict:
    """The fixture run as this ctxbench writes it: ctxbench/2, analysed."""
    out = tmp_path / name
    p = run_cli("reanalyse", str(RUN), "-o", str(out), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    return json.loads(out.read_text())


def _write(tmp_path, name: str, doc: dict):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _ci(doc: dict) -> dict:
    return {r["id"]: tuple(r["summary"]["ci95"]) for r in doc["results"]}


def test_the_reader_takes_a_result_as_written_and_reanalyse_analyses_it_again(tmp_path):
    doc = _v2(tmp_path)
    r = doc["results"][1]  # kernel/thread/pipe/same-cpu (the other, baseline/nop, is about 0 ns)
    r["samples"] = [x * 2 for x in r["samples"]]  # samples that no longer match the summary written
    edited = _write(tmp_path, "edited.json", doc)
    before = edited.read_bytes()
    # read: the summary the file holds, not one made from its samples
    assert reader.load(str(edited), RECORDS).results[1].summary.median == r["summary"]["median"]
    out = tmp_path / "again.json"
    p = run_cli("reanalyse", str(edited), "-o", str(out), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    new = json.loads(out.read_text())
    assert new["results"][1]["summary"]["median"] == 2 * r["summary"]["median"]
    # said per id, old -> new; the other results did not change and are not named
    lines = [x for x in p.stdout.splitlines() if " -> " in x]
    assert len(lines) == 1 and lines[0].startswith(f"{r['id']}: median "), p.stdout
    assert edited.read_bytes() == before  # never over its input
    assert new["results"][0] == doc["results"][0]


def test_a_result_without_a_summary_is_analysed_once_as_it_is_read(tmp_path):
    """A ctxbench/2 result with samples and no summary (from before
    summaries were written) has no analysis to read: the upgrade makes it,
    the same as the one written beside the samples."""
    doc = _v2(tmp_path)
    bare = json.loads(json.dumps(doc))
    for r in bare["results"]:
        del r["summary"]
    read = results.plain(reader.load(str(_write(tmp_path, "bare.json", bare)), RECORDS))
    assert [r["summary"] for r in read["results"]] == [r["summary"] for r in doc["results"]]


def test_nothing_changed_is_said(tmp_path):
    path = _write(tmp_path, "v2.json", _v2(tmp_path))
    p = run_cli("reanalyse", str(path), "-o", str(tmp_path / "same.json"), cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.splitlines()[0] == "nothing changed", p.stdout


def _widened(tmp_path, spreads: dict | None = None) -> dict:
    """The run as measured with earlier runs of its host in a store: its
    between_runs record (what run/table.earlier_record keeps) and its
    intervals not yet widened (reanalyse widens them from the record)."""
    doc = _v2(tmp_path, "plain.json")
    spread = {"runs": 3, "ns_rel_sd": 0.06, "cycles_rel_sd": 0.02, "ns_between_rel_sd": 0.05,
              "cycles_between_rel_sd": 0.01}
    keys = [r["id"] for r in doc["results"]]
    doc["run"]["between_runs"] = {"store": "store.sqlite", "why": None, "host_fastest_ghz": None,
                                  "host_runs_with_clock": 0,
                                  "spreads": spreads if spreads is not None else {k: spread for k in keys},
                                  "intervals_widened": len(keys)}
    return doc


def test_a_runs_widening_between_runs_is_made_again_once_from_its_record(tmp_path):
    doc = _widened(tmp_path)
    path = _write(tmp_path, "widened.json", doc)
    once = tmp_path / "once.json"
    p = run_cli("reanalyse", str(path), "-o", str(once), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "widening between runs re-applied from the file's record: 2 interval(s)" in p.stdout, p.stdout
    new = json.loads(once.read_text())
    for r, old in zip(new["results"], doc["results"]):
        assert r["summary"]["ci95_this_run"] == old["summary"]["ci95"]  # the run's own, kept
    (lo, hi), (was_lo, was_hi) = new["results"][1]["summary"]["ci95"], doc["results"][1]["summary"]["ci95"]
    assert lo < was_lo and hi > was_hi  # kernel/thread/pipe/same-cpu, 2 µs: wider by its 5% between runs
    # again on its own output: the same intervals (widened once, not twice)
    p = run_cli("reanalyse", str(once), "-o", str(tmp_path / "twice.json"), cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.splitlines()[0] == "nothing changed", p.stdout
    assert _ci(json.loads((tmp_path / "twice.json").read_text())) == _ci(new)


def test_a_widening_the_file_cannot_make_again_is_said(tmp_path):
    older = {"kernel/thread/pipe/same-cpu": {"runs": 3, "ns_rel_sd": 0.06, "cycles_rel_sd": None}}
    path = _write(tmp_path, "older.json", _widened(tmp_path, older))
    p = run_cli("reanalyse", str(path), "-o", str(tmp_path / "out.json"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "note: the widening between runs was not re-applied" in p.stdout, p.stdout
    assert json.loads((tmp_path / "out.json").read_text())["run"]["between_runs"]["intervals_widened"] == 0


def test_an_absurd_recorded_spread_is_one_line(tmp_path):
    """A damaged record (a negative or 1e300 relative sd, runs below two or
    a bool) would make intervals of +-1e294 s: refused, nothing written."""
    ok = {"runs": 3, "ns_rel_sd": 0.06, "cycles_rel_sd": 0.05, "ns_between_rel_sd": 0.05,
          "cycles_between_rel_sd": 0.04}
    for bad in ({"ns_between_rel_sd": 1e300}, {"ns_between_rel_sd": -1}, {"runs": 1}, {"runs": True},
                {"cycles_between_rel_sd": "x"}):
        spreads = {"kernel/thread/pipe/same-cpu": {**ok, **bad}}
        path = _write(tmp_path, "damaged.json", _widened(tmp_path, spreads))
        p = run_cli("reanalyse", str(path), "-o", str(tmp_path / "out.json"), cwd=tmp_path)
        assert p.returncode == 2 and "is not a spread between runs" in p.stderr, (bad, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1 and not (tmp_path / "out.json").exists()


def test_what_the_report_prints_that_changed_is_said(tmp_path):
    """One sample of fifty times the rest moves no median or interval, but
    the range, the CV and the warnings the report prints: said, not
    'nothing changed'."""
    doc = _v2(tmp_path)
    doc["results"][1]["samples"][3] *= 50
    p = run_cli("reanalyse", str(_write(tmp_path, "one.json", doc)), "-o", str(tmp_path / "o.json"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    line = p.stdout.splitlines()[0]
    assert line.startswith(doc["results"][1]["id"] + ":") and "range " in line and "CV " in line, p.stdout


def test_standard_output_onto_the_input_is_refused(tmp_path):
    """`-o - >> in.json` would write the document into its own input, in
    place: refused in one line (core/writer), the input untouched."""
    doc = _v2(tmp_path)
    path = _write(tmp_path, "in.json", doc)
    before = path.read_bytes()
    with open(path, "ab") as into:
        p = subprocess.run(ctxbench_cmd() + ["reanalyse", str(path), "-o", "-"], stdout=into,
                           stderr=subprocess.PIPE, text=True, cwd=tmp_path, timeout=120)
    assert p.returncode == 2 and "standard output is one of the input files" in p.stderr, p.stderr
    assert path.read_bytes() == before


def test_bad_input_is_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for args in (["reanalyse", str(bad), "-o", str(tmp_path / "x.json")],
                 ["reanalyse", str(tmp_path / "missing.json"), "-o", str(tmp_path / "x.json")],
                 ["reanalyse", str(RUN), "-o", str(RUN)],
                 ["reanalyse", str(RUN)],
                 ["reanalyse", str(RUN), "-o", ""]):
        p = run_cli(*args, cwd=tmp_path)
        assert p.returncode != 0 and len(p.stderr.strip().splitlines()) == 1, (args, p.stderr)
        assert "Traceback" not in p.stderr
    assert not (tmp_path / "x.json").exists()


def test_the_store_gives_back_what_was_written(tmp_path):
    from ctxbench.core.store import record
    from ctxbench.core.store.db import Store
    doc = _v2(tmp_path)
    doc["results"][1]["samples"] = [x * 2 for x in doc["results"][1]["samples"]]  # a summary no analysis would give
    path = _write(tmp_path, "kept.json", doc)
    store = tmp_path / "store.sqlite"
    p = run_cli("store", "add", str(path), "--store", str(store), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    with Store(str(store)).begin(write=False) as conn:
        back = results.plain(record.document(conn, 1, RECORDS))
    for r, w in zip(back["results"], doc["results"]):
        assert r["summary"]["median"] == w["summary"]["median"]
        assert all(math.isclose(a, b) for a, b in zip(r["summary"]["ci95"], w["summary"]["ci95"]))
        assert r["verification"] == w["verification"]
