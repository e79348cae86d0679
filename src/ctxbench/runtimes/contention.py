"""Who else ran beside a harness's launch (issue 32: what moves the
runtimes' rows).

The engine waits for a quiet CPU before every group and drops a sample in
which another task was runnable (core/settle, verification). A language's
harness does neither, and on the 2-vCPU guest this was built on, other
work moved whole launches in two ways, in ns and in core cycles alike (the
probe's best-of-repetitions reading times the clock, not a share of it):
- on the launch's own CPU: a test suite running beside a default run made
  every user-level row of one launch 2-2.6x dearer, and that one launch
  moved rows 20-34% between runs;
- on the other CPU: a loop in registers on CPU 0 made Go's pinned
  hand-offs on CPU 1 10-70% dearer in some launches (a hypervisor's
  neighbours or shared caches: the guest cannot say which), with no task
  of its own on CPU 1.

So the front end, around each harness launch:
- waits until the launch's CPU is quiet (others below QUIET of it) and
  the machine's other allowed CPUs too (below MACHINE_QUIET), for at most
  SETTLE_MOST_S;
- counts what others took while the harness ran: busy time from
  /proc/stat (user, nice, system, irq, softirq, steal) less the harness's
  own CPU time (getrusage of the reaped child: every thread) and the front
  end's, over the wall time times the CPUs, for the launch's CPUs
  (others_share) and for the rest (machine_share);
- the command launches a pinned launch again when either is above its
  limit, at most RELAUNCHES times, keeps the least disturbed, and keeps
  every launch's shares in the record; not when the wait before it gave
  up (steady load: another launch would wait as long and meet it again;
  `quiet_before` in the launch's record).

Tick-based accounting makes a share exact to a few ticks (4 ms at 250 Hz)
over a launch of a second or more: well under the limits. A quiet launch
can read a little below zero, and is kept as read."""
from __future__ import annotations

import resource
import time
from dataclasses import dataclass
from typing import Sequence

from ctxbench.core.cpu_busy import busy_s

# others' share of the launch's CPUs above which a launch is disturbed. Not lower: the share also holds the
# kernel's work for the harness in other contexts (freeing the stacks and memory of the threads a launch that
# measures spawn and memory made: 2-9% of such a launch here, 0-2% for the others), where another task on the
# CPU took 25-50% in the launches it moved
QUIET = 0.10
MACHINE_QUIET = 0.20    # others' share of the machine's other CPUs above which a pinned launch is disturbed
RELAUNCHES = 2          # further launches tried for a disturbed one
SETTLE_WINDOW_S = 0.2   # the window settle() judges quiet over
SETTLE_MOST_S = 10.0    # and gives up after (the launch then runs, and is judged after)
def _self_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _children_s() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _share(busy: float | None, less: float, wall: float, cpus: Sequence[int]) -> float | None:
    """Others' share as read: not clipped at 0. Busy time is counted in
    ticks and the CPU times to the microsecond, so a quiet launch reads a
    few ticks either side of 0; a share below 0 says how coarse the count
    was, where a 0 would claim an exact one."""
    if busy is None or wall <= 0 or not cpus:
        return None
    return (busy - less) / (wall * len(cpus))


def settle(cpus: Sequence[int], rest: Sequence[int] = (), quiet: float = QUIET, machine_quiet: float = MACHINE_QUIET,
           window_s: float = SETTLE_WINDOW_S, most_s: float = SETTLE_MOST_S) -> float:
    """Wait until others took at most `quiet` of `cpus` and at most
    `machine_quiet` of the machine's `rest` over one window (the front
    end's own time is not theirs); the seconds waited (most_s when they
    never were; 0 where /proc/stat cannot say)."""
    t0 = time.monotonic()
    while True:
        b0, r0, s0, w0 = busy_s(cpus), busy_s(rest) if rest else 0.0, _self_s(), time.monotonic()
        if b0 is None:
            return 0.0
        time.sleep(window_s)
        b1, r1, s1, w1 = busy_s(cpus), busy_s(rest) if rest else 0.0, _self_s(), time.monotonic()
        if b1 is None:
            return 0.0
        mine = s1 - s0
        here = _share(b1 - b0, mine, w1 - w0, cpus) or 0.0
        there = _share(r1 - r0, mine, w1 - w0, rest) if rest and r0 is not None and r1 is not None else None
        if (here <= quiet and (there is None or there <= machine_quiet)) or w1 - t0 >= most_s:
            return w1 - t0


@dataclass
class Window:
    """What others took over a launch: of its `cpus`, and of the machine's
    `rest` (the allowed CPUs it does not run on). start() before the
    harness starts, stop() after it is reaped (its CPU time is then the
    children's). `front_end_there`: the front end may run on the launch's
    CPUs (else it runs on the rest), so its own CPU time is taken out of
    the one or the other."""
    cpus: tuple[int, ...]
    front_end_there: bool = True
    rest: tuple[int, ...] = ()
    _b0: float | None = None
    _r0: float | None = None
    _c0: float = 0.0
    _s0: float = 0.0
    _w0: float = 0.0

    def start(self) -> "Window":
        self._b0, self._r0 = busy_s(self.cpus), busy_s(self.rest) if self.rest else None
        self._c0, self._s0, self._w0 = _children_s(), _self_s(), time.monotonic()
        return self

    def stop(self) -> dict:
        b1, r1 = busy_s(self.cpus), busy_s(self.rest) if self.rest else None
        c1, s1, w1 = _children_s(), _self_s(), time.monotonic()
        wall = w1 - self._w0
        if self._b0 is None or b1 is None or wall <= 0:
            return {"others_share": None, "machine_share": None, "why": "/proc/stat does not list these CPUs"}
        harness, mine = c1 - self._c0, s1 - self._s0
        out = {"others_share": _share(b1 - self._b0, harness + (mine if self.front_end_there else 0.0), wall,
                                      self.cpus),
               "machine_share": None, "wall_s": wall, "busy_s": b1 - self._b0, "harness_cpu_s": harness,
               "front_end_cpu_s": mine}
        if self._r0 is not None and r1 is not None:
            out["machine_share"] = _share(r1 - self._r0, 0.0 if self.front_end_there else mine, wall, self.rest)
        return out


def score(w: dict) -> float:
    """How disturbed a launch was: its worse share over its limit (above
    1: disturbed); 0 where nothing could be read."""
    parts = [w.get("others_share"), w.get("machine_share")]
    return max([x / lim for x, lim in zip(parts, (QUIET, MACHINE_QUIET)) if isinstance(x, float)], default=0.0)


def disturbed(w: dict) -> bool:
    return score(w) > 1
