"""Warnings are typed, {code, severity, text, data}, and grouped by code,
never by their text (issue 23)."""
import json

import pytest

from conftest import FIXTURES
from ctxbench.core import model
from ctxbench.core.results import plain
from ctxbench.ui.warnings import group, print_warnings
from ctxbench.records import RECORDS


def _dropped(d, n):
    return model.warning("dropped", f"{d} of {n} samples disturbed and dropped (migration: {d})",
                         dropped=d, samples=n, reasons={"migration": d})


def test_one_line_per_code_with_the_ranges_of_its_numbers():
    lines = group([("a", [_dropped(3, 30)]), ("b", [_dropped(7, 30)]), ("c", [_dropped(5, 30)])])
    assert len(lines) == 1
    (line,) = lines
    assert line.code == "dropped" and line.severity == "info"
    assert "dropped 3 to 7" in line.text and "samples 30" in line.text and "[a, b, c]" in line.text
    assert "3 of 30" not in line.text  # no one result's text stands for the others


def test_the_same_text_is_said_once_with_its_places():
    w = model.warning("negative", "negative derived cost (printed as measured)", median=-1.0)
    lines = group([(f"r{i}", [w]) for i in range(6)])
    assert [str(x) for x in lines] == ["negative derived cost (printed as measured) [6 results (r0, ..., r5)]"]
    assert lines[0].severity == "warning"


def test_text_only_warnings_of_one_code_keep_what_they_say():
    """The engine's warnings carry no numbers: its one line names each refusal."""
    lines = group([("a", ["nice -20 refused: the tasks may be preempted more often"]),
                   ("b", ["SCHED_FIFO refused; measured under SCHED_OTHER instead"]),
                   ("c", ["nice -20 refused: the tasks may be preempted more often"])])
    assert len(lines) == 1 and lines[0].code == "engine" and lines[0].severity == "warning"
    assert "nice -20 refused" in lines[0].text and "SCHED_FIFO refused" in lines[0].text
    assert lines[0].text.endswith("[a, b, c]")


def test_codes_stay_apart_and_in_order(capsys):
    items = [("x", [model.warning("outliers", "2 statistical outliers", outliers=2), _dropped(1, 10)]),
             ("y", [_dropped(1, 10)])]
    print_warnings(items)
    out = capsys.readouterr().out.splitlines()
    assert out == ["  note: 2 statistical outliers [x]",
                   "  note: 1 of 10 samples disturbed and dropped (migration: 1) [x, y]"]


def test_old_forms_read_with_their_code_s_severity():
    lines = group([("old", ["ctxbench: 2 of 20 samples disturbed and dropped (migration: 2)",
                            {"code": "verification", "text": "verification failed"}])])
    assert [(x.code, x.severity) for x in lines] == [("dropped", "info"), ("verification", "warning")]


def test_every_code_has_a_severity_and_a_meaning():
    assert set(model.SEVERITY) == set(model.CODES)
    assert set(model.SEVERITY.values()) <= {"warning", "info"}
    with pytest.raises(AssertionError):
        model.warning("no-such-code", "x")


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.glob("*.json")
                                            if p.name not in ("ring_corrupt.json", "ring_truncated.json")))
def test_every_warning_analysed_anew_is_typed(fixture):
    doc = json.loads((FIXTURES / fixture).read_text())
    for r in doc.get("results") or []:
        if not isinstance(r, dict) or "samples" not in r or r.get("parts") is not None:
            continue
        for w in plain(model.analyse(r, RECORDS.Result).warnings):
            assert set(w) == {"code", "severity", "text", "data"}, w
            assert w["code"] in model.CODES and w["severity"] == model.SEVERITY[w["code"]]


@pytest.mark.machine
def test_every_warning_of_a_measured_run_is_typed(tmp_path):
    """What a real run writes (engine warnings coded on reading, the
    analysis' own): every one {code, severity, text, data}, its severity
    its code's. A spinning process on the measured CPU makes the samples
    meet other load, so that the analysis has warnings to write."""
    import os
    import subprocess
    import sys
    from conftest import run_cli
    cpu = max(os.sched_getaffinity(0))
    spin = subprocess.Popen([sys.executable, "-c", f"import os, time\nos.sched_setaffinity(0, {{{cpu}}})\n"
                             "t = time.monotonic()\nwhile time.monotonic() - t < 120: pass"])
    try:
        out = tmp_path / "r.json"
        p = run_cli("run", "--cpu", str(cpu), "--ids", "kernel/thread/pipe/same-cpu,timer/clock_monotonic",
                    "--groups", "4", "--iterations", "5", "-o", str(out), timeout=120)
    finally:
        spin.kill()
        spin.wait()
    assert p.returncode in (0, 1), p.stderr  # 1: a result not verified under the load, still written
    warns = [w for r in json.loads(out.read_text())["results"] for w in r["warnings"]]
    if not warns:
        pytest.skip("the run wrote no warning to check, even with a spinning process on its CPU")
    for w in warns:
        assert isinstance(w, dict) and set(w) == {"code", "severity", "text", "data"}, w
        assert w["code"] in model.CODES and w["severity"] == model.SEVERITY[w["code"]], w
        assert isinstance(w["data"], dict) and w["text"]


def test_differing_texts_of_a_file_are_one_line_per_code():
    # warnings as a results file stores them (not made by model.warning):
    # the old grouping keyed on the text and gave one line per result
    stored = [(f"r{i}", [{"code": "dropped", "severity": "info", "data": {"dropped": d, "samples": 30},
                          "text": f"{d} of 30 samples disturbed and dropped (migration: {d})"}])
              for i, d in enumerate((3, 7, 5))]
    lines = group(stored)
    assert len(lines) == 1, [str(x) for x in lines]
    assert "dropped 3 to 7" in str(lines[0]) and "samples 30" in str(lines[0]) and "[r0, r1, r2]" in str(lines[0])


# codes whose text is made from numbers: their data must hold them
_NUMERIC = {"dropped", "outliers", "disturbed_runs", "negative_indirect", "self_check", "below_mde", "vt_pinned"}


def _assert_typed(warnings, where):
    for w in warnings:
        assert isinstance(w, dict) and set(w) == {"code", "severity", "text", "data"}, (where, w)
        assert w["code"] in model.CODES and w["severity"] == model.SEVERITY[w["code"]], (where, w)
        assert isinstance(w["data"], dict) and (w["data"] or w["code"] not in _NUMERIC), (where, w)


def test_tasks_and_irq_analyses_write_typed_warnings_with_their_numbers():
    import numpy as np
    from test_irq_analysis import RATES, table
    from test_tasks_analysis import _job

    from ctxbench.irq import analysis as irq_analysis
    from ctxbench.tasks import analysis as tasks_analysis

    ns = (1, 1000, 2000)
    empty = _job("empty+empty", 10, ns, lambda n, a, b: 1e4 + n * 5000, lambda n: 0.0, lambda n: 0.0, 5)
    pair = _job("sort+aes", 10, ns, lambda n, a, b: a + b + n * 3000, lambda n: 5e8, lambda n: 5e8, 6)
    moved = pair["verify"]["migrations"]
    moved[::7] = [1] * len(moved[::7])  # runs that migrated: disturbed, left out
    points = plain(tasks_analysis.analyse_pair(pair, empty, resamples=300).points)
    codes = set()
    for p in points:
        _assert_typed(p["warnings"], p["id"])
        codes |= {w["code"] for w in p["warnings"]}
    assert {"negative_indirect", "disturbed_runs"} <= codes

    rng = np.random.default_rng(3)
    t = table(rng, 10, 0.0)
    t["keep"][::4] = False
    an = plain(irq_analysis.derive({"crc": t}, None, RATES, {}, spin=table(rng, 10, 0.0)))
    pts = [p for ps in an["points"].values() for p in ps] + an["spin_points"]
    for p in pts:
        _assert_typed(p["warnings"], p["params"])
    assert any(w["code"] == "dropped" and w["data"]["dropped"] > 0 for p in pts for w in p["warnings"])


@pytest.mark.machine
def test_every_warning_a_real_run_writes_is_typed(tmp_path):
    from conftest import run_cli
    out = tmp_path / "run.json"
    p = run_cli("run", "--quick", "--ids", "baseline/nop,kernel/thread/pipe/same-cpu", "-o", str(out), timeout=300)
    assert p.returncode == 0, p.stderr
    results = json.loads(out.read_text())["results"]
    assert [r["id"] for r in results] == ["baseline/nop", "kernel/thread/pipe/same-cpu"]
    for r in results:
        assert isinstance(r["warnings"], list), r["id"]
        _assert_typed(r["warnings"], r["id"])


def test_the_report_says_each_code_once_at_its_points_with_its_severity():
    from ctxbench.core import reader
    from ctxbench.report.build import build
    path = str(FIXTURES / "sweep-small.json")
    notes = [n for s in build([(path, reader.load(path, RECORDS))]).sections for n in s.notes]  # as `ctxbench report` reads
    outliers = [(level, text) for level, text in notes if text.startswith(model.CODES["outliers"])]
    assert len(outliers) == 1, notes
    level, text = outliers[0]
    # info is a note; the places are the sweep's points (one id has many sizes), not the id said again
    assert level == "note" and "[size=" in text and "outliers 1 to 2" in text, text


def test_times_in_data_read_in_their_unit():
    lines = group([(w, [model.warning("below_mde", f"|I| below its MDE ({m} ns)", estimate_ns=e, mde_ns=m)])
                   for w, e, m in (("a", -250.0, 1200.0), ("b", 40.0, 3400.0))])
    assert "estimate -250 ns to 40.0 ns, mde 1.20 µs to 3.40 µs" in str(lines[0]), str(lines[0])
