"""The clock of the commands that plan by elapsed time (a budget: sweep,
tasks, irq): time.monotonic(), recorded and replayed beside the engine's
answers (core/transports.py, docs/testing.md).

A replayed engine answers at once, so a plan made from the time its pilot
took (rounds that fit the budget, a deadline per engine process) would ask
for other engine commands than those recorded. With
CTXBENCH_CLOCK_RECORD=<file> every reading is appended to the file (each
command of a test adds its own, in order); with CTXBENCH_CLOCK_REPLAY=<file>
the readings come back in that order, so the command decides as the
recorded run did. Past the last recorded reading, or with no file, time
runs on from there. Each command's engine context holds its clock
(core/engine.Engine.clock) and saves what it recorded when it closes."""
from __future__ import annotations

import gzip
import json
import os
import time
from pathlib import Path

from ctxbench.core.errors import UserError, shown
from ctxbench.stats.numbers import is_finite


def _readings(path: str) -> list[float]:
    """A recorded clock's readings (gzip'd JSON: a list of numbers), [] with
    no file; one line for anything else (a test's variable pointing at the
    wrong file printed a traceback)."""
    p = Path(path)
    if not p.is_file():
        return []
    try:
        got = json.loads(gzip.decompress(p.read_bytes()))
    except (OSError, EOFError, ValueError) as e:  # not gzip, truncated, not JSON, unreadable
        raise UserError(f"CTXBENCH_CLOCK_REPLAY {shown(path)}: not a recorded clock ({type(e).__name__}: {e})")
    if not isinstance(got, list) or not all(is_finite(x) for x in got):
        raise UserError(f"CTXBENCH_CLOCK_REPLAY {shown(path)}: not a recorded clock (a list of numbers)")
    return [float(x) for x in got]


class Clock:
    """One command's clock (its engine context's: core/engine.Engine.clock),
    replaying or recording as the environment said when it was made."""

    def __init__(self, replay: str | None = None, record: str | None = None):
        self.replay, self.record = replay, record
        self._readings: list[float] | None = None  # the replayed ones, read on the first reading
        self._next = 0
        self._ran_out: tuple[float, float] | None = None  # (monotonic, last reading) once they ran out
        self._recorded: list[float] = []  # this command's readings, appended to `record` by save()

    @classmethod
    def from_environment(cls) -> "Clock":
        return cls(os.environ.get("CTXBENCH_CLOCK_REPLAY") or None, os.environ.get("CTXBENCH_CLOCK_RECORD") or None)

    def now(self) -> float:
        """Monotonic seconds (replayed, or recorded)."""
        if self.replay:
            return self._replayed()
        t = time.monotonic()
        if self.record:
            self._recorded.append(t)
        return t

    def _replayed(self) -> float:
        if self._readings is None:
            self._readings = _readings(self.replay)
        if self._next < len(self._readings):
            self._next += 1
            return self._readings[self._next - 1]
        if self._ran_out is None:
            self._ran_out = (time.monotonic(), self._readings[-1] if self._readings else time.monotonic())
        t0, last = self._ran_out
        return last + time.monotonic() - t0

    def save(self) -> None:
        """Append this command's readings to the record file (at its end: one write)."""
        if not (self.record and self._recorded):
            return
        p = Path(self.record)
        old = json.loads(gzip.decompress(p.read_bytes())) if p.is_file() else []
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(gzip.compress(json.dumps(old + self._recorded).encode(), mtime=0))
        self._recorded = []

