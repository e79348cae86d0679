"""The package's imports form layers (issue 23), each importing only from
the layers below it:

    cli -> commands (ctxbench.<name> for each name in cli.COMMANDS)
        -> lifecycle (the one every measuring command goes through)
        -> ui (options, format, progress, figures, warnings)
        -> records (ctxbench.records, the registry, and each command's
           <name>.record: its part of a results file, on core/results)
           and the analyses several commands share (ctxbench.rounds)
        -> core (model, engine bridge, reading and writing files)
        -> stats

Every import counts, at module level or inside a function (a late import is
still a dependency, only a later one). Read from the source with `ast`, so
nothing is imported or measured here."""
from __future__ import annotations

import ast
from pathlib import Path

import ctxbench
from ctxbench.cli import COMMANDS

PKG = Path(ctxbench.__file__).resolve().parent
COMMAND_PKGS = {f"ctxbench.{c}" for c in COMMANDS}

# A command package importing another, known and left to its own change
# (compare reads two anatomies). The list may shrink; a new pair is a new
# dependency to decide on. The report imports no command (issue 23): each
# command brings its part of it in its `section` module.
COMMAND_TO_COMMAND = {
    ("ctxbench.compare", "ctxbench.anatomy"),
}

# What a command's `section` module may take from the report: the kind it
# registers, the shared cells and the tables and figures. Nothing else of a
# command imports the report.
SECTION_API = {"ctxbench.report.kinds", "ctxbench.report.cells", "ctxbench.report.model"}


def _modules() -> dict[str, tuple[Path, bool]]:
    """{dotted name: (file, is a package's __init__)} for every module."""
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (p, is_pkg)
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module of ours that `name` (a module or a name in one) is."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imported(module: str, source: str, is_pkg: bool = False) -> dict[str, int]:
    """{module of ours imported: first line} for every import in `source`
    (the text of `module`), wherever it is in the file."""
    here = module if is_pkg else module.rpartition(".")[0]
    out: dict[str, int] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, up level - 1
                up = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                base = ".".join(up + ([node.module] if node.module else []))
            names = [f"{base}.{a.name}" for a in node.names]  # a submodule, or a name in `base`
        else:
            continue
        for n in names:
            target = _resolve(n)
            if target and target != module:
                out.setdefault(target, node.lineno)
    return out


GRAPH = {m: _imported(m, path.read_text(), is_pkg) for m, (path, is_pkg) in MODULES.items()}


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _under(module: str, packages: set[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def test_late_and_relative_imports_are_seen():
    """The checks below can fail: an import inside a function, a relative
    one and a name imported from a module all count as the module."""
    src = ("import math\nfrom . import model\n\n\ndef f():\n"
           "    from ctxbench.ui.format import fmt_time\n    from ..stats import power\n")
    assert _imported("ctxbench.core.x", src) == {"ctxbench.core.model": 2, "ctxbench.ui.format": 6,
                                                 "ctxbench.stats.power": 7}
    assert len(GRAPH) == len(MODULES) > 20 and GRAPH["ctxbench.cli"]


def test_core_and_stats_never_import_ui_or_a_command():
    above = {"ctxbench.ui", "ctxbench.cli", "ctxbench.__main__"} | COMMAND_PKGS
    bad = [f"{m}:{line} imports {t}" for m in GRAPH if _under(m, {"ctxbench.core", "ctxbench.stats"})
           for t, line in GRAPH[m].items() if _under(t, above)]
    assert not bad, "core and stats are below ui and the commands:\n" + "\n".join(bad)


def test_core_and_stats_import_nothing_by_name_at_run_time():
    """A module named in a string (importlib) escapes the checks above."""
    bad = [f"{m}:{node.lineno}" for m, (path, _) in MODULES.items()
           if _under(m, {"ctxbench.core", "ctxbench.stats"})
           for node in ast.walk(ast.parse(path.read_text()))
           if isinstance(node, (ast.Name, ast.Attribute))
           and (node.id if isinstance(node, ast.Name) else node.attr) in ("import_module", "__import__")]
    assert not bad, bad


def _is_record(module: str) -> bool:
    return module == "ctxbench.records" or (module.count(".") == 2 and module.endswith(".record")
                                            and _package(module) in COMMAND_PKGS)


def _layer(module: str) -> float:
    """The layer of a module, from the top (cli, 5) to the ground (stats, 0)."""
    if module == "ctxbench.__main__":
        return 6
    if module == "ctxbench.cli":
        return 5
    if _is_record(module):  # the registry above the records it composes
        return 1.5 if module == "ctxbench.records" else 1.25
    if module == "ctxbench.rounds":
        return 1.5
    if _package(module) in COMMAND_PKGS:
        return 4
    for rank, pkg in ((3, "ctxbench.lifecycle"), (2, "ctxbench.ui"), (1, "ctxbench.core"), (0, "ctxbench.stats")):
        if _under(module, {pkg}):
            return rank
    return 0  # the package's face (ctxbench/__init__.py: its version)


# The package's face lends the Python API (`ctxbench.load`) from the export
# command, imported only when a program asks for it (its __getattr__):
# nothing of ours imports it through the face.
PUBLIC_API = {("ctxbench", "ctxbench.export.api")}
# A store's migration is no module of the layers: Alembic loads it from its
# file while a command opens the store, and one that fills columns from
# the kept documents reads them with the registry that command composed
# (0006: ctxbench export's columns). Nothing of ours imports a migration.
MIGRATIONS = "ctxbench.core.store.migrations.versions."


def test_no_module_imports_from_its_own_layer_or_above_but_commands():
    """Down the layers only; commands among themselves are the next test's."""
    bad = [f"{m}:{line} ({_layer(m)}) imports {t} ({_layer(t)})" for m in GRAPH for t, line in GRAPH[m].items()
           if _layer(t) >= _layer(m) and _package(m) != _package(t) and not _layer(m) == _layer(t) == 4
           and (m, t) not in PUBLIC_API and not (m.startswith(MIGRATIONS) and t == "ctxbench.records")]
    assert not bad, "an import runs up the layers:\n" + "\n".join(bad)
    assert {_layer(m) for m in GRAPH} == {0, 1, 1.25, 1.5, 2, 3, 4, 5, 6}
    assert _layer("ctxbench.stats.power") < _layer("ctxbench.core.model") < _layer("ctxbench.ui.format") \
        < _layer("ctxbench.lifecycle") < _layer("ctxbench.run.command") < _layer("ctxbench.cli")


def test_a_command_s_record_takes_only_the_registration_api():
    """<name>.record declares records on core/results (registry.py), so
    that the registry below ui and the commands can import it; nothing
    else of its command comes with it."""
    bad = [f"{m}:{line} imports {t}" for m in GRAPH if _is_record(m) and m != "ctxbench.records"
           for t, line in GRAPH[m].items() if not _under(t, {"ctxbench.core.results"})]
    assert not bad, bad
    # the registry composes every command's record, by name from the one list of commands
    from ctxbench.commands import NAMES, part
    from ctxbench.records import RECORDS
    named = {f"ctxbench.{n}.record" for n in NAMES if part(n, "record") is not None}
    assert named == {m for m in GRAPH if _is_record(m) and m != "ctxbench.records"}
    assert set(RECORDS.commands) == {m.split(".")[1] for m in named if part(m.split(".")[1], "record").FEATURE.section}


# Modules that import by name: the registry of commands (each command's
# parts, the one line a command adds), and two that find plugins in a
# folder (the report's sections; a runtime's descriptor in runtimes/langs/).
BY_NAME = {"ctxbench.commands", "ctxbench.report.kinds", "ctxbench.runtimes.harness"}


def test_only_the_registries_import_by_name():
    """No other module of ours imports by name, so that the imports the
    other tests read are all there is."""
    bad = [f"{m}:{node.lineno}" for m, (path, _) in MODULES.items() if m not in BY_NAME
           for node in ast.walk(ast.parse(path.read_text()))
           if isinstance(node, (ast.Name, ast.Attribute))
           and (node.id if isinstance(node, ast.Name) else node.attr) in ("import_module", "__import__")]
    assert not bad, bad


def _is_section(module: str) -> bool:
    return module.count(".") == 2 and module.endswith(".section") and _package(module) in COMMAND_PKGS


def test_commands_import_no_other_command_but_the_known_ones():
    got = {(_package(m), _package(t)) for m in GRAPH for t in GRAPH[m]
           if _package(m) in COMMAND_PKGS and _package(t) in COMMAND_PKGS and _package(m) != _package(t)
           and not (_is_section(m) and t in SECTION_API)}
    assert not got - COMMAND_TO_COMMAND, f"a command imports another: {sorted(got - COMMAND_TO_COMMAND)}"


def _cycle() -> list[str] | None:
    """One cycle of the module graph as [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for t in sorted(GRAPH.get(m, {})):
            if state.get(t) == 1:
                return path[path.index(t):] + [t]
            if t not in state and (found := visit(t)):
                return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(GRAPH):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_the_module_graph_has_no_cycle():
    cycle = _cycle()
    assert cycle is None, "import cycle: " + " -> ".join(
        f"{a} (line {GRAPH[a][b]})" for a, b in zip(cycle, cycle[1:])) + f" -> {cycle[-1]}"


def test_the_report_imports_no_command():
    bad = [f"{m}:{line} imports {t}" for m in GRAPH if _under(m, {"ctxbench.report"})
           for t, line in GRAPH[m].items() if _under(t, COMMAND_PKGS - {"ctxbench.report"})]
    assert not bad, "each command brings its own section (issue 23):\n" + "\n".join(bad)


def test_sections_take_only_the_report_s_interface():
    bad = [f"{m}:{line} imports {t}" for m in GRAPH if _is_section(m)
           for t, line in GRAPH[m].items() if _under(t, {"ctxbench.report"}) and t not in SECTION_API]
    assert not bad, bad
    assert {m for m in GRAPH if _is_section(m)} >= {f"ctxbench.{c}.section" for c in
                                                    ("run", "ring", "anatomy", "sweep", "tasks", "irq", "noise")}


def test_the_command_line_starts_without_matplotlib_or_scipy():
    """Every test and every user pays the CLI's start-up: figures and
    scipy are imported when asked for (a command module importing its
    figures at the top made every `ctxbench` call 1 s slower)."""
    import subprocess
    import sys
    code = ("import sys, ctxbench.cli; "
            "print(sorted(m for m in ('matplotlib', 'scipy', 'sqlalchemy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out
