"""When a run started, as an instant. The lifecycle writes `started` as the
measuring machine's local time with its UTC offset (lifecycle.py; files
from before have none), and the store keeps it as local time without a
zone (core/store/record.py). The rule, the same for files and
stores: a time with an offset is that instant; a time without one is taken
as local time of the machine that exports (its zone, TZ, at that date),
the one that measured it when the two are one machine or share a zone.
The export holds the instant in UTC (schema.TIME). A local time the
platform's time functions cannot place (before 1970 or after 2037 on some
C libraries, year 1 on all) takes its zone's offset at the same day of the
nearest year they can (1972 or 2036); an instant outside what a timestamp
holds is null."""
from __future__ import annotations

import datetime


def parsed(value) -> datetime.datetime | None:
    """A document's `started` (ISO 8601 text) or a store's (a datetime),
    None where it is neither."""
    if isinstance(value, datetime.datetime):
        return value
    if not isinstance(value, str):
        return None
    try:
        return datetime.datetime.fromisoformat(value.strip())
    except ValueError:
        return None


def utc(value) -> datetime.datetime | None:
    """The instant, in UTC (a naive time read as this machine's local time)."""
    t = parsed(value)
    if t is None:
        return None
    try:
        return t.astimezone(datetime.timezone.utc)
    except (OverflowError, ValueError, OSError):  # a date the platform's local-time functions cannot take
        if t.tzinfo is not None:  # an offset of its own: the instant is before year 1 or after 9999
            return None
    try:
        return (t - _offset_near(t)).replace(tzinfo=datetime.timezone.utc)
    except (OverflowError, ValueError, OSError):  # the instant is before year 1 or after 9999
        return None


def _offset_near(t: datetime.datetime) -> datetime.timedelta:
    """This machine's zone's UTC offset on `t`'s day of 1972 or 2036 (both leap years)."""
    near = t.replace(year=1972 if t.year < 1972 else 2036)
    return near.astimezone().utcoffset() or datetime.timedelta(0)


def local(value) -> datetime.datetime | None:
    """The instant as local time without a zone, as the store keeps times
    and --select's dates are read (core/store/query.moment)."""
    t = parsed(value)
    if t is None or t.tzinfo is None:
        return t
    try:
        return t.astimezone().replace(tzinfo=None)
    except (OverflowError, ValueError, OSError):
        return None
