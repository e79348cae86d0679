"""Commands read results through the model's views (core/model.py: Result,
Params, Summary, Environment, Document), never by a result's raw keys
(issue 23): a renamed member then breaks one view, not every command.

What is checked: in each command package's modules that read results
(command, section, figures, table: not analysis modules, which build the
records), no subscript or .get() names a member of a result record."""
from __future__ import annotations

import ast
from pathlib import Path

import ctxbench
from ctxbench.cli import COMMANDS

PKG = Path(ctxbench.__file__).resolve().parent
READERS = ("command.py", "section.py", "figures.py", "table.py")
# the members of a result record (core/schema.py: ENGINE_MEMBERS, ANALYSED and what analyses add)
# that no other record the commands read carries under that name ("parts", "samples", "group",
# "quantity" are also the anatomy's and the attribution's own members: not checkable by name)
RESULT_MEMBERS = {"params", "summary", "summary_all", "raw", "verify", "verification", "warnings", "indirect",
                  "noise", "counters", "timing", "engine_summary"}
ALLOWED: set[str] = set()  # none left (issue 23)


def raw_reads(source: str) -> list[tuple[int, str]]:
    """(line, member) of every x["member"] and x.get("member") in `source`."""
    out = []
    for node in ast.walk(ast.parse(source)):
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args and isinstance(node.args[0], ast.Constant)):
            key = node.args[0].value
        if isinstance(key, str) and key in RESULT_MEMBERS:
            out.append((node.lineno, key))
    return out


def test_the_check_sees_subscripts_and_gets():
    assert raw_reads('a = r["params"]["n"]\nb = r.get("summary") or {}\nc = d["other"]\n') == \
        [(1, "params"), (2, "summary")]


def test_commands_read_results_through_views():
    bad = []
    for cmd in COMMANDS:
        for name in READERS:
            path = PKG / cmd / name
            rel = f"{cmd}/{name}"
            if path.is_file() and rel not in ALLOWED:
                bad += [f"{rel}:{line} reads [{key!r}]" for line, key in raw_reads(path.read_text())]
    assert not bad, "read these through core/model.py's views:\n" + "\n".join(bad)
