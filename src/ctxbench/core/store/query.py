"""What a selection means, the same on SQLite and PostgreSQL (history's
--host, --kernel, --since, --until; compare's key=value): `*` matches any
text and is the only wildcard (`_`, `%`, `?` and `[` match themselves);
matching is case-sensitive on both backends; a date or time names its
whole day, hour, minute or second, so `--until 2026-11-25` keeps that
day's runs and `--since` starts at its first instant; a time with a zone
is converted to the local time runs are kept in.

SQLite's LIKE ignores case (for ASCII) and PostgreSQL's does not, so each
backend gets its own case-sensitive form: GLOB on SQLite (its other
wildcards escaped as one-character classes), LIKE on PostgreSQL (its `%`,
`_` and the escape character escaped)."""
from __future__ import annotations

import datetime
import re

from ctxbench.core.errors import UserError, escaped

ESC = "/"  # LIKE's escape character on PostgreSQL


def matches(conn, col, value: str):
    """The condition `col` matches `value` (* as any text)."""
    if "*" not in value:
        return col == value
    if conn.dialect.name == "sqlite":
        glob = "".join(c if c == "*" else f"[{c}]" if c in "?[" else c for c in value)
        return col.op("GLOB")(glob)
    like = "".join("%" if c == "*" else ESC + c if c in f"%_{ESC}" else c for c in value)
    return col.like(like, escape=ESC)


_ZONE = re.compile(r"(Z|[+-]\d{2}(:?\d{2}(:?\d{2}(\.\d+)?)?)?)$")


def moment(text: str, what: str) -> tuple[datetime.datetime, datetime.timedelta]:
    """(the instant `text` starts at, local and without a zone; the span it
    names: a day, an hour, a minute, a second, or 0 with fractions)."""
    t = text.strip()
    try:
        when = datetime.datetime.fromisoformat(t)
    except ValueError:
        raise UserError(f"{what}: '{escaped(text)}' is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM)") from None
    if when.tzinfo is not None:
        when = when.astimezone().replace(tzinfo=None)
    clock = re.split(r"[T ]", t, maxsplit=1)[1] if re.search(r"[T ]", t) else ""
    clock = _ZONE.sub("", clock)
    if not clock:
        span = datetime.timedelta(days=1)
    elif "." in clock or "," in clock:
        span = datetime.timedelta(0)
    else:
        digits = len(clock.replace(":", ""))
        span = {2: datetime.timedelta(hours=1), 4: datetime.timedelta(minutes=1)}.get(digits,
                                                                                       datetime.timedelta(seconds=1))
    return when, span


def since(col, text: str, what: str = "--since"):
    return col >= moment(text, what)[0]


def until(col, text: str, what: str = "--until"):
    """Up to the end of what `text` names (a date: that whole day)."""
    when, span = moment(text, what)
    try:
        return col < when + span if span else col <= when
    except OverflowError:  # the last day a date can name: every run up to it
        return col <= datetime.datetime.max


def check(text: str, what: str) -> str:
    """An option's date, checked as it is parsed."""
    moment(text, what)
    return text
