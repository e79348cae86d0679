"""ctxbench ring's part of a results file: its section, and a ring point's
difference from the ping-pong (ring/analysis.py); registered in
ctxbench/records.py."""
from __future__ import annotations

from typing import Union

from msgspec import UNSET, UnsetType

from ctxbench.core.results import Closed, Feature, Section, Stats
from ctxbench.core.results.base import IntList, Obj, Objs, Str, Strs


class Ring(Section, frozen=True):
    command: Str = UNSET
    parties: IntList = UNSET
    footprints: IntList = UNSET
    kinds: Strs = UNSET
    mechanisms: Strs = UNSET
    order: Str = UNSET
    drift: Obj = UNSET
    n2_check: Objs = UNSET
    settle: Obj = UNSET


class RingPoint(Closed, frozen=True):
    above_pingpong: Union[Stats, UnsetType] = UNSET


FEATURE = Feature("ring", section=Ring, result=RingPoint)
