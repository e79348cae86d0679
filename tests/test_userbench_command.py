"""`ctxbench userbench` end to end: the table it prints is the file it
writes (every row's median, interval, cycles and verdict, every ratio line
the quotient of the file's medians), the file reads back, and nothing is
written without -o. A wrong column, a swapped ratio or a row from another
result fails here."""
import json
import math

import pytest

from conftest import run_cli

from ctxbench.core import reader
from ctxbench.core.model import Result
from ctxbench.records import RECORDS

pytestmark = pytest.mark.machine

RATIOS = {"swapcontext / asm switch": ("user/ucontext/same-thread", "user/asm/same-thread"),
          "asm switch / simplest correct switch": ("user/asm/same-thread", "user/asm-minimal/same-thread"),
          "asm switch / Boost.Context fiber": ("user/asm/same-thread", "boost/fiber/same-thread"),
          "jmp resume / ret resume": ("user/asm-jmp/same-thread", "user/asm-ret/same-thread"),
          "green yield / asm switch": ("user/green/yield", "user/asm/same-thread"),
          "green channel / asm switch": ("user/green/channel", "user/asm/same-thread")}


def _f2(x: float) -> str:
    return f"{x:.2f}"


@pytest.fixture(scope="module")
def userbench(tmp_path_factory):
    d = tmp_path_factory.mktemp("ub")
    out = d / "ub.json"
    p = run_cli("userbench", "--quick", "-o", str(out), timeout=300, cwd=str(d))
    assert p.returncode == 0, p.stderr
    return p.stdout, json.loads(out.read_text()), out


def test_rows_are_the_files_results(userbench):
    stdout, doc, _ = userbench
    rows = {line.split()[0]: line.split() for line in stdout.splitlines()
            if line.strip().startswith(("user/", "boost/"))}
    assert set(rows) == {r["id"] for r in doc["results"]} and "user/asm/same-thread" in rows, (set(rows), stdout)
    for r in map(Result, doc["results"]):
        cells = rows[r.id]
        med, (lo, hi) = r.summary.median, r.summary.ci95
        assert cells[1] == _f2(med), (r.id, cells, med)
        assert cells[2] == f"[{_f2(lo)}," and cells[3] == f"{_f2(hi)}]", (r.id, cells, lo, hi)
        # the cycles column is the result's median in core cycles (n/a without the probe)
        want = f"{r.cycles.summary.median:.0f}" if r.cycles.applies else "n/a"
        assert cells[4] == want, (r.id, cells, r.cycles.summary.median)
        assert " ".join(cells[6:]) == r.verified[0], (r.id, cells, r.verified)


def test_ratio_lines_are_quotients_of_the_files_medians(userbench):
    stdout, doc, _ = userbench
    med = {r["id"]: r["summary"]["median"] for r in doc["results"]}
    lines = {label: line for line in stdout.splitlines() for label in RATIOS if line.strip().startswith(label)}
    assert set(lines) == set(RATIOS), stdout
    for label, (num, den) in RATIOS.items():
        cell = lines[label].split()[len(label.split())]
        if num in med and den in med and med[den] > 0 and math.isfinite(med[num] / med[den]):
            assert cell == _f2(med[num] / med[den]), (label, cell, med.get(num), med.get(den))
        else:
            assert cell == "n/a" and "not measured" in lines[label], lines[label]


def test_file_reads_back_and_nothing_else_is_written(userbench, tmp_path):
    _, doc, out = userbench
    again = reader.load(str(out), RECORDS)
    assert [r.id for r in again.results] == [r["id"] for r in doc["results"]]
    assert sorted(p.name for p in out.parent.iterdir()) == ["ub.json"]
    p = run_cli("userbench", "--quick", "--groups", "2", "--iterations", "2", timeout=300, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert list(tmp_path.iterdir()) == [] and "results written" not in p.stdout
