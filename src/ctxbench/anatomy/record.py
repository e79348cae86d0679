"""ctxbench anatomy's part of a results file: its section (registered in ctxbench/records.py)."""
from __future__ import annotations

from typing import Union

from msgspec import UNSET, UnsetType

from ctxbench.core.results import Feature, Section
from ctxbench.core.results.base import Json, Obj, Objs, OptNum, Str


class Anatomy(Section, frozen=True):
    command: Str = UNSET
    mechanism: Str = UNSET
    rungs: Objs = UNSET
    order: Str = UNSET
    drift: Obj = UNSET
    parts: Objs = UNSET
    sum_check: Obj = UNSET
    cross_cpu: Union[dict[str, Json], None, UnsetType] = UNSET
    not_available: Objs = UNSET
    drift_rel_sd: OptNum = UNSET
    attribution: Obj = UNSET
    pcid: Union[bool, None, UnsetType] = UNSET


FEATURE = Feature("anatomy", section=Anatomy)
