"""ctxbench peers' part of a results file: its section, and a peer's row's
ratio to ctxbench's matching part, round by round (peers/analysis.py);
registered in ctxbench/records.py."""
from __future__ import annotations

from msgspec import UNSET

from ctxbench.core.results import Closed, Feature, Section
from ctxbench.core.results.base import Obj, Objs, OptInt, OptNum


class Peers(Section, frozen=True):
    cpu: OptInt = UNSET
    cross_cpu: OptInt = UNSET
    rounds: OptInt = UNSET
    launch_s: OptNum = UNSET
    peers: Obj = UNSET
    absent: Objs = UNSET
    pilots: Objs = UNSET
    tolerance: OptNum = UNSET


class Row(Closed, frozen=True):
    comparison: Obj = UNSET


FEATURE = Feature("peers", section=Peers, result=Row)
