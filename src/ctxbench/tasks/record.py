"""ctxbench tasks' part of a results file: its section, and a point's
spread of R' (tasks/analysis.py; its parts are the core's derived
result's); registered in ctxbench/records.py."""
from __future__ import annotations

from typing import Union

from msgspec import UNSET, UnsetType

from ctxbench.core.results import Closed, Feature, Section
from ctxbench.core.results.base import Flag, IntList, Obj, OptNum, Str, Strs


class Tasks(Section, frozen=True):
    pairs: Strs = UNSET
    switches: IntList = UNSET
    cold: Flag = UNSET
    scale: OptNum = UNSET
    budget_s: Union[float, None, UnsetType] = UNSET
    wall_s: OptNum = UNSET
    per_pair: Obj = UNSET
    max_cv: OptNum = UNSET
    C_from: Str = UNSET
    design: Str = UNSET


class TasksPoint(Closed, frozen=True):
    cv_R_prime: OptNum = UNSET


FEATURE = Feature("tasks", section=Tasks, result=TasksPoint)
