"""The report is closed to change (issue 23): every command brings its part
of the report in its own `section` module (ctxbench.<command>.section, its
KIND), found when the report is built; the report imports no command. A
new part needs no edit to report/. No measurement."""
import ast
import json
import types
from pathlib import Path

from conftest import FIXTURES

import ctxbench
from ctxbench.cli import COMMANDS
from ctxbench.core import reader
from ctxbench.core.model import Result
from ctxbench.report import build, html, kinds
from ctxbench.report.cells import median_ci
from ctxbench.report.model import Table
from ctxbench.records import RECORDS

REPORT = Path(ctxbench.__file__).resolve().parent / "report"
FAKE_ID = "custom/thing"


def _doc_with_an_unclaimed_result(tmp_path) -> Path:
    """ring_base.json with one result no command's kind claims."""
    d = json.loads((FIXTURES / "ring_base.json").read_text())
    for r in d["results"]:
        if r["id"] == "user/minimal":
            r["id"] = FAKE_ID
    p = tmp_path / "custom.json"
    p.write_text(json.dumps(d))
    return p


def _fake_section() -> types.ModuleType:
    """What a new command's section.py would hold, as a module object."""
    m = types.ModuleType("ctxbench.fake.section")

    def render_fake(rs, env, sections):
        return [Table(["id", "median"], [[Result(r).id, median_ci(r)] for r in rs], "Fake: one row per result")]

    m.KIND = kinds.Kind("fake", "A fake command's own section", lambda r: Result(r).id == FAKE_ID, render_fake,
                        order=35)
    return m


def test_the_commands_sections_are_found_in_the_report_s_order():
    assert [k.name for k in kinds.kinds()] == ["run", "runtimes", "peers", "ring", "anatomy", "sweep", "tasks", "irq",
                                                "noise"]
    run = next(k for k in kinds.kinds() if k.name == "run")
    assert run.commands == ("run", "userbench")
    assert kinds.classify({"id": "x"}, "userbench") is run


def test_a_section_registered_at_run_time_is_in_the_report(tmp_path, monkeypatch):
    path = _doc_with_an_unclaimed_result(tmp_path)
    docs = [(str(p), reader.load(str(p), RECORDS)) for p in (path, FIXTURES / "sweep-small.json")]
    titles = [s.title for s in build.build(docs).sections]
    assert any(t.startswith("Other results") for t in titles)  # before: the generic table
    assert not any(t.startswith("A fake command") for t in titles)

    real = kinds._section_modules
    monkeypatch.setattr(kinds, "_section_modules", lambda: real() + [_fake_section()])
    rep = build.build(docs)
    titles = [s.title for s in rep.sections]
    assert not any(t.startswith("Other results") for t in titles)

    def at(prefix):
        return next(i for i, t in enumerate(titles) if t.startswith(prefix))
    # ordered by `order` (35): after run's (10), before sweep's (40)
    assert at("Direct cost (ctxbench run)") < at("A fake command's own section") < at("Indirect cost: working-set")
    fake = rep.sections[at("A fake command's own section")]
    assert [t.caption for t in fake.tables] == ["Fake: one row per result"]
    assert fake.tables[0].rows[0][0] == FAKE_ID
    page = html.render(rep)
    assert "A fake command" in page and "Fake: one row per result" in page and FAKE_ID in page


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative to ctxbench.report
                base = ".".join((["ctxbench", "report"] if node.level == 1 else ["ctxbench"]) + ([base] if base else []))
            out |= {f"{base}.{a.name}" for a in node.names} | {base}
    return out


def test_the_report_imports_no_command():
    commands = {f"ctxbench.{c}" for c in COMMANDS if c != "report"}
    files = sorted(REPORT.glob("*.py"))
    assert {p.name for p in files} >= {"kinds.py", "build.py", "cells.py"}
    bad = {p.name: sorted(n for n in _imports(p) if any(n == c or n.startswith(c + ".") for c in commands))
           for p in files}
    assert not any(bad.values()), bad
    # nor by name at run time: no command's module named in a string
    for p in files:
        strings = [n.value for n in ast.walk(ast.parse(p.read_text()))
                   if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        assert not [s for s in strings if any(s == c or s.startswith(c + ".") for c in commands)], p.name
