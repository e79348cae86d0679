"""ctxbench noise's part of a results file: its section (registered in ctxbench/records.py)."""
from __future__ import annotations

from msgspec import UNSET

from ctxbench.core.results import Feature, Section
from ctxbench.core.results.base import OptInt, OptNum


class Noise(Section, frozen=True):
    cpu: OptInt = UNSET
    seconds: OptNum = UNSET


FEATURE = Feature("noise", section=Noise)
