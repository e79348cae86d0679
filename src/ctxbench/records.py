"""The one registry of a results file's records: the core's (core/results)
and each feature's, from its package's record.py (a Feature), for each command
of the one registry of commands (ctxbench/commands.py) that has one: a new
command with members of its own adds its record.py, and nothing here.

RECORDS composes the types a file is decoded into, checked against and
described by (core/results/registry.py); whoever decodes builtins into
records is handed it, as core/ imports no feature. The order is the
written file's (the commands' order): the sections, then each feature's
members. Where a command derives more from its analysed results (its
section's effects, its derived results), its reanalysis.py says how, and
the reader's upgrade and `ctxbench reanalyse` make it again through
RECORDS.derived."""
from __future__ import annotations

from ctxbench.commands import NAMES, part
from ctxbench.core.results import Records



def _derive(command: str):
    """What `command` derives from its analysed results: its reanalysis
    module's reanalysed(doc, name), None where it has none."""
    m = part(command, "reanalysis") if command in NAMES else None
    return m.reanalysed if m is not None else None


RECORDS = Records(*(m.FEATURE for m in (part(name, "record") for name in NAMES) if m is not None), derive=_derive)
