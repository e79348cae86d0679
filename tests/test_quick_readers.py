"""The writer and the readers agree, by test (issue 34): every measuring
command's `--quick` file goes through every reader of results files.
The results model reads it (core/results.read) and writes it back to the
same bytes (read again after encoding: idempotent); `report` makes HTML
and Markdown of it; `compare` compares it with a copy; `store add` keeps
it in a SQLite store, and `store info` and `history` read it back from
there. Each step exits 0 (irq also 1, its own verdict on this host's
noise) and says nothing that looks like a traceback.

The engine's answers are replayed from recordings of real quick runs
(docs/testing.md; `tools/record_engine.py tests/test_quick_readers.py`
records them again): no engine starts. Statuses and shapes only: a quick
run's numbers are not judged."""
import json
import math
import shutil

import pytest

from conftest import run_cli
from ctxbench.core import results
from ctxbench.core.model import Document
from ctxbench.ui import presets
from ctxbench.records import RECORDS

# runtimes waits up to 10 s for its CPUs to be quiet before each launch (runtimes/contention.py), and the
# other xdist worker keeps them busy: the fake harness's launches need no quiet, so it does not wait
OWN = {"runtimes": ["--quiet-wait", "0"],
       # ctxbench's own peer (the engine, recorded); the peers that are programs: tests/test_peers_command.py
       "peers": ["--peer", "ctx-clock"]}


def _commands():
    # and launches it again, up to twice, when the other test worker's load disturbed it: make test's
    # run; tasks and irq (a second and a half each, their readers' figures) are make test's too, keeping
    # make check under a minute
    return [pytest.param(c, marks=pytest.mark.slow) if c in ("runtimes", "tasks", "irq") else c
            for c in presets.MEASURING]


def _measured(command: str, p) -> bool:
    """Exit 0, or irq's own exit 1 for a run its known-zero control or a
    self-check refused (a verdict on this machine's noise, the file
    written all the same)."""
    return p.returncode == 0 or (command == "irq" and p.returncode == 1
                                 and ("CONTROL FAILED" in p.stdout or "SELF-CHECK FAILED" in p.stdout))


def _clean(step: str, p) -> None:
    """No traceback on stderr: what a reader could not take is one line
    (tests/test_bad_input.py), never a stack."""
    assert "Traceback" not in p.stderr, f"{step}:\n{p.stderr[-3000:]}"


@pytest.mark.parametrize("command", _commands())
def test_quick_file_goes_through_every_reader(command, tmp_path):
    out = tmp_path / f"{command}.json"
    p = run_cli(command, "--quick", *OWN.get(command, []), "--no-store", "-o", str(out), cwd=tmp_path)
    assert _measured(command, p), f"{command} --quick exited {p.returncode}\n{p.stderr[-3000:]}"
    _clean(f"{command} --quick", p)

    # the file: ctxbench/2 with its command's section, the preset recorded
    text = out.read_bytes()
    doc = json.loads(text)
    assert doc["schema"] == results.SCHEMA == "ctxbench/2"
    assert doc[command]["preset"] == "quick", doc.get(command)
    assert doc["results"], command
    if command == "irq":  # what broke (issue 34): a fresh irq file's parts.I_pct, a plain number
        pct = [r["parts"]["I_pct"] for r in doc["results"] if "I_pct" in (r.get("parts") or {})]
        assert pct and all(isinstance(x, float) and math.isfinite(x) for x in pct), pct

    # the results model: read, encoded back to the very bytes written, and read again the same
    rec = RECORDS.read(doc)
    again = results.encode(rec)
    assert again == text, f"{command}: encode(read(file)) differs from the file"
    assert results.encode(RECORDS.read(json.loads(again))) == again

    # report: HTML and Markdown
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    p = run_cli("report", str(out), "-o", str(html), "--markdown", str(md), cwd=tmp_path)
    assert p.returncode == 0, f"report of {command} --quick:\n{p.stderr[-3000:]}"
    _clean("report", p)
    assert html.stat().st_size > 0 and md.stat().st_size > 0

    # compare: the file against a copy of itself (nothing measured twice)
    twin = tmp_path / f"{command}-copy.json"
    shutil.copyfile(out, twin)
    p = run_cli("compare", str(out), str(twin), cwd=tmp_path)
    assert p.returncode == 0, f"compare of {command} --quick:\n{p.stderr[-3000:]}"
    _clean("compare", p)

    # the store: kept, said, and every result read back by history as its point's one run
    store = tmp_path / "store.sqlite"
    p = run_cli("store", "add", str(out), "--store", str(store), cwd=tmp_path)
    assert p.returncode == 0, f"store add of {command} --quick:\n{p.stderr[-3000:]}"
    _clean("store add", p)
    p = run_cli("store", "info", "--store", str(store), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    _clean("store info", p)
    series = tmp_path / "history.json"
    p = run_cli("history", "*", "--store", str(store), "-o", str(series), cwd=tmp_path)
    assert p.returncode == 0, f"history of {command} --quick:\n{p.stderr[-3000:]}"
    _clean("history", p)
    got = {s["id"]: len(s["runs"]) for s in json.loads(series.read_text())["history"]["series"]}
    keys = {r.point_key for r in Document(doc).results}
    assert keys <= set(got) and all(got[k] == 1 for k in keys), (sorted(keys - set(got)), got)

