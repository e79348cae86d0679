"""Standard output and error that fail or are closed (issue 22, kind 4):
the results file is still written, the failure is said in one line where
it can be (stderr), the exit status is non-zero, and there is no
traceback. The measuring cases run the real engine on timer/rdtsc with a
handful of samples (well under a second)."""
import json
import os
import subprocess

import pytest

from conftest import FIXTURES, ctxbench_cmd

BASE = str(FIXTURES / "ring_base.json")
TINY_RUN = ["run", "--ids", "timer/rdtsc", "--groups", "2", "--iterations", "3"]


def _sh(args: list[str], redirect: str, tmp_path) -> subprocess.CompletedProcess:
    """The CLI with a shell redirection (`>&-`, `> /dev/full`, ...); its
    stderr is kept in a file unless the redirection closes it."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    cmd = " ".join(ctxbench_cmd() + [f"'{a}'" for a in args])
    err = tmp_path / "stderr.txt"
    script = f"exec {cmd} {redirect}" + ("" if "2>" in redirect else f" 2>{err}")
    p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    p.err_text = err.read_text() if err.exists() else ""  # type: ignore[attr-defined]
    return p


def _one_line(text: str, needle: str) -> None:
    lines = [ln for ln in text.splitlines() if ln.startswith("ctxbench")]
    assert "Traceback" not in text, text
    assert len(lines) == 1 and needle in lines[0], text


def _kept(path) -> None:
    doc = json.loads(path.read_text())
    assert [r["id"] for r in doc["results"]] == ["timer/rdtsc"]


def test_run_json_onto_a_full_disk_keeps_the_file_and_fails(tmp_path):
    p = _sh(TINY_RUN + ["--json", "-o", "r.json"], "> /dev/full", tmp_path)
    assert p.returncode == 1
    _one_line(p.err_text, "No space left")
    _kept(tmp_path / "r.json")


def test_system_json_onto_a_full_disk_fails_in_one_line(tmp_path):
    p = _sh(["system", "--json"], "> /dev/full", tmp_path)
    assert p.returncode == 1
    _one_line(p.err_text, "No space left")


def test_run_with_stdout_closed_keeps_the_file_and_fails(tmp_path):
    p = _sh(TINY_RUN + ["-o", "r.json"], ">&-", tmp_path)
    assert p.returncode == 1
    _one_line(p.err_text, "standard output is closed")
    _kept(tmp_path / "r.json")


def test_run_with_stderr_closed_keeps_the_file_and_fails(tmp_path):
    p = _sh(TINY_RUN + ["-o", "r.json"], "2>&-", tmp_path)
    assert p.returncode == 1  # what it said on stderr (progress, notes) was lost
    assert "results written to r.json" in p.stdout
    _kept(tmp_path / "r.json")


def test_output_to_a_closed_stdout_is_refused_before_measuring(tmp_path):
    p = _sh(TINY_RUN + ["-o", "-"], ">&-", tmp_path)
    assert p.returncode == 2
    _one_line(p.err_text, "standard output is closed")
    assert "measuring" not in p.err_text


def test_o_dash_leaves_standard_output_to_the_document(tmp_path):
    """`-o -` is for a pipe (`| jq`): the table goes to standard error."""
    p = _sh(TINY_RUN + ["-o", "-", "--no-store"], "", tmp_path)
    assert p.returncode == 0, p.err_text
    assert json.loads(p.stdout)["results"] and "timer/rdtsc" in p.err_text


def test_results_onto_a_full_stdout_go_to_a_fallback_file(tmp_path):
    p = _sh(TINY_RUN + ["-o", "/dev/stdout"], "> /dev/full", tmp_path)
    assert p.returncode == 1
    kept = [f for f in os.listdir(tmp_path) if f.startswith("ctxbench-unsaved-")]
    assert len(kept) == 1 and kept[0] in p.err_text, p.err_text
    _kept(tmp_path / kept[0])


def test_a_reader_that_leaves_is_not_a_traceback(tmp_path):
    p = subprocess.run(["bash", "-c", " ".join(ctxbench_cmd() + ["compare", BASE, BASE]) + " | head -c 1"],
                       capture_output=True, text=True, timeout=120)
    assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr, p.stderr
