"""What a command printed when it measured is what `ctxbench report`
prints from its file (issue 47): the reader decodes and upgrades, it does
not re-analyse (core/reader.py), so the intervals, the widening and the
verdicts are the ones the command printed.

Each measuring command's `--quick` runs on the recorded engine (the
recordings and clocks of tests/test_quick_readers.py, docs/testing.md),
then `report --markdown` on its file; the intervals ("X ± Y", "X [a, b]",
"below X (MDE; measured Y)") and the verdicts (the verified column, a
peer's verdict, the sweep's resolved points and stride-0 check) the
command printed must be in the report as printed. Where the report shows a
number in another form or not at all (ELSEWHERE), it is left out, and
said; userbench prints ns with two decimals, compared by number. And the
reader hands the report every number of the file as written. `run` is
measured first alone, then with earlier runs of its host in a store, so
its intervals are widened by the part between runs (run/command.py), and
the report must show them widened; `reanalyse` of that file makes the
widening again from what it recorded, and of a ring's and an anatomy's
file their drift: nothing changes. `runtimes` waits for quiet CPUs and is
`slow` (its fake harness's rows are checked the same way there); `noise`
prints no interval (its gaps: tests/test_quick_readers.py reads them);
`system` measures nothing; `fleet` runs the others on hosts (SSH:
`machine` tests)."""
from __future__ import annotations

import hashlib
import json
import re
from collections import Counter

import pytest

from conftest import RECORDINGS, run_cli
from ctxbench.core import reader, results
from ctxbench.records import RECORDS

_NUM = r"-?[0-9][0-9.]*"
_VALUE = rf"{_NUM}(?: (?:ns|µs|ms|s|cyc))?"
INTERVAL = re.compile(rf"{_VALUE} ± {_VALUE}|{_VALUE} \[{_VALUE}, {_VALUE}\]|below {_VALUE} \(MDE; measured {_VALUE}\)")

OWN = {"peers": ["--peer", "ctx-clock"], "runtimes": ["--quiet-wait", "0"]}
# Lines whose intervals the report shows in another form (another unit or
# rounding) or not at all: (line, interval) patterns, an interval left out
# where both match.
ELSEWHERE = {
    # the in-kernel attribution
    "anatomy": [(r"^  \S.*\d%\s|sampling's own cost", r"")],
    # R'_total, C and I of each n (in ms, 3 decimals), each task's share per switch-in, each n's estimate
    "tasks": [(r"^\S+\s+\d+\s+[\d.]+ ms", r""), (r"per switch-in", r""), (r"switch-ins\):", r"")],
    # D and the fits over all rates, each rate's and the in-full cross-check (the report's irq table is per point)
    "irq": [(r"^D \(direct|gap loop alone|by rate:|in full|\bslope ", r"")],
}
# Table rows whose last column is a verdict (the verification's, a peer's)
VERDICT_ROW = {"run": r"^\s*[a-z]+/\S+\s.* ± .* … ", "ring": r"^ring/\S+\s",
               "peers": r"^\s*ctx-clock's method"}
# the commands whose report takes a second or more (figures) run in make test only (slow), to keep
# make check under a minute; run with widening, and the rest, in both
COMMANDS = ["userbench", "anatomy", "peers", "sweep",
            *(pytest.param(c, marks=pytest.mark.slow) for c in ("ring", "tasks", "irq", "runtimes"))]


def _clock_of(command: str) -> str:
    """The recorded clock of test_quick_readers' run of `command` (sweep,
    tasks and irq plan by elapsed time: conftest.engine_seam)."""
    node = f"tests/test_quick_readers.py::test_quick_file_goes_through_every_reader[{command}]"
    return str(RECORDINGS / f"clock-{hashlib.sha1(node.encode()).hexdigest()[:12]}.json.gz")


def measure(command: str, tmp_path, monkeypatch, *more) -> tuple[str, object]:
    """`command --quick` on the recorded engine: what it printed, and its file."""
    monkeypatch.setenv("CTXBENCH_CLOCK_REPLAY", _clock_of(command))
    out = tmp_path / f"{command}.json"
    p = run_cli(command, "--quick", *OWN.get(command, []), *(more or ["--no-store"]), "-o", str(out), cwd=tmp_path)
    assert p.returncode == 0 or (command == "irq" and p.returncode == 1), p.stderr[-3000:]
    return p.stdout, out


def report(path, tmp_path) -> str:
    """`report --markdown` of one file: its Markdown, escapes undone."""
    md = tmp_path / "report.md"
    p = run_cli("report", str(path), "-o", str(tmp_path / "report.html"), "--markdown", str(md), cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    return re.sub(r"\\(.)", r"\1", md.read_text())


def intervals(command: str, printed: str) -> list[str]:
    """The intervals a command printed that its report shows in the same form."""
    out = []
    for line in printed.splitlines():
        for m in INTERVAL.finditer(line):
            if not any(re.search(ln, line) and re.search(iv, m.group(0)) for ln, iv in ELSEWHERE.get(command, [])):
                out.append(m.group(0))
    return out


def verdicts(command: str, printed: str, md: str) -> tuple[Counter, Counter]:
    """(first word, verdict) of each row the command printed, and of each
    row of the report's tables."""
    row = VERDICT_ROW.get(command)
    if row is None:
        return Counter(), Counter()
    rows = [re.split(r"\s{2,}", line.strip()) for line in printed.splitlines() if re.match(row, line)]
    said = Counter((r[0].split()[0], r[-1]) for r in rows if len(r) >= 5)  # a table's row, not a sentence
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in md.splitlines()
             if line.startswith("| ") and not line.startswith("|---")]
    return said, Counter((c[0].split()[0], c[-1]) for c in cells if c and c[0])


def sweep_cells(printed: str, md: str) -> None:
    """The sweep's grid (indirect cost per point; '<X': below its MDE) and
    its stride-0 check, as the report's tables say them."""
    grid = [c for line in printed.splitlines() if re.match(r"^\s+\d+[KMG]?\s", line)
            for c in re.findall(r"<?-?[\d.]+ (?:ns|µs|ms)", line)]
    assert grid
    for c in grid:
        if not c.startswith("<"):
            assert f"| {c} ± " in md, c
    below = re.search(r"\| \d+ \| \d+ \| (\d+) \| \d+ \| \d+ \| (FAILED|ok)", md)
    assert below and int(below.group(1)) == sum(c.startswith("<") for c in grid), below
    assert ("stride-0 check (FAILED)" in printed) == (below.group(2) == "FAILED")


def _ns(text: str) -> tuple[float, float]:
    """A time as ui/format.fmt_time prints it, in ns, and half a unit of
    its last digit (how far the printed number may be from the true one)."""
    num, unit = text.split()
    scale = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}[unit]
    digits = len(num.split(".")[1]) if "." in num else 0
    return float(num) * scale, 0.5 * 10 ** -digits * scale


def userbench_cells(printed: str, md: str) -> None:
    """userbench prints ns per switch and its interval in ns with two
    decimals; the report's row of the same id says them as the run's
    table does (median ± half the interval, ui/format.fmt_time): the same
    numbers within the two roundings, and the same verdict."""
    rows = re.findall(r"^\s*(user/\S+)\s+(-?[\d.]+)\s+\[(-?[\d.]+), (-?[\d.]+)\].*\s(\S+)$", printed, re.M)
    assert rows
    for rid, med, lo, hi, verdict in rows:
        cell = re.search(rf"^\| {re.escape(rid)} \| (\S+ \S+) ± (\S+ \S+) \|.*\| (.*) \|$", md, re.M)
        assert cell and cell.group(3) == verdict, (rid, verdict, cell and cell.group(0))
        for shown, said in ((cell.group(1), float(med)), (cell.group(2), (float(hi) - float(lo)) / 2)):
            x, slack = _ns(shown)
            assert abs(x - said) <= slack + 0.01, (rid, shown, said)


def _numbers(x):
    """A document's numbers and shape, its text left out (the reader makes
    text safe to show: core/reader.safe_text)."""
    if isinstance(x, dict):
        return {k: _numbers(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_numbers(v) for v in x]
    return None if isinstance(x, str) else x


@pytest.mark.parametrize("command", COMMANDS)
def test_report_prints_what_the_command_printed(command, tmp_path, monkeypatch):
    printed, path = measure(command, tmp_path, monkeypatch)
    # the reader hands the report the file as written: not one number analysed again
    assert _numbers(json.loads(results.encode(reader.load(str(path), RECORDS)))) == _numbers(json.loads(path.read_text()))
    md = report(path, tmp_path)
    if command == "sweep":
        sweep_cells(printed, md)
        return
    if command == "userbench":
        userbench_cells(printed, md)
        return
    shown = intervals(command, printed)
    assert shown, f"{command} printed no interval the report shows:\n{printed}"
    assert [x for x in shown if x not in md] == []
    said, in_report = verdicts(command, printed, md)
    assert said or command not in VERDICT_ROW, printed  # the rows were found: the next line compares something
    assert said - in_report == Counter(), (said, in_report)
    if command in ("ring", "anatomy"):  # their drift, derived again as the command did: the same file
        assert _reanalysed(path, tmp_path) == "nothing changed"


def _earlier_runs(path, store, tmp_path) -> None:
    """Three earlier runs of this host, kernel and command in `store`: the
    file's own results with their medians and intervals moved by a few
    per cent (what a shared host's clock does between runs)."""
    doc = json.loads(path.read_text())
    for k, f in enumerate((0.94, 1.0, 1.07)):
        d = json.loads(json.dumps(doc))
        d["run"]["started"] = f"2026-01-0{k + 1}T10:00:00"
        for r in d["results"]:
            r["samples"] = [x * f if isinstance(x, (int, float)) else x for x in r["samples"]]
            s = r["summary"]
            s["median"] = s["median"] * f if s.get("median") is not None else None
            s["ci95"] = [x * f if x is not None else None for x in s["ci95"]]
        earlier = tmp_path / f"earlier-{k}.json"
        earlier.write_text(json.dumps(d))
        p = run_cli("store", "add", str(earlier), "--store", str(store), cwd=tmp_path)
        assert p.returncode == 0, p.stderr


def test_run_widened_between_runs_is_reported_widened(tmp_path, monkeypatch):
    """With earlier runs of its host in the store, `run` widens each
    interval by the part between runs; the report prints the widened
    intervals (the reader once re-analysed the file and lost them). The
    first run, with no store, is held to its report the same way."""
    first, path = measure("run", tmp_path, monkeypatch)
    assert _numbers(json.loads(results.encode(reader.load(str(path), RECORDS)))) == _numbers(json.loads(path.read_text()))
    md = report(path, tmp_path)
    assert intervals("run", first) and [x for x in intervals("run", first) if x not in md] == []
    said, in_report = verdicts("run", first, md)
    assert said and said - in_report == Counter()
    store = tmp_path / "store.sqlite"
    _earlier_runs(path, store, tmp_path)
    (tmp_path / "run.json").rename(tmp_path / "first.json")
    printed, path = measure("run", tmp_path, monkeypatch, "--store", str(store))
    doc = json.loads(path.read_text())
    assert doc["run"]["between_runs"]["intervals_widened"] > 0, doc["run"]["between_runs"]
    widened = [r for r in doc["results"] if "ci95_this_run" in r["summary"]]
    assert widened
    md = report(path, tmp_path)
    shown = intervals("run", printed)
    assert [x for x in shown if x not in md] == []
    # and they are wider than the first run's, which had no earlier runs to widen by
    before, after = dict(zip(*_rows(first))), dict(zip(*_rows(printed)))
    assert any(after[i] != before[i] for i in after if i in before), (before, after)
    said, in_report = verdicts("run", printed, md)
    assert said - in_report == Counter()
    # reanalyse makes the widening again from what the file recorded: the same intervals
    assert _reanalysed(path, tmp_path) == "nothing changed"


def write_json(tmp_path, name: str, doc: dict):
    """`doc` written as `name` under tmp_path (a file edited by a test); its path."""
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def reanalyse(path, out) -> list[str]:
    """`ctxbench reanalyse path -o out`, which must succeed: the lines it printed."""
    p = run_cli("reanalyse", str(path), "-o", str(out), cwd=out.parent)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    return p.stdout.splitlines()


def _reanalysed(path, tmp_path) -> str:
    """What `reanalyse` says first of a file."""
    return reanalyse(path, tmp_path / "reanalysed.json")[0]


def _rows(printed: str) -> tuple[list[str], list[str]]:
    """Each id of a run's table and its "median ± 95% CI" cell."""
    rows = [re.split(r"\s{2,}", line.strip()) for line in printed.splitlines() if re.match(VERDICT_ROW["run"], line)]
    return [r[0] for r in rows], [r[1] for r in rows]
