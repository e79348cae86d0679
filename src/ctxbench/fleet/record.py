"""ctxbench fleet's part of a results file: its record of the host a
document came from, beside the section of the command it ran there
(registered in ctxbench/records.py)."""
from __future__ import annotations

from typing import Union

from msgspec import UNSET, UnsetType

from ctxbench.core.results import Closed, Feature, Open
from ctxbench.core.results.base import OptInt, Str, Strs


class Fleet(Open, frozen=True):
    """The fleet's record of the host a document came from (ctxbench fleet)."""
    host: Str = UNSET
    address: Union[str, None, UnsetType] = UNSET
    arch: Union[str, None, UnsetType] = UNSET
    groups: Strs = UNSET
    cpu: OptInt = UNSET
    command: Strs = UNSET
    timings_s: Union[dict[str, float], UnsetType] = UNSET
    started: Union[str, None, UnsetType] = UNSET


class Members(Closed, frozen=True):
    fleet: Union[Fleet, UnsetType] = UNSET


FEATURE = Feature("fleet", document=Members)
