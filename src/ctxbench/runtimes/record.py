"""ctxbench runtimes' part of a results file: its section; a row's switch
kind, clock resolution, warm-up, contention, launches and the JVM's
flight recording (runtimes/analysis.py); and the document's record of
how a launch was judged disturbed and of the probes that failed.
Registered in ctxbench/records.py."""
from __future__ import annotations

from typing import Union

from msgspec import UNSET, UnsetType

from ctxbench.core.results import Closed, Feature, Section
from ctxbench.core.results.base import Json, Obj, Objs, OptInt, OptNum, Strs


class Runtimes(Section, frozen=True):
    placements: Strs = UNSET
    cpu: OptInt = UNSET
    cross_cpu: OptInt = UNSET
    runtimes: Obj = UNSET
    absent: Objs = UNSET
    skipped: Objs = UNSET
    rounds: OptInt = UNSET
    groups_per_round: Union[list[Json], UnsetType] = UNSET
    clock_probe: Union[str, None, UnsetType] = UNSET
    user_level_below: OptNum = UNSET


class Row(Closed, frozen=True):
    kernel: Obj = UNSET
    resolution: Obj = UNSET
    warmup: Obj = UNSET
    contention: Obj = UNSET
    launches: Obj = UNSET
    jfr: Obj = UNSET


class Members(Closed, frozen=True):
    contention: Obj = UNSET
    clock_probe_failures: Strs = UNSET


FEATURE = Feature("runtimes", section=Runtimes, result=Row, document=Members)
