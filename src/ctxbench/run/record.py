"""ctxbench run's part of a results file: its section (registered in ctxbench/records.py)."""
from __future__ import annotations

from msgspec import UNSET

from ctxbench.core.results import Feature, Section
from ctxbench.core.results.base import Obj, Objs, Str, Strs


class Run(Section, frozen=True):
    ids: Strs = UNSET
    order: Str = UNSET
    drift: Obj = UNSET
    skipped: Objs = UNSET
    between_runs: Obj = UNSET
    # the host's state while it ran, against its best in the store (run/host.py), since issue 48
    host_state: Obj = UNSET


FEATURE = Feature("run", section=Run)
