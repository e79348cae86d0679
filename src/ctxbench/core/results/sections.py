"""Each measuring command's own section of the document, named after the
command: what it was asked (preset, engine arguments, the grid), how it
ran (`started`, `housekeeping`: where the front end ran) and the records
of its own analysis. Sections are open records: the members a reader uses
are typed, and members of older files (tasks' and irq's `repeat`, from
before rounds) are kept in `extra`. Records only the command itself reads
back (a drift record, irq's fits) are typed maps. A command builds its
section as builtins; core/results.document makes it this record, and
model.Document.section hands the record out."""
from __future__ import annotations

from typing import Union

from msgspec import UNSET, UnsetType

from ctxbench.core.results.base import Json, Num, Open

Str = Union[str, UnsetType]
Int = Union[int, UnsetType]
OptInt = Union[int, None, UnsetType]
Obj = Union[dict[str, Json], UnsetType]
Objs = Union[list[dict[str, Json]], UnsetType]
Strs = Union[list[str], UnsetType]
Ints = Union[list[int], UnsetType]


class Section(Open, frozen=True):
    started: Union[str, None, UnsetType] = UNSET
    housekeeping: Obj = UNSET
    preset: Str = UNSET
    engine_args: Strs = UNSET


class Run(Section, frozen=True):
    ids: Strs = UNSET
    order: Str = UNSET
    drift: Obj = UNSET
    skipped: Objs = UNSET
    between_runs: Obj = UNSET


class Ring(Section, frozen=True):
    command: Str = UNSET
    parties: Ints = UNSET
    footprints: Ints = UNSET
    kinds: Strs = UNSET
    mechanisms: Strs = UNSET
    order: Str = UNSET
    drift: Obj = UNSET
    n2_check: Objs = UNSET
    settle: Obj = UNSET


class Sweep(Section, frozen=True):
    mechanisms: Objs = UNSET
    sizes: Ints = UNSET
    strides: Ints = UNSET
    plan: Obj = UNSET                  # strides_by_size: the grid (upgrade fills it for files before issue 22)
    settings: Obj = UNSET
    budget_s: Union[float, None, UnsetType] = UNSET
    pilot_rounds: OptInt = UNSET
    wall_s: Union[Num, UnsetType] = UNSET
    complete: Union[bool, UnsetType] = UNSET
    skipped: Union[list[Json], UnsetType] = UNSET
    mde_goal_fraction_of_direct: Union[Num, UnsetType] = UNSET
    mde_goal_fraction_of_work: Union[Num, UnsetType] = UNSET
    close_rounds: OptInt = UNSET
    rounds: Objs = UNSET
    stopped_at_deadline: OptInt = UNSET
    indirect_method: Str = UNSET
    stride0_check: Str = UNSET
    updated: Str = UNSET


class Tasks(Section, frozen=True):
    pairs: Strs = UNSET
    switches: Ints = UNSET
    cold: Union[bool, UnsetType] = UNSET
    scale: Union[Num, UnsetType] = UNSET
    budget_s: Union[float, None, UnsetType] = UNSET
    wall_s: Union[Num, UnsetType] = UNSET
    per_pair: Obj = UNSET
    max_cv: Union[Num, UnsetType] = UNSET
    C_from: Str = UNSET
    design: Str = UNSET


class Irq(Section, frozen=True):
    tasks: Strs = UNSET
    rates_hz: Ints = UNSET
    rounds: OptInt = UNSET
    budget_s: Union[float, None, UnsetType] = UNSET
    scale: Union[Num, UnsetType] = UNSET
    burn_ns: OptInt = UNSET
    plan: Str = UNSET
    D: Obj = UNSET
    D_check: Obj = UNSET
    control: Obj = UNSET
    per_task: Obj = UNSET
    self_check_failed: Union[list[Json], UnsetType] = UNSET
    shared_cpu: Obj = UNSET
    seconds: Union[Num, UnsetType] = UNSET


class Noise(Section, frozen=True):
    cpu: OptInt = UNSET
    seconds: Union[Num, UnsetType] = UNSET


class Anatomy(Section, frozen=True):
    command: Str = UNSET
    mechanism: Str = UNSET
    rungs: Objs = UNSET
    order: Str = UNSET
    drift: Obj = UNSET
    parts: Objs = UNSET
    sum_check: Obj = UNSET
    cross_cpu: Union[dict[str, Json], None, UnsetType] = UNSET
    not_available: Objs = UNSET
    drift_rel_sd: Union[Num, UnsetType] = UNSET
    attribution: Obj = UNSET
    pcid: Union[bool, None, UnsetType] = UNSET


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
    user_level_below: Union[Num, UnsetType] = UNSET


class Peers(Section, frozen=True):
    cpu: OptInt = UNSET
    cross_cpu: OptInt = UNSET
    rounds: OptInt = UNSET
    launch_s: Union[Num, UnsetType] = UNSET
    peers: Obj = UNSET
    absent: Objs = UNSET
    pilots: Objs = UNSET
    tolerance: Union[Num, UnsetType] = UNSET


class Userbench(Section, frozen=True):
    pass


class Fleet(Open, frozen=True):
    """The fleet's record of the host a document came from (ctxbench fleet)."""
    host: Str = UNSET
    address: Union[str, None, UnsetType] = UNSET
    arch: Union[str, None, UnsetType] = UNSET
    groups: Strs = UNSET
    cpu: OptInt = UNSET
    command: Strs = UNSET
    timings_s: Union[dict[str, float], UnsetType] = UNSET
    started: Union[str, None, UnsetType] = UNSET


# the section each command writes (core/schema.COMMANDS), by the command's name
BY_COMMAND: dict[str, type[Section]] = {"run": Run, "sweep": Sweep, "tasks": Tasks, "irq": Irq, "noise": Noise,
                                        "ring": Ring, "anatomy": Anatomy, "userbench": Userbench,
                                        "runtimes": Runtimes, "peers": Peers}
