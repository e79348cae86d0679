"""Core-clock readings around a harness's launch (issue 32; core/cycles.py).

The engine times its core-clock probe before every group's setup and after
its teardown. A language's harness is not the engine and cannot: the front
end takes readings with `ctxbench-engine probe --cpu <measured CPU>` just
before it starts a harness and just after the harness exits, and gives
each of that launch's records a `clock_probe` in the engine's shape, every
group of the launch with the same two readings. core/cycles.py then turns
the samples into core cycles unchanged, and rounds.merge keeps each
launch's readings with its own groups (model.relabel_groups).

A launch's clock is therefore coarser than a group's: one f for the whole
launch (a few seconds), the mean of the readings before and after it;
a launch whose clock moved between them by more than cycles.py allows is
counted in the clock record (`groups_moved`).

Only pinned launches are read: a default row can hand off to another CPU
(a cross-CPU wake-up, not paced by one core's clock), so it keeps ns only
(cycles.ns_only_reason: more than one CPU in params.cpus)."""
from __future__ import annotations

import math
import statistics
from typing import Sequence

from ctxbench.core.engine import Engine
from ctxbench.core.errors import UserError
from ctxbench.core.model import Result, with_members
from ctxbench.stats.numbers import finite_or_nan

READINGS = 3  # readings each side of a launch; their median (each is already the best of the probe's repetitions)
WHERE = ("ctxbench-engine probe on the measured CPU just before the harness started and just after it exited "
         f"(the median of {READINGS} readings each side): every group of one launch shares the launch's clock")


def read(eng: Engine, cpu: int, readings: int = READINGS) -> dict:
    """`readings` probe readings on `cpu` by the command's engine `eng`
    (the engine's clock_probe object: constants and per-reading arrays).
    A UserError (one line) when the engine cannot take them."""
    out = eng.run_json(["probe", "--cpu", str(cpu), "--iterations", str(readings)])
    probe = out.get("clock_probe") if isinstance(out, dict) else None
    if not (isinstance(probe, dict) and isinstance(probe.get("add_ns"), list) and probe["add_ns"]):
        raise UserError("ctxbench-engine probe printed no clock_probe readings", code=1)
    return probe




def _median(xs) -> float | None:
    v = [finite_or_nan(x) for x in xs or []]
    v = [x for x in v if math.isfinite(x) and x > 0]
    return statistics.median(v) if v else None


READING_ARRAYS = ("add_ns", "check_ns", "pmu_cycles_per_op")


def launch_record(before: dict, after: dict, groups: Sequence[int]) -> dict:
    """A `clock_probe` in the engine's shape (engine/src/core/harness.c
    probe_arrays) for one launch whose records measured `groups`: the
    probe's constants, and per group the launch's readings before and
    after (the median of each side's readings), the check chain's, the
    PMU's cycles per add (null where none was counted) and the CPU."""
    labels = sorted({int(g) for g in groups})
    k = len(labels)
    consts = {name: v for name, v in before.items() if name not in READING_ARRAYS and name != "cpu"}
    pmu = [x for x in (_median(before.get("pmu_cycles_per_op")), _median(after.get("pmu_cycles_per_op")))
           if x is not None]
    cpu = before.get("cpu") if isinstance(before.get("cpu"), int) else -1
    return dict(consts, taken=WHERE, group=labels,
                before_ns=[_median(before.get("add_ns"))] * k, after_ns=[_median(after.get("add_ns"))] * k,
                check_before_ns=[_median(before.get("check_ns"))] * k,
                check_after_ns=[_median(after.get("check_ns"))] * k,
                pmu_cycles_per_op=[statistics.mean(pmu) if len(pmu) == 2 else None] * k, cpu=[cpu] * k)


def attach(records: list[dict], before: dict | None, after: dict | None) -> list[dict]:
    """Each time-valued record (unit ns: hand-offs, spawns) of one launch
    with that launch's `clock_probe`; the records unchanged where either
    side's readings are missing (no cycles for them: cycles.NO_PROBE)."""
    if not before or not after:
        return records
    out = []
    for r in records:
        groups = Result(r).rounds
        if Result(r).unit == "ns" and groups:
            r = with_members(r, clock_probe=launch_record(before, after, groups))
        out.append(r)
    return out
