"""ctxbench irq's part of a results file: its section (registered in ctxbench/records.py)."""
from __future__ import annotations

from typing import Union

from msgspec import UNSET, UnsetType

from ctxbench.core.results import Feature, Section
from ctxbench.core.results.base import IntList, Json, Obj, OptInt, OptNum, Str, Strs


class Irq(Section, frozen=True):
    tasks: Strs = UNSET
    rates_hz: IntList = UNSET
    rounds: OptInt = UNSET
    budget_s: Union[float, None, UnsetType] = UNSET
    scale: OptNum = UNSET
    burn_ns: OptInt = UNSET
    plan: Str = UNSET
    D: Obj = UNSET
    D_check: Obj = UNSET
    control: Obj = UNSET
    per_task: Obj = UNSET
    self_check_failed: Union[list[Json], UnsetType] = UNSET
    shared_cpu: Obj = UNSET
    seconds: OptNum = UNSET
    # the chunk design's per-interrupt costs (irq/chunked.py), null where no run timed chunks
    chunks: Union[dict[str, Json], None, UnsetType] = UNSET


FEATURE = Feature("irq", section=Irq)
