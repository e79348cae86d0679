"""The two kinds of record every results record is built from, and the
statistics and warning records many of them hold.

- `Closed`: a record the front end or engine owns in full (the document,
  a result, a warning, a command's section). A member it does not declare
  is an error with its JSON path: a writer that adds one must declare it
  here, so writer and readers agree by construction.
- `Open`: a record whose members grow with the analyses or differ by host
  and architecture (statistics records, the environment's sections, the
  verification). The members readers use are declared and typed; any
  other member is kept, as it was, in `extra` (codec.py moves it there on
  reading and back on writing), so a round trip never loses one.

Optional members default to UNSET: absent in the file stays absent, and
null stays null (readers tell `"indirect" in r` from `r["indirect"] is None`).
"""
from __future__ import annotations

from typing import Any, Union

import msgspec
from msgspec import UNSET, UnsetType

# JSON has no nan: a number the analysis could not make is null
Num = Union[float, None]
Pair = list[Union[float, None]]                     # an interval: [low, high]
Nums = list[Union[float, None]]                     # a per-sample array
Ints = list[int]
Json = Any                                          # a member whose shape its command owns
EXTRA = "__extra__"                                 # Open.extra's name in builtins, never in a file


class Closed(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A record whose members are all declared."""


class Open(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A record whose undeclared members are kept in `extra`."""
    extra: dict[str, Any] = msgspec.field(default_factory=dict, name=EXTRA)


class Stats(Open, frozen=True):
    """A statistics record: stats.summarize's summary (median, its interval
    over resampled groups, ...), a power.effect (estimate_ns, se_ns,
    mde_ns, resolved, ...) or a mix (a sweep point's `indirect`), with
    the widenings stats.drift adds. Every number may be null."""
    n: Union[int, UnsetType] = UNSET
    min: Union[Num, UnsetType] = UNSET
    max: Union[Num, UnsetType] = UNSET
    median: Union[Num, UnsetType] = UNSET
    mean: Union[Num, UnsetType] = UNSET
    stdev: Union[Num, UnsetType] = UNSET
    cv: Union[Num, UnsetType] = UNSET
    ci95: Union[Pair, None, UnsetType] = UNSET
    ci95_of: Union[str, UnsetType] = UNSET
    ci95_resampled: Union[str, UnsetType] = UNSET
    groups: Union[int, UnsetType] = UNSET
    outliers: Union[int, UnsetType] = UNSET
    mde: Union[Num, UnsetType] = UNSET
    # widened by the drift (stats.drift): the interval before, and why
    ci95_within: Union[Pair, UnsetType] = UNSET
    drift_rel_sd: Union[Num, UnsetType] = UNSET
    ci95_for: Union[str, UnsetType] = UNSET
    # an effect over rounds (stats.power.effect)
    estimate_ns: Union[Num, UnsetType] = UNSET
    se_ns: Union[Num, UnsetType] = UNSET
    sd_ns: Union[Num, UnsetType] = UNSET
    mde_ns: Union[Num, UnsetType] = UNSET
    df: Union[int, None, UnsetType] = UNSET
    resolved: Union[bool, UnsetType] = UNSET
    below_mde: Union[bool, UnsetType] = UNSET
    method: Union[str, UnsetType] = UNSET
    rounds: Union[int, None, UnsetType] = UNSET
    ci95_simultaneous: Union[Pair, UnsetType] = UNSET

    def __post_init__(self):
        for name in ("ci95", "ci95_simultaneous", "ci95_within"):
            ci = getattr(self, name)
            if isinstance(ci, list) and len(ci) != 2:
                raise ValueError(f"{name} is not two numbers")


# A feature's optional members (absent: UNSET), as its record.py declares them
Str = Union[str, UnsetType]
Int = Union[int, UnsetType]
OptInt = Union[int, None, UnsetType]
OptNum = Union[Num, UnsetType]
Flag = Union[bool, UnsetType]
Strs = Union[list[str], UnsetType]
IntList = Union[list[int], UnsetType]
Obj = Union[dict[str, Json], UnsetType]
Objs = Union[list[dict[str, Json]], UnsetType]
