"""ctxbench userbench's part of a results file: its section (registered in ctxbench/records.py)."""
from __future__ import annotations

from ctxbench.core.results import Feature, Section


class Userbench(Section, frozen=True):
    pass


FEATURE = Feature("userbench", section=Userbench)
