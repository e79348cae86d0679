"""Argument helpers shared by `ctxbench tasks` and `ctxbench irq`."""
from __future__ import annotations

import datetime
import os

from ctxbench.core.errors import UserError

TASKS = ("sort", "deflate", "aes", "crc")
# seed 000 Figure 2's panels (a)..(f)
ALL_PAIRS = ("sort+deflate", "sort+crc", "deflate+crc", "aes+crc", "aes+deflate", "aes+sort")
DEFAULT_PAIRS = ("sort+deflate", "aes+crc", "aes+deflate")


def int_list(spec: str, what: str, lo: int, hi: int) -> list[int]:
    """'1..99', '1,25,50', '1..10,50' -> sorted unique ints in [lo, hi]."""
    out: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if ".." in part:
                a, b = part.split("..", 1)
                a, b = int(a), int(b)
                if a > b:
                    raise ValueError
                out.update(range(a, b + 1))
            else:
                out.add(int(part))
        except ValueError:
            raise UserError(f"--{what}: expected numbers or ranges like 1..99, got '{part}'")
    if not out:
        raise UserError(f"--{what}: nothing given")
    bad = [x for x in out if not lo <= x <= hi]
    if bad:
        raise UserError(f"--{what}: {min(bad)} is outside {lo}..{hi}")
    return sorted(out)


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


def positive(name: str, v, kind=int):
    if v is not None and not v > 0:
        raise UserError(f"--{name} must be positive, got {v}")
    return v


def check_common(args) -> None:
    positive("repeat", args.repeat)
    if not 0.001 <= args.scale <= 1000:
        raise UserError(f"--scale must be from 0.001 to 1000, got {args.scale}")
    if args.cpu is not None and args.cpu < 0:
        raise UserError(f"--cpu must be a CPU number, got {args.cpu}")
    if args.plot and os.path.exists(args.plot) and not os.path.isdir(args.plot):
        raise UserError(f"--plot: '{args.plot}' exists and is not a directory")
    # the engine reads the scale from its environment (it inherits ours)
    os.environ["CTXBENCH_TASK_SCALE"] = repr(float(args.scale))


def default_output(kind: str) -> str:
    return f"ctxbench-{kind}-{datetime.datetime.now():%Y%m%d-%H%M%S}.json"
