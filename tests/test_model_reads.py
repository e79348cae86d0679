"""Results and environments are read through the model's views
(core/model.py: Document, Environment, Result, Summary, Cycles, Params),
never as raw dicts (issue 34): a renamed or retyped member then changes one
accessor, not every reader.

The check parses every module of the package outside the model and flags,
by file:line, a *read* (a subscript or .get() with a constant key) of:
- a document's members: its environment, results, tool or failures (any
  receiver), or a command's section (a receiver named as a document);
- an environment record's members (a receiver named env/environment);
- a result's members that no other record carries under that name (any
  receiver), and its ambiguous ones (id, samples, ...) on a receiver named
  as a result;
- a view's record itself (`.d`): reaching through a view.
Writing a member (r["summary"] = ...) is how an analysis builds a record,
and a dict literal is how a builder makes one: neither is a read."""
from __future__ import annotations

import ast
from pathlib import Path


import ctxbench
from ctxbench.records import RECORDS

PKG = Path(ctxbench.__file__).resolve().parent
# where raw reads belong, and why
EXEMPT = {
    "core/model.py": "the views themselves",
    "core/schema.py": "the declarations the views read by",
    "core/reader.py": "the model's validation of a file, before there is a document",
    "core/results/": "the typed model",
    "core/cycles.py": "an analysis model.analyse runs on the raw engine result (below the views, which use it)",
    "core/verification.py": "an analysis model.analyse runs on the raw engine result (below the views, which use it)",
    "core/store/migrations/": "a migration reads documents as stored at its revision: it must not change with the model",
    "runtimes/harness.py": "the protocol's validator: a harness's lines member by member, before they are results",
    "fleet/k8s/collect.py": "a pod's engine output checked and given its node's name before it is a document "
                            "(fleet/job.document then reads it as the model's)",
}
DOCUMENT_MEMBERS = {"environment", "results", "tool", "failures"}
DOCUMENT_NAMES = {"doc", "old_doc", "document", "header"}
ENVIRONMENT_NAMES = {"env", "environment"}
# result members no other record the package reads carries under that name (core/schema.py and what
# the analyses add)
RESULT_MEMBERS = {"params", "summary", "summary_all", "raw", "verify", "verification", "warnings", "indirect",
                  "noise", "counters", "timing", "engine_summary", "above_pingpong", "resolution", "contention",
                  "jfr", "sample_n", "round_cost_s"}
# result members other records also carry (a benchmark list's id, an effect's unit and cycles twin, a
# probe's group, a section's settle, a launch interval's launches): flagged on a receiver named as a result
AMBIGUOUS_MEMBERS = {"id", "quantity", "unit", "samples", "group", "parts", "cycles", "clock_probe", "settle",
                     "kernel", "profile", "launches"}
RESULT_NAMES = {"r", "result", "engine_result", "raw"}


def _name(node) -> str | None:
    return node.id if isinstance(node, ast.Name) else None


def raw_reads(source: str) -> list[tuple[int, str]]:
    """(line, what) of every raw read of a document, environment or result in `source`."""
    out = []
    for node in ast.walk(ast.parse(source)):
        recv = key = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Constant):
            recv, key = node.value, node.slice.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args and isinstance(node.args[0], ast.Constant)):
            recv, key = node.func.value, node.args[0].value
        elif isinstance(node, ast.Attribute) and node.attr == "d" and isinstance(node.ctx, ast.Load):
            out.append((node.lineno, "a view's record (.d)"))
            continue
        if not isinstance(key, str):
            continue
        name = _name(recv)
        if key in DOCUMENT_MEMBERS and (key != "tool" or name in DOCUMENT_NAMES):
            out.append((node.lineno, f"the document's {key!r}"))
        elif key in RECORDS.commands and name in DOCUMENT_NAMES:
            out.append((node.lineno, f"the {key!r} section"))
        elif name in ENVIRONMENT_NAMES:
            out.append((node.lineno, f"the environment's {key!r}"))
        elif key in RESULT_MEMBERS or (key in AMBIGUOUS_MEMBERS and name in RESULT_NAMES):
            out.append((node.lineno, f"a result's {key!r}"))
    return sorted(out)


def test_the_check_sees_reads_not_writes():
    src = ('a = doc["environment"]\nb = env.get("cpu") or {}\nc = r.get("id")\nd = v.summary.d.get("x")\n'
           'r["summary"] = {}\nout = {"results": [], "environment": e}\ne = rows["id"]\nf = doc.get("sweep")\n'
           'g = h.get("tool")\nh = x["warnings"]\n')
    assert [line for line, _ in raw_reads(src)] == [1, 2, 3, 4, 8, 10]


def _modules():
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        if not any(rel == e or (e.endswith("/") and rel.startswith(e)) for e in EXEMPT):
            yield rel, path


def test_no_raw_reads_of_results_or_environment_outside_the_model():
    bad = [f"src/ctxbench/{rel}:{line}: reads {what}" for rel, path in _modules()
           for line, what in raw_reads(path.read_text())]
    assert not bad, "read these through core/model.py's views (add an accessor there):\n" + "\n".join(bad)


def test_the_exempt_places_exist():
    """An exemption for a file or folder that went leaves the list
    (core/results/ may not exist yet: the typed model's place)."""
    gone = [e for e in EXEMPT if e != "core/results/" and not (PKG / e).exists()]
    assert not gone, gone


def test_every_environment_accessor_reads_a_declared_path():
    """Each accessor's path is in schema.ENVIRONMENT(_OPTIONAL) (Environment.get
    asserts it), and a record without it reads as None (or empty)."""
    from ctxbench.core.model import Environment
    empty = Environment({})
    for name, attr in vars(Environment).items():
        if isinstance(attr, property):
            assert getattr(empty, name) in (None, False, [], {}, "") or name == "label", name
    env = Environment({"kernel": {"release": "6.1"}, "virtualization": {"is_vm": False}})
    assert Environment(env).d is env.d  # a view of a view reads the same record
    assert (env.kernel_release, env.vm, empty.vm, env.is_vm) == ("6.1", False, None, False)


def test_a_document_s_section_is_its_command_s():
    from ctxbench.core.model import Document
    from ctxbench.records import RECORDS
    from ctxbench.run.record import Run
    doc = Document(RECORDS.read({"schema": "ctxbench/1", "results": [{"id": "a"}], "run": {"preset": "quick"}}))
    assert doc.command == "run" and doc.section() == doc.section("run") == Run(preset="quick")  # the section's record
    assert doc.section("sweep") is None and Document({}).section() is None
    assert [r.id for r in doc.records] == ["a"] and doc.has_results and not Document({}).has_results
    assert doc.section("no-such-command") is None
    # of builtins, the section's builtins: the first object the core does not declare (fleet's comes after)
    raw = Document({"schema": "ctxbench/2", "results": [], "run": {"preset": "quick"}, "fleet": {"host": "h"}})
    assert raw.command == "run" and raw.section() == {"preset": "quick"}


def test_a_document_without_a_section_has_one_command_as_record_and_as_builtins():
    """A fleet's `env` job writes no section, only the host's record: the
    record said no command and its builtins (a store's kept document, as
    migration 0004 reads it) said "fleet", so the store's digest of one
    document differed by how it was read."""
    from ctxbench.core import results
    from ctxbench.core.model import Document
    from ctxbench.core.store.record import digest
    from ctxbench.records import RECORDS
    raw = {"schema": "ctxbench/2", "tool": {"name": "t"}, "environment": {"hostname": "h"}, "results": [],
           "fleet": {"host": "h"}}
    rec = RECORDS.read(raw)
    assert Document(rec).command == Document(raw).command == Document(results.plain(rec)).command == "fleet"
    assert digest(rec) == digest(raw) == digest(results.plain(rec))
