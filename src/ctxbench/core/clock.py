"""The clock of the commands that plan by elapsed time (a budget: sweep,
tasks, irq): time.monotonic(), recorded and replayed beside the engine's
answers (core/transports.py, docs/testing.md).

A replayed engine answers at once, so a plan made from the time its pilot
took (rounds that fit the budget, a deadline per engine process) would ask
for other engine commands than those recorded. With
CTXBENCH_CLOCK_RECORD=<file> every reading is appended to the file (each
process of a test adds its own, in order); with CTXBENCH_CLOCK_REPLAY=<file>
the readings come back in that order, so the command decides as the
recorded run did. Past the last recorded reading, or with no file, time
runs on from there."""
from __future__ import annotations

import atexit
import gzip
import json
import os
import time
from pathlib import Path

_replay: dict = {}  # file -> {"readings": [...], "next": n, "ran_out": (monotonic, reading) or None}
_recorded: dict[str, list[float]] = {}  # file -> readings of this process, written at its exit


def now() -> float:
    """Monotonic seconds (replayed or recorded as the environment says)."""
    replay = os.environ.get("CTXBENCH_CLOCK_REPLAY")
    if replay:
        return _replayed(replay)
    t = time.monotonic()
    record = os.environ.get("CTXBENCH_CLOCK_RECORD")
    if record:
        if record not in _recorded:
            _recorded[record] = []
            if len(_recorded) == 1:
                atexit.register(save)
        _recorded[record].append(t)
    return t


def _replayed(path: str) -> float:
    st = _replay.get(path)
    if st is None:
        p = Path(path)
        readings = json.loads(gzip.decompress(p.read_bytes())) if p.is_file() else []
        st = _replay[path] = {"readings": readings, "next": 0, "ran_out": None}
    if st["next"] < len(st["readings"]):
        st["next"] += 1
        return st["readings"][st["next"] - 1]
    if st["ran_out"] is None:
        st["ran_out"] = (time.monotonic(), st["readings"][-1] if st["readings"] else time.monotonic())
    t0, last = st["ran_out"]
    return last + time.monotonic() - t0


def forget() -> None:
    """Replay from the first reading again (a test that runs commands in-process)."""
    _replay.clear()


def save() -> None:
    """Append this process's readings to their files (at exit: one write)."""
    for path, readings in _recorded.items():
        p = Path(path)
        old = json.loads(gzip.decompress(p.read_bytes())) if p.is_file() else []
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(gzip.compress(json.dumps(old + readings).encode(), mtime=0))
    _recorded.clear()
