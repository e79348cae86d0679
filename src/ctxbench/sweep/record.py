"""ctxbench sweep's part of a results file: its section, and a point's
indirect cost, its n per sample (calibrated anew every round) and what
each of its rounds took (sweep/rounds.py, sweep/analysis.py); registered
in ctxbench/records.py."""
from __future__ import annotations

from typing import Union

from msgspec import UNSET, UnsetType

from ctxbench.core.results import Closed, Feature, Section, Stats
from ctxbench.core.results.base import Flag, IntList, Json, Obj, Objs, OptInt, OptNum, Str


class Sweep(Section, frozen=True):
    mechanisms: Objs = UNSET
    sizes: IntList = UNSET
    strides: IntList = UNSET
    plan: Obj = UNSET                  # strides_by_size: the grid (upgrade fills it for files before issue 22)
    settings: Obj = UNSET
    budget_s: Union[float, None, UnsetType] = UNSET
    pilot_rounds: OptInt = UNSET
    wall_s: OptNum = UNSET
    complete: Flag = UNSET
    skipped: Union[list[Json], UnsetType] = UNSET
    mde_goal_fraction_of_direct: OptNum = UNSET
    mde_goal_fraction_of_work: OptNum = UNSET
    close_rounds: OptInt = UNSET
    rounds: Objs = UNSET
    stopped_at_deadline: OptInt = UNSET
    indirect_method: Str = UNSET
    stride0_check: Str = UNSET
    updated: Str = UNSET


class SweepPoint(Closed, frozen=True):
    indirect: Union[Stats, None, UnsetType] = UNSET
    sample_n: Union[list[Union[int, None]], UnsetType] = UNSET
    round_cost_s: Union[list[float], UnsetType] = UNSET


FEATURE = Feature("sweep", section=Sweep, result=SweepPoint)
