"""Which part of the report a result belongs to, and how that part is drawn.

A kind = a name, a title, a matcher (does this result belong here?), a
renderer (results of that kind + their environment -> tables and
figures), its place among the report's parts (`order`) and the commands
whose documents it shows. The command that wrote a document (its own
section, model.Document.command) wins over the matchers, which go by the
result's kind in the schema (core/schema.py); else the kinds are asked in
`order`, the first match wins; a result no kind claims is shown in the
generic table.

Each command brings its own part (issue 23): a package ctxbench.<command>
with a module `section` that defines

    KIND = Kind("sweep", "Indirect cost: working-set sweep", _is_sweep, render_sweep, order=40)

where render_sweep(results, env, sections) -> list of Table/Figure (report/model.py;
the shared cells are in report/cells.py). The report finds these modules
when it is built and imports no command: a new command's part is a new
file in that command, never an edit here.
"""
from __future__ import annotations

import importlib
import os
import pkgutil
from dataclasses import dataclass
from types import ModuleType
from typing import Callable, Optional

import ctxbench
from ctxbench.core.model import Result
from ctxbench.report.cells import _id, _p, median_ci, spread, verified
from ctxbench.report.model import Table


@dataclass
class Kind:
    name: str
    title: str
    match: Callable[[dict], bool]
    # (results, their environment, the command's sections of the documents they came from) -> parts;
    # None: the generic table. A part draws what the command kept, never an analysis made again
    render: Optional[Callable[[list, dict, list], list]] = None
    order: int = 1000          # place in the report (and in matching), lowest first
    commands: tuple = ()       # the commands whose documents it shows; () = (name,)

    def __post_init__(self):
        self.commands = tuple(self.commands) or (self.name,)


# ---- generic -----------------------------------------------------------------

def render_generic(rs: list[dict], env: dict, sections: list) -> list:
    skip = {"policy", "policy_requested", "cpu", "pinned", "groups", "iterations", "t_single", "formula", "n_is"}
    rows = []
    for r in rs:
        ps = ", ".join(f"{k}={v}" for k, v in sorted(_p(r).items()) if k not in skip and not isinstance(v, (dict, list)))
        rows.append([_id(r), Result(r).quantity, ps, median_ci(r), *spread(r), verified(r)])
    return [Table(["id", "quantity", "params", "median ± 95% CI", "min … max", "CV", "n", "verified"], rows)]


GENERIC = Kind("other", "Other results", lambda r: True, render_generic)


# ---- discovery -----------------------------------------------------------------

SECTION = "section"  # the module a command package brings its part in


def _section_modules() -> list[ModuleType]:
    """Every ctxbench.<pkg>.section, imported (a package without one has no
    part of its own). Only the file system is looked at before importing,
    so a package's other modules are not loaded for nothing."""
    out = []
    for pkg in pkgutil.iter_modules(ctxbench.__path__):
        if not pkg.ispkg:
            continue
        where = os.path.join(pkg.module_finder.path, pkg.name)
        if any(m.name == SECTION for m in pkgutil.iter_modules([where])):
            out.append(importlib.import_module(f"ctxbench.{pkg.name}.{SECTION}"))
    return out


def kinds() -> list[Kind]:
    """The commands' kinds in report order (the generic one not included)."""
    return sorted((m.KIND for m in _section_modules()), key=lambda k: (k.order, k.name))


def classify(result: dict, command: Optional[str] = None, among: Optional[list[Kind]] = None) -> Kind:
    """The part of the report a result belongs to: the one of the command
    that wrote it if known, else the first matcher that claims it, else the
    generic table. `among`: the kinds (kinds() unless given)."""
    ks = kinds() if among is None else among
    if command:
        for k in ks:
            if command in k.commands:
                return k
    for k in ks:
        if k.match(result):
            return k
    return GENERIC


def render(kind: Kind, rs: list[dict], env: dict, sections: list) -> list:
    return (kind.render or render_generic)(rs, env, sections)
