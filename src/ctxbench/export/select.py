"""--select: which rows an export keeps, `key=value[,key=value...]`, every
key given once and all of them holding. The same meaning for files as for a
store, and as compare's and history's selections (core/store/query.py):
`*` matches any text and is the only wildcard, case counts, a date names
its whole day (an hour, a minute: all of it), a time with a zone is
converted to local time. Without --select, everything is exported."""
from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from types import MappingProxyType

from ctxbench.core.errors import UserError, escaped
from ctxbench.core.store import query

# key -> what it matches: a result's id, or the run's column of that name (the store's)
KEYS = MappingProxyType({"id": "result_id", "command": "command", "host": "host", "kernel": "kernel",
                         "cpu": "cpu_model", "since": "started", "until": "started"})
RUN_TEXT = ("command", "host", "kernel", "cpu")


@dataclass(frozen=True)
class Selection:
    terms: tuple[tuple[str, str], ...] = ()

    def get(self, key: str) -> str | None:
        return next((v for k, v in self.terms if k == key), None)

    def run_passes(self, facts: dict, started) -> bool:
        """Whether a run (its store columns, `facts`; when it started,
        local time without a zone) is selected."""
        for key in RUN_TEXT:
            want = self.get(key)
            if want is not None and not _matches(want, facts.get(KEYS[key])):
                return False
        return _in_dates(self, started)

    def result_passes(self, result_id: str) -> bool:
        want = self.get("id")
        return want is None or _matches(want, result_id)


def parse(specs: list[str] | None) -> Selection:
    """The terms of every --select, checked (keys, dates) before anything is read."""
    terms: list[tuple[str, str]] = []
    for spec in specs or []:
        for part in spec.split(","):
            key, sep, value = (x.strip() for x in part.partition("="))
            if not sep or not value:
                raise UserError(f"export: --select {escaped(spec)}: a selection is key=value[,key=value...]")
            if key not in KEYS:
                raise UserError(f"export: --select {escaped(spec)}: no key '{escaped(key)}' (keys: {', '.join(KEYS)})")
            if any(k == key for k, _ in terms):
                raise UserError(f"export: --select: key '{key}' given twice")
            if key in ("since", "until"):
                query.check(value, f"export: --select {key}")
            terms.append((key, value))
    return Selection(tuple(terms))


def _matches(pattern: str, text) -> bool:
    """`*` as any text, everything else itself, case counting."""
    if not isinstance(text, str):
        return False
    return re.fullmatch(".*".join(re.escape(p) for p in pattern.split("*")), text, re.S) is not None


def _in_dates(sel: Selection, started: datetime.datetime | None) -> bool:
    since, until = sel.get("since"), sel.get("until")
    if since is None and until is None:
        return True
    if started is None:
        return False  # a run without a start time is in no date range
    if since is not None and started < query.moment(since, "export: --select since")[0]:
        return False
    if until is not None:
        when, span = query.moment(until, "export: --select until")
        try:
            end = when + span
        except OverflowError:  # the last day a date can name: every run up to it
            end = datetime.datetime.max
        if (started >= end) if span else (started > when):
            return False
    return True


def where_runs(conn, q, sel: Selection, runs):
    """`q` (a select that reads the runs table) limited to the selected runs."""
    for key, value in sel.terms:
        if key == "since":
            q = q.where(query.since(runs.c.started, value, "export: --select since"))
        elif key == "until":
            q = q.where(query.until(runs.c.started, value, "export: --select until"))
        elif key != "id":
            q = q.where(query.matches(conn, runs.c[KEYS[key]], value))
    return q


def where_id(conn, q, sel: Selection, results):
    """`q` (a select over results) limited to the selected ids."""
    want = sel.get("id")
    return q if want is None else q.where(query.matches(conn, results.c.result_id, want))


def selects_runs(sel: Selection) -> bool:
    """Whether the selection names anything of a run (not only ids)."""
    return any(k != "id" for k, _ in sel.terms)
