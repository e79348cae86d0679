"""Malformed results files (issue 22, kind 6): a member of the wrong type,
a derived result's parts that are not stats records, a pair without its
'+', are one `ctxbench:` line naming what is wrong, exit 2, for report and
compare alike; parts a file simply lacks read as unknown (n/a), not as a
KeyError. Each case gave a traceback before. Since ctxbench/2 (issue 34)
the line names the JSON path of what is wrong (core/results validates)."""
import json

import pytest

from conftest import FIXTURES, run_cli
from test_faults import one_line_error

from ctxbench.cli import main


def _mutated(tmp_path, fixture, change):
    doc = json.loads((FIXTURES / fixture).read_text())
    for r in doc["results"]:
        change(r)
    path = tmp_path / f"bad-{fixture}"
    path.write_text(json.dumps(doc))
    return str(path)


def _set_part(name, value):
    def change(r):
        if isinstance(r.get("parts"), dict):
            r["parts"][name] = value
    return change


def _set_param(name, value):
    def change(r):
        if isinstance(r.get("params"), dict) and name in r["params"]:
            r["params"][name] = value
    return change


def _argv(command, path, fixture, tmp_path):
    if command == "report":
        return ["report", path, "-o", str(tmp_path / "r.html")]
    return ["compare", path, str(FIXTURES / fixture)]


WRONG = [
    ("irq-small.json", _set_part("I", "x"), "got str - at `$.results[1].parts.I`"),
    ("irq-small.json", _set_part("direct", None), "parts.direct is null, not an object"),
    ("irq-small.json", _set_part("interrupts", {"mean": "many"}), "expected float | null, got str - at `$.results[1].parts.interrupts.mean`"),
    ("irq-small.json", _set_part("I", {"estimate_ns": 1.0, "ci95": "wide"}), "got str - at `$.results[1].parts.I.ci95`"),
    ("tasks-small.json", _set_part("R_prime", [1, "a"]), "got array - at `$.results[0].parts.R_prime`"),
    ("irq-small.json", _set_param("rate_hz", None), "params.rate_hz of"),
    ("irq-small.json", _set_param("cpu", []), "params.cpu of"),
    ("tasks-small.json", _set_param("n", {}), "params.n of"),
    ("tasks-small.json", _set_param("pair", -1.5), "params.pair of"),
    ("sweep-small.json", _set_param("size", "big"), "params.size of"),
    ("noise-small.json", _set_param("cpu", {}), "params.cpu of"),
    ("ring_ring.json", _set_param("parties", "3"), "params.parties of"),
]


@pytest.mark.parametrize("command", ["report", "compare"])
@pytest.mark.parametrize("fixture,change,needle", WRONG, ids=[w[2].split(" of")[0].split("at ")[-1].strip("`") for w in WRONG])
def test_a_member_of_the_wrong_type_is_one_line(tmp_path, capsys, command, fixture, change, needle):
    path = _mutated(tmp_path, fixture, change)
    err = one_line_error(capsys, _argv(command, path, fixture, tmp_path), code=2)
    assert "malformed" in err and needle in err, err


def test_a_pair_without_its_plus_is_one_line(tmp_path, capsys):
    path = _mutated(tmp_path, "tasks-small.json", _set_param("pair", "x"))
    err = one_line_error(capsys, ["report", path, "-o", str(tmp_path / "r.html")], code=2)
    assert "is malformed: params.pair" in err, err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("fixture", ["irq-small.json", "tasks-small.json"])
@pytest.mark.parametrize("command", ["report", "compare"])
def test_parts_a_file_lacks_read_as_unknown(tmp_path, capsys, fixture, command):
    """Empty parts: nothing to show, said as n/a; the command still ends
    normally (the file is well-formed, only poor)."""
    path = _mutated(tmp_path, fixture, lambda r: r.__setitem__("parts", {}) if "parts" in r else None)
    rc = main(_argv(command, path, fixture, tmp_path))
    cap = capsys.readouterr()
    assert rc == 0 and "Traceback" not in cap.err, (rc, cap.err)
    if command == "report":
        html = (tmp_path / "r.html").read_text()
        assert "n/a" in html


def test_a_fresh_irq_file_is_read_by_report_and_compare(tmp_path):
    """issue 34: a default irq file's points carry I_pct, a plain number
    among the stats records of `parts`; the reader refused it ('parts.I_pct
    is float, not an object'). tests/fixtures/irq-fresh.json is `ctxbench irq
    --task crc --rates 1000,10000 --rounds 3` of 2026-11-26."""
    src = FIXTURES / "irq-fresh.json"
    p = run_cli("report", str(src), "-o", str(tmp_path / "r.html"))
    assert p.returncode == 0, p.stderr
    q = run_cli("compare", str(src), str(src))
    assert q.returncode == 0, q.stderr


def test_an_irq_share_that_is_not_a_number_is_one_line(tmp_path):
    doc = json.loads((FIXTURES / "irq-fresh.json").read_text())
    next(r for r in doc["results"] if "I_pct" in (r.get("parts") or {}))["parts"]["I_pct"] = "much"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    p = run_cli("report", str(bad), "-o", str(tmp_path / "r.html"))
    assert p.returncode == 2 and "got str - at `$.results[1].parts.I_pct`" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
