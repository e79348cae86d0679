"""Commands read results through the model's views (core/model.py: Result,
Params, Summary, Environment, Document), never by a result's raw keys
(issue 23): a renamed member then breaks one view, not every command.

What is checked: in every module of each command package (all of
ctxbench/<cmd>/, analyses included: they read the records they derive from
as any reader does), no subscript or .get() reads a member of a result
record. Writing one (r["summary"] = ...) is how an analysis builds a
record: only reads are refused."""
from __future__ import annotations

import ast
from pathlib import Path

import ctxbench
from ctxbench.cli import COMMANDS

PKG = Path(ctxbench.__file__).resolve().parent
# the members of a result record (core/schema.py: ENGINE_MEMBERS, ANALYSED and what analyses add)
# that no other record the commands read carries under that name ("parts", "samples", "group",
# "quantity" are also the anatomy's and the attribution's own members: not checkable by name)
RESULT_MEMBERS = {"params", "summary", "summary_all", "raw", "verify", "verification", "warnings", "indirect",
                  "noise", "counters", "timing", "engine_summary"}
# module: why it may still read raw members
ALLOWED = {
    # sweep's analysis and rounds are the interval helper's part of issue 23 (one interval method,
    # sweep read through the views): until that lands, they read the raw members
    "sweep/analysis.py": "issue 23, interval helper",
    "sweep/rounds.py": "issue 23, interval helper",
    # checks a harness's protocol lines member by member before they are results (runtimes/PROTOCOL.md)
    "runtimes/harness.py": "the protocol's validator",
}


def raw_reads(source: str) -> list[tuple[int, str]]:
    """(line, member) of every read x["member"] and x.get("member") in `source`."""
    out = []
    for node in ast.walk(ast.parse(source)):
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.ctx, ast.Load):
            key = node.slice.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args and isinstance(node.args[0], ast.Constant)):
            key = node.args[0].value
        if isinstance(key, str) and key in RESULT_MEMBERS:
            out.append((node.lineno, key))
    return sorted(out)


def test_the_check_sees_subscripts_and_gets_not_writes():
    assert raw_reads('a = r["params"]["n"]\nb = r.get("summary") or {}\nc = d["other"]\nr["warnings"] = []\n'
                     'r["raw"]["x"] = 1\n') == [(1, "params"), (2, "summary"), (5, "raw")]


def _modules():
    for cmd in COMMANDS:
        for path in sorted((PKG / cmd).rglob("*.py")):
            yield path.relative_to(PKG).as_posix(), path


def test_commands_read_results_through_views():
    bad = []
    for rel, path in _modules():
        if rel not in ALLOWED:
            bad += [f"{rel}:{line} reads [{key!r}]" for line, key in raw_reads(path.read_text())]
    assert not bad, "read these through core/model.py's views:\n" + "\n".join(bad)


def test_the_allowed_modules_exist():
    """An allowed module that was renamed or emptied of raw reads leaves the list."""
    mods = dict(_modules())
    assert set(ALLOWED) <= set(mods)
    assert not [rel for rel in ALLOWED if not raw_reads(mods[rel].read_text())], "no raw read left: drop it"
