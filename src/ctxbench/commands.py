"""The one registry of commands, in the order `ctxbench --help` lists them.

`ctxbench NAME` is the package ctxbench.NAME: its command.py gives
add_parser(sub) and run(args) (cli.py imports it from here); where the
command adds members to a results file, its record.py gives FEATURE
(core/results' registration API; ctxbench/records.py composes them); where
the report shows it, its section.py registers the kind (report/ finds it).
Adding a command is its package and its name here
(docs/ARCHITECTURE.md, "Adding a command")."""
from __future__ import annotations

import importlib
from types import ModuleType

NAMES = ("run", "system", "userbench", "runtimes", "peers", "sweep", "tasks", "irq", "noise", "ring", "anatomy",
         "report", "reanalyse", "compare", "store", "history", "export", "fleet")


def part(name: str, module: str) -> ModuleType | None:
    """ctxbench.<name>.<module>, None where the command has none."""
    try:
        return importlib.import_module(f"ctxbench.{name}.{module}")
    except ModuleNotFoundError as e:
        if e.name != f"ctxbench.{name}.{module}":
            raise  # one that exists and imports something missing: a real fault
        return None
