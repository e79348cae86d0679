"""What a side of a comparison is: results files, or runs selected from the
results store by their environment (`kernel=6.12`, `host=a,kernel=6.*`),
as LKP's ncompare sets groups of runs against each other. Each side is a
list of (label, document); a file and a selection may be mixed."""
from __future__ import annotations

import os
from dataclasses import dataclass

from ctxbench.core import reader
from ctxbench.core.errors import UserError, escaped
from ctxbench.records import RECORDS

# a selector's keys: the store's run columns they read (core/store/tables.py)
KEYS = {"host": "host", "kernel": "kernel", "cpu": "cpu_model", "microcode": "microcode", "governor": "governor",
        "command": "command", "version": "ctxbench_version", "commit": "git_commit", "since": "started",
        "until": "started"}


@dataclass(frozen=True)
class Side:
    specs: list[str]            # as given
    docs: list[dict]            # one per run
    labels: list[str]           # one per run: its file, or its store run
    stored: int = 0             # how many of them came from the store


def is_selector(spec: str) -> bool:
    """key=value[,key=value...] that is not a file's name."""
    return "=" in spec and not os.path.exists(spec)


def parse(spec: str) -> dict[str, str]:
    out = {}
    for part in spec.split(","):
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not value:
            raise UserError(f"compare: {escaped(spec)}: a selection is key=value[,key=value...]")
        if key not in KEYS:
            raise UserError(f"compare: {escaped(spec)}: no key '{escaped(key)}' (keys: {', '.join(KEYS)})")
        if key in out:  # one would silently win: say so
            raise UserError(f"compare: {escaped(spec)}: key '{key}' given twice")
        out[key] = value
    return out


def select_runs(conn, spec: str) -> list[int]:
    """Ids of the store's runs a selector names, oldest first: * in a value
    matches any text and is the only wildcard, case counts, and a date
    names its whole day (core/store/query.py: the same on SQLite and
    PostgreSQL)."""
    from sqlalchemy import select

    from ctxbench.core.store import query
    from ctxbench.core.store.tables import runs
    q = select(runs.c.id)
    for key, value in parse(spec).items():
        col = runs.c[KEYS[key]]
        if key == "since":
            q = q.where(query.since(col, value, f"compare: {escaped(spec)}"))
        elif key == "until":
            q = q.where(query.until(col, value, f"compare: {escaped(spec)}"))
        else:
            q = q.where(query.matches(conn, col, value))
    return list(conn.execute(q.order_by(runs.c.started, runs.c.id)).scalars())


def check(specs: list[str]) -> None:
    """Every selector's keys and dates, before anything is read."""
    from ctxbench.core.store import query
    for spec in specs:
        if is_selector(spec):
            for key, value in parse(spec).items():
                if key in ("since", "until"):
                    query.check(value, f"compare: {escaped(spec)}")


def resolve(specs: list[str], store) -> Side:
    """The runs of one side: selectors read `store` (opened by the caller
    once any side names one), files are read as files."""
    docs, labels, stored = [], [], 0
    for spec in specs:
        if not is_selector(spec):
            docs.append(reader.load(spec, RECORDS))
            labels.append(spec)
            continue
        from ctxbench.core.store import record
        with store.begin(write=False) as conn:
            ids = select_runs(conn, spec)
            if not ids:
                raise UserError(f"compare: no run in the store {store.name} matches {escaped(spec)}")
            for i in ids:
                docs.append(record.document(conn, i, RECORDS))
                labels.append(f"{spec} (store run {i})")
                stored += 1
    return Side(specs, docs, labels, stored)
