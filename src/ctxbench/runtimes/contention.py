"""Who else ran on a launch's CPUs (issue 32: what moves the runtimes' rows).

The engine waits for a quiet CPU before every group and drops a sample in
which another task was runnable (core/settle, verification). A language's
harness does neither, and another task on its one CPU moves a whole launch:
on the 2-vCPU guest this was built on, a test suite running beside it made
every user-level row of one launch 2-2.6x dearer, in ns and in core cycles
alike (the probe's best-of-repetitions reading times the clock, not a
share of the CPU), and that launch alone moved rows 20-34% between runs.

So the front end, around each harness launch:
- waits until the launch's CPUs are quiet (settle: other tasks below
  QUIET of them over a window), for at most SETTLE_MOST_S;
- counts what others took of them while the harness ran: the CPUs' busy
  time from /proc/stat (user, nice, system, irq, softirq, steal) less the
  harness's own CPU time (getrusage of the reaped child: every thread) and
  the front end's (where it may run there), over the launch's wall time
  times its CPUs;
- the command launches again a launch whose share is above QUIET, at most
  RELAUNCHES times, and keeps every launch's share in the record.

Tick-based accounting makes the share exact to a few ticks (4 ms at 250
Hz) over a launch of a second or more: well under QUIET."""
from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass
from typing import Sequence

QUIET = 0.05            # others' share of the launch's CPUs above which a launch is disturbed
RELAUNCHES = 2          # further launches tried for a disturbed one
SETTLE_WINDOW_S = 0.2   # the window settle() judges quiet over
SETTLE_MOST_S = 10.0    # and gives up after (the launch then runs, and is judged after)
_FIELDS = (0, 1, 2, 5, 6, 7)  # user nice system irq softirq steal (idle and iowait are not busy)
STAT = "/proc/stat"


def busy_s(cpus: Sequence[int]) -> float | None:
    """The CPUs' busy time so far (s), from /proc/stat; None where it
    cannot be read (not Linux, a CPU it does not list)."""
    want, got, total = set(cpus), set(), 0
    try:
        with open(STAT) as f:
            for line in f:
                name, *vals = line.split()
                if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in want:
                    total += sum(int(vals[i]) for i in _FIELDS if i < len(vals))
                    got.add(int(name[3:]))
    except (OSError, ValueError):
        return None
    return total / os.sysconf("SC_CLK_TCK") if got == want else None


def _self_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _children_s() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def settle(cpus: Sequence[int], quiet: float = QUIET, window_s: float = SETTLE_WINDOW_S,
           most_s: float = SETTLE_MOST_S) -> float:
    """Wait until others took at most `quiet` of `cpus` over one window;
    the seconds waited (most_s when they never were; 0 where /proc/stat
    cannot say)."""
    t0 = time.monotonic()
    while True:
        b0, s0, w0 = busy_s(cpus), _self_s(), time.monotonic()
        if b0 is None:
            return 0.0
        time.sleep(window_s)
        b1, s1, w1 = busy_s(cpus), _self_s(), time.monotonic()
        if b1 is None:
            return 0.0
        share = max(0.0, (b1 - b0) - (s1 - s0)) / ((w1 - w0) * len(cpus))
        if share <= quiet or w1 - t0 >= most_s:
            return w1 - t0


@dataclass
class Window:
    """Others' share of `cpus` over a launch: start() before the harness
    starts, stop() after it is reaped (its CPU time is then the
    children's)."""
    cpus: tuple[int, ...]
    front_end_there: bool = True  # the front end may run on these CPUs: its own CPU time is not others'
    _b0: float | None = None
    _c0: float = 0.0
    _s0: float = 0.0
    _w0: float = 0.0

    def start(self) -> "Window":
        self._b0, self._c0, self._s0, self._w0 = busy_s(self.cpus), _children_s(), _self_s(), time.monotonic()
        return self

    def stop(self) -> dict:
        b1, c1, s1, w1 = busy_s(self.cpus), _children_s(), _self_s(), time.monotonic()
        wall = w1 - self._w0
        if self._b0 is None or b1 is None or wall <= 0:
            return {"others_share": None, "why": "/proc/stat does not list these CPUs"}
        harness = c1 - self._c0
        mine = (s1 - self._s0) if self.front_end_there else 0.0
        others = max(0.0, (b1 - self._b0) - harness - mine)
        return {"others_share": others / (wall * len(self.cpus)), "wall_s": wall, "busy_s": b1 - self._b0,
                "harness_cpu_s": harness, "front_end_cpu_s": mine}


def disturbed(w: dict, quiet: float = QUIET) -> bool:
    share = w.get("others_share")
    return isinstance(share, float) and share > quiet
