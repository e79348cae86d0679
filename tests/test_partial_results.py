"""Work measured, then thrown away (issue 22, kind 3, front end): options
that cannot work are refused before measuring; when the engine fails one
id, the other ids' results are written, the failure is recorded in the
file (a top-level "failures" list of {id, error}) and the exit status is
non-zero."""
import json
import os
import stat
import subprocess
import sys

import pytest

from conftest import ENGINE, ctxbench_cmd, own_engine, run_cli

from ctxbench.core import engine, measure, reader, results
from ctxbench.records import RECORDS

TINY = ["--groups", "2", "--iterations", "3"]


def test_cross_cpu_equal_to_the_measured_cpu_is_refused_before_measuring(tmp_path):
    measured = max(os.sched_getaffinity(0))  # the engine's default CPU
    out = tmp_path / "r.json"
    p = run_cli("run", "--ids", "timer/rdtsc,kernel/thread/pipe/same-cpu,kernel/thread/pipe/cross-cpu",
                "--cross-cpu", str(measured), *TINY, "-o", str(out), timeout=60)
    assert p.returncode == 2 and "measured CPU" in p.stderr, p.stderr
    assert "measuring" not in p.stderr and not out.exists()


def _one_cpu_engine(tmp_path):
    """The real engine, allowed one CPU only (as under `taskset -c 0`):
    its cross-CPU ids fail while the front end still sees two CPUs."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two allowed CPUs (with one, the front end skips the cross-CPU ids itself)")
    w = tmp_path / "one-cpu-engine"
    w.write_text(f"#!{sys.executable}\nimport os, sys\n"
                 "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n"
                 f"os.execv({str(ENGINE)!r}, [{str(ENGINE)!r}] + sys.argv[1:])\n")
    w.chmod(w.stat().st_mode | stat.S_IXUSR)
    return str(w)


def test_one_failed_id_keeps_the_others_and_records_the_failure(tmp_path):
    out = tmp_path / "r.json"
    p = subprocess.run(ctxbench_cmd() + ["run", "--ids", "timer/rdtsc,kernel/thread/pipe/cross-cpu", *TINY,
                                         "-o", str(out)], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, CTXBENCH_ENGINE=_one_cpu_engine(tmp_path)))
    assert p.returncode == 1, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("ctxbench")]
    assert len(lines) == 1 and "1 of 2" in lines[0] and "Traceback" not in p.stderr, p.stderr
    doc = reader.load(str(out), RECORDS)  # the file reads back, failures and all
    assert [r.id for r in doc.results] == ["timer/rdtsc"]
    assert results.plain(doc.failures) == [{"id": "kernel/thread/pipe/cross-cpu", "error": doc.failures[0].error}]
    assert "CPU" in doc.failures[0].error  # the engine's own reason, not a generic one


# ---- how the front end reads a failing engine (a fake engine, no measuring) --------

def _fake_engine(tmp_path, lines: list[str], stderr: str, status: int) -> str:
    f = tmp_path / "fake-engine"
    f.write_text(f"#!{sys.executable}\nimport sys\n"
                 f"sys.stdout.write({''.join(l + chr(10) for l in lines)!r})\n"
                 f"sys.stderr.write({stderr!r})\nsys.exit({status})\n")
    f.chmod(f.stat().st_mode | stat.S_IXUSR)
    return str(f)


HEADER = json.dumps({"type": "header", "schema": "ctxbench/1", "tool": {}, "environment": {}})


def _result(rid):
    return json.dumps({"type": "result", "result": {"id": rid}})


@pytest.mark.parametrize("case", ["null-line", "named-failure", "engine-stopped"])
def test_partial_engine_output_is_kept(tmp_path, monkeypatch, case):
    lines, err, status = {
        "null-line": ([HEADER, _result("a"), json.dumps({"type": "result", "result": None}), _result("c")],
                      "ctxbench-engine: b: no such luck\n", 1),
        "named-failure": ([HEADER, _result("a"), _result("c"),
                           json.dumps({"type": "result", "result": None, "id": "b", "error": "it broke"})], "", 1),
        "engine-stopped": ([HEADER, _result("a")], "ctxbench-engine: killed by the OOM killer\n", 137),
    }[case]
    own_engine(monkeypatch, _fake_engine(tmp_path, lines, err, status))
    got, failures = [], []

    def on_failure(failed, said, st):
        found, used = measure.failures_by_id(["a", "b", "c"], got, failed, said, st)
        failures.extend(found)
        return used

    assert engine.Engine().stream([], engine.EngineOptions(), lambda h: None, got.append, on_failure=on_failure)
    want = {"null-line": [("b", "no such luck")], "named-failure": [("b", "it broke")],
            "engine-stopped": [("b", "killed by the OOM killer"), ("c", "killed by the OOM killer")]}[case]
    assert [r["id"] for r in got] == [i for i in "abc" if i not in dict(want)]
    assert [(f["id"], f["error"]) for f in failures] == want


def test_without_a_failure_handler_a_failing_engine_still_stops(tmp_path, monkeypatch):
    from ctxbench.core.errors import UserError
    own_engine(monkeypatch, _fake_engine(tmp_path, [HEADER, _result("a")], "ctxbench-engine: x\n", 1))
    with pytest.raises(UserError):
        engine.Engine().stream([], engine.EngineOptions(), lambda h: None, lambda r: None)


def test_reader_refuses_malformed_failures(tmp_path):
    from ctxbench.core.errors import UserError
    p = tmp_path / "f.json"
    p.write_text(json.dumps({"schema": "ctxbench/1", "results": [], "failures": [{"id": 3}]}))
    with pytest.raises(UserError, match="failures"):
        reader.load(str(p), RECORDS)


def test_ring_keeps_the_ids_it_measured_when_one_fails(tmp_path):
    """A pipe ring of 32 parties needs 256 file descriptors; under
    `ulimit -n 100` the engine fails that id alone: the futex ring and the
    ping-pongs are written beside the failure, and the exit is 1."""
    out = tmp_path / "ring.json"
    cmd = " ".join(ctxbench_cmd() + ["ring", "--parties", "32", "--footprint", "0", "--kind", "thread", "--quick",
                                     "-o", f"'{out}'"])
    p = subprocess.run(["bash", "-c", f"ulimit -n 100; exec {cmd}"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stderr
    assert p.stderr.strip().splitlines()[-1].startswith("ctxbench: 1 of 4 id(s) could not be measured ('ring/thread/pipe'")
    doc = reader.load(str(out), RECORDS)
    assert [f.id for f in doc.failures] == ["ring/thread/pipe"] and "ulimit -n" in doc.failures[0].error
    assert sorted(r.id for r in doc.results) == ["kernel/thread/futex/same-cpu", "kernel/thread/pipe/same-cpu",
                                                      "ring/thread/futex"]
