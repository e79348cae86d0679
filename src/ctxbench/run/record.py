"""ctxbench run's part of a results file: its section (registered in ctxbench/records.py)."""
from __future__ import annotations

from typing import Annotated, Union

from msgspec import UNSET, Meta, UnsetType

from ctxbench.core.results import Feature, Section
from ctxbench.core.results.base import Obj, Objs, Open, Str, Strs
from ctxbench.core.results.result import SENSOR_NS

# What a kept host state's numbers can be (run/host.py): a reading a rejected
# system call can take, a share of time, a clock; beyond, the file is damaged
Ns = Union[Annotated[float, Meta(ge=SENSOR_NS[0], le=SENSOR_NS[1])], None, UnsetType]
Share = Union[Annotated[float, Meta(ge=0, le=1)], None, UnsetType]
Ghz = Union[Annotated[float, Meta(gt=0, lt=1000)], None, UnsetType]


class HostBest(Open, frozen=True):
    runs: Union[Annotated[int, Meta(ge=0)], UnsetType] = UNSET
    syscall_ns: Ns = UNSET
    ghz: Ghz = UNSET


class HostState(Open, frozen=True):
    """The host's state while the run ran, against its best in the store
    (run/host.py), since issue 48."""
    syscall_ns: Ns = UNSET
    steal_share: Share = UNSET
    others_busy_share: Share = UNSET
    readings: Union[Annotated[int, Meta(ge=0)], UnsetType] = UNSET
    ghz: Ghz = UNSET
    best: Union[HostBest, None, UnsetType] = UNSET
    # per sensor, how much slower than its best beyond the clock (-1: no time at all, 1e6: absurd)
    moved: Union[dict[str, Annotated[float, Meta(ge=-1, le=1e6)]], UnsetType] = UNSET
    clock_slower: Union[Annotated[float, Meta(ge=-1, le=1e6)], None, UnsetType] = UNSET
    said: Str = UNSET


class Run(Section, frozen=True):
    ids: Strs = UNSET
    order: Str = UNSET
    drift: Obj = UNSET
    skipped: Objs = UNSET
    between_runs: Obj = UNSET
    host_state: Union[HostState, UnsetType] = UNSET


FEATURE = Feature("run", section=Run)
