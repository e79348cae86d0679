"""The engine's task workloads: what `ctxbench tasks` pairs and `ctxbench irq`
interrupts, and parsing of their names."""
from __future__ import annotations

from ctxbench.core.errors import UserError

TASKS = ("sort", "deflate", "aes", "crc")
# David et al. 2007 Figure 2's panels (a)..(f)
ALL_PAIRS = ("sort+deflate", "sort+crc", "deflate+crc", "aes+crc", "aes+deflate", "aes+sort")
DEFAULT_PAIRS = ("sort+deflate", "aes+crc", "aes+deflate")


def pairs(spec: str | None) -> list[str]:
    if not spec:
        return list(DEFAULT_PAIRS)
    if spec.strip() == "all":
        return list(ALL_PAIRS)
    out = []
    for p in spec.split(","):
        p = p.strip()
        ab = p.split("+")
        if len(ab) != 2 or ab[0] not in TASKS or ab[1] not in TASKS:
            raise UserError(f"--pair: '{p}' is not two of {', '.join(TASKS)} joined by '+' (or 'all')")
        if ab[0] == ab[1]:
            raise UserError(f"--pair: '{p}' pairs a task with itself; pick two different tasks")
        if p not in out:
            out.append(p)
    return out


def tasks(spec: str | None) -> list[str]:
    if not spec or spec.strip() == "all":
        return list(TASKS)
    out = []
    for t in spec.split(","):
        t = t.strip()
        if t not in TASKS:
            raise UserError(f"--task: unknown task '{t}' (tasks: {', '.join(TASKS)}, or 'all')")
        if t not in out:
            out.append(t)
    return out
