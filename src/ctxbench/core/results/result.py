"""A result's closed core: what the engine measured for one id (its
members, engine/src/core/harness.c emit: id, quantity, unit, doc, params,
timing, samples, group, raw, engine_summary, verify, clock_probe,
warnings, and settle, chunks, noise, counters, profile for the ids that
have them), what core/model.analyse derives from it (summary,
summary_all, verification, cycles, typed warnings), and the parts a
derived result (tasks' and irq's points) has instead of being analysed
again (core/schema.kind_of tells derived results by them). A feature's
own members (a sweep point's `indirect`, a runtimes row's `launches`)
are declared in its package and added by the registry (registry.py).

`params` and `raw` are typed maps: their names differ by kind
(core/schema.py declares which kind has which), so each param a result
holds is checked against the one type schema.PARAM_TYPES gives its name,
and raw holds per-sample numbers (and a harness's `source` text)."""
from __future__ import annotations

import re
from typing import Annotated, Union

from msgspec import UNSET, Meta, UnsetType

from ctxbench.core import schema
from ctxbench.core.results.base import Closed, Ints, Json, Open, Stats
from ctxbench.core.results.warnings import Warning

# numbers as the engine wrote them: ints stay ints (counts, ns), floats floats
Number = Union[int, float, None]
Numbers = list[Number]
# A measured number (a sample, a raw component, a switch count) is a
# 64-bit clock's or counter's reading, or a share of one: it lies in a
# signed 64-bit integer's range, -2^63 <= x < 2^63 (ns: 292 years), int or
# float alike (msgspec bounds ints only within int64, so this is the one
# bound both can say). A file with a larger one is damaged, and the
# analysis of it (means, sums of squares, the bootstrap, cycles) would
# overflow a float. NaN and infinities are not JSON and never measured.
MEASURABLE = 1 << 63
Measured = Union[Annotated[int, Meta(ge=-MEASURABLE, le=MEASURABLE - 1)],
                 Annotated[float, Meta(ge=-float(MEASURABLE), lt=float(MEASURABLE))], None]
Measurements = list[Measured]
# A rejected system call's round trip (the host's sensor: core/host_state.py)
# takes more than a nanosecond and less than a second on any machine the
# engine runs on; a reading outside is a damaged record's, and is not read
SENSOR_NS = (1.0, 1e9)
# A group (round) label is the engine's C int (harness.c); a larger one is
# damaged, and bounding it keeps every table indexed by group small.
GROUP_MAX = (1 << 31) - 1
Groups = list[Annotated[int, Meta(ge=-GROUP_MAX - 1, le=GROUP_MAX)]]
# `raw` and `verify` hold per-sample numbers; only `source` (who measured
# or counted them: "VmRSS of /proc/self/status") is text.
TEXT_MEMBER = "source"


class EngineSummary(Closed, frozen=True):
    """The engine's own short summary (the front end's is `summary`)."""
    n: Union[int, UnsetType] = UNSET
    min: Union[Number, UnsetType] = UNSET
    median: Union[Number, UnsetType] = UNSET
    mean: Union[Number, UnsetType] = UNSET


class Timing(Open, frozen=True):
    clock: Union[str, UnsetType] = UNSET
    cycle_hz: Union[Number, UnsetType] = UNSET
    cycle_counter: Union[str, None, UnsetType] = UNSET


class ClockProbe(Open, frozen=True):
    """The core-clock probe's constants and its readings per group
    (engine/src/core/clock_probe.h; runtimes' own probe: runtimes/probe.py)."""
    chain: Union[str, UnsetType] = UNSET
    ops: Union[int, UnsetType] = UNSET
    reps: Union[int, UnsetType] = UNSET
    check_chain: Union[str, UnsetType] = UNSET
    check_ops: Union[int, UnsetType] = UNSET
    check_reps: Union[int, UnsetType] = UNSET
    check_latency_cycles: Union[int, None, UnsetType] = UNSET  # null where the check chain's latency is not known (arm)
    walk_steps: Union[int, UnsetType] = UNSET
    pmu: Union[str, None, UnsetType] = UNSET
    timed_with: Union[str, UnsetType] = UNSET
    group: Union[Groups, UnsetType] = UNSET
    before_ns: Union[Numbers, UnsetType] = UNSET
    after_ns: Union[Numbers, UnsetType] = UNSET
    check_before_ns: Union[Numbers, UnsetType] = UNSET
    check_after_ns: Union[Numbers, UnsetType] = UNSET
    walk_before_ns: Union[Numbers, UnsetType] = UNSET
    walk_after_ns: Union[Numbers, UnsetType] = UNSET
    pmu_cycles_per_op: Union[Numbers, UnsetType] = UNSET
    cpu: Union[Numbers, UnsetType] = UNSET
    # the host's sensors beside the clock (engine/src/core/host_sensors.h; core/host_state.py), per
    # group before and after: files before issue 48 lack them
    sensors: Union[dict[str, Json], UnsetType] = UNSET
    syscall_before_ns: Union[Numbers, UnsetType] = UNSET
    syscall_after_ns: Union[Numbers, UnsetType] = UNSET
    steal_before_ms: Union[Numbers, UnsetType] = UNSET
    steal_after_ms: Union[Numbers, UnsetType] = UNSET
    own_total_before_ms: Union[Numbers, UnsetType] = UNSET
    own_total_after_ms: Union[Numbers, UnsetType] = UNSET
    others_busy_before_ms: Union[Numbers, UnsetType] = UNSET
    others_busy_after_ms: Union[Numbers, UnsetType] = UNSET
    others_total_before_ms: Union[Numbers, UnsetType] = UNSET
    others_total_after_ms: Union[Numbers, UnsetType] = UNSET


class Verification(Open, frozen=True):
    """core/verification.judge's record: whether the method's switches
    happened, which samples were dropped and why."""
    checked: Union[bool, UnsetType] = UNSET
    verdict: Union[str, UnsetType] = UNSET
    ok: Union[bool, None, UnsetType] = UNSET
    dropped: Union[int, UnsetType] = UNSET
    disturbed: Union[int, UnsetType] = UNSET
    failed: Union[int, UnsetType] = UNSET
    dropped_samples: Union[Ints, UnsetType] = UNSET
    reasons: Union[dict[str, int], UnsetType] = UNSET
    source: Union[str, None, UnsetType] = UNSET


class Cycles(Open, frozen=True):
    """The result in core cycles (core/cycles.py): whether they apply and
    why not, the method, the run's clock and the summary in cycles."""
    applies: bool
    why: Union[str, UnsetType] = UNSET
    unit: Union[str, UnsetType] = UNSET
    method: Union[str, UnsetType] = UNSET
    clock: Union[dict[str, Json], UnsetType] = UNSET
    summary: Union[Stats, UnsetType] = UNSET
    R_task: Union[Stats, UnsetType] = UNSET  # irq's points: R_task in cycles


class Result(Closed, frozen=True):
    id: str
    quantity: Union[str, UnsetType] = UNSET
    unit: Union[str, UnsetType] = UNSET
    doc: Union[str, UnsetType] = UNSET
    params: Union[dict[str, Json], UnsetType] = UNSET
    timing: Union[Timing, UnsetType] = UNSET
    samples: Union[Measurements, UnsetType] = UNSET
    group: Union[Groups, UnsetType] = UNSET
    # per-sample numbers; a runtime's harness also says where they came
    # from (`source`: "VmRSS of /proc/self/status") and may leave one null
    raw: Union[dict[str, Union[Measurements, str, None]], UnsetType] = UNSET
    engine_summary: Union[EngineSummary, UnsetType] = UNSET
    verify: Union[dict[str, Union[Measurements, str, None]], UnsetType] = UNSET
    clock_probe: Union[ClockProbe, UnsetType] = UNSET
    warnings: Union[list[Warning], UnsetType] = UNSET
    # analysed (core/model.analyse)
    summary: Union[Stats, UnsetType] = UNSET
    summary_all: Union[Stats, UnsetType] = UNSET
    verification: Union[Verification, UnsetType] = UNSET
    cycles: Union[Cycles, UnsetType] = UNSET
    # derived by a command's analysis (tasks, irq): stats records by name;
    # irq's I_pct (I as a share of R_task) is a plain number
    parts: Union[dict[str, Union[Stats, float, None]], UnsetType] = UNSET
    # the engine's records of some ids: the wait for a quiet CPU per group,
    # tasks' and irq's chunk timing (core/chunks.h), noise's gaps, perf
    # counters, kernel call chains
    settle: Union[dict[str, Json], UnsetType] = UNSET
    chunks: Union[dict[str, Json], UnsetType] = UNSET
    noise: Union[dict[str, Json], UnsetType] = UNSET
    counters: Union[dict[str, Json], UnsetType] = UNSET
    profile: Union[dict[str, Json], UnsetType] = UNSET

    def __post_init__(self):
        for name, v in (self.params or {}).items():
            types = schema.PARAM_TYPES.get(name)
            if types and not schema.fits(v, types):
                raise ValueError(f"params.{name} of '{self.id}' is {schema.type_of(v)}, not {schema.type_name(types)}")
            pattern = schema.PARAM_PATTERNS.get(name)
            if pattern and not re.fullmatch(pattern.regex, v):
                raise ValueError(f"params.{name} of '{self.id}' is '{v}', not {pattern.what}")
        for member in ("raw", "verify"):
            for name, v in (getattr(self, member) or {}).items():
                if isinstance(v, str) and name != TEXT_MEMBER:
                    raise ValueError(f"{member}.{name} of '{self.id}' is a string, not per-sample numbers")
                if name == TEXT_MEMBER and not isinstance(v, (str, type(None))):  # who measured: text, as the schema says
                    raise ValueError(f"{member}.{name} of '{self.id}' is {schema.type_of(v)}, not text")
        for name, part in (self.parts or {}).items():
            if not isinstance(part, Stats) and name not in schema.NUMBER_PARTS:
                raise ValueError(f"parts.{name} is {schema.type_of(part)}, not an object in '{self.id}'")
