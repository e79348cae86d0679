"""How long CPUs were busy, from /proc/stat: what else ran beside a
runtime's harness (runtimes/contention.py). A peer's CPUs are read by the
engine's launcher on the machine it runs on (engine/src/cli/exec.c)."""
from __future__ import annotations

import os
from typing import Sequence

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
