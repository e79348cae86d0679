"""Whether the memory a run will touch can be had, asked before measuring.

The engine locks its memory (mlockall: no page faults inside a timed
loop), so a footprint larger than the machine can give is not paged out:
its mapping fails mid-run, or the kernel's OOM killer ends the engine and
everything measured before it. A sweep to 512 MiB per party or a ring of
128 parties x 1 GiB is refused here instead, in one line that names the
limit it meets:

- MemAvailable (/proc/meminfo): the kernel's estimate of what can be had
  without swapping, for everything the run keeps resident at once;
- RLIMIT_AS (`ulimit -v`): one process's address space, for what one
  engine process maps (every party of a thread ring is in one);
- the cgroup's memory.max (v2) minus what it already holds.

Only what the footprints themselves need is counted (the engine's own
code, stacks and buffers come on top and are not guessed at), so a
refusal here is certain; a point that passes may still fail in the
engine, which then says so for that id and keeps the others."""
from __future__ import annotations

import os
import resource
from dataclasses import dataclass

from ctxbench.core.errors import UserError


@dataclass(frozen=True)
class Need:
    resident: int       # bytes held at once over every process of the point
    per_process: int    # bytes the largest single process maps
    what: str           # the point, as the user gave it ("32 parties x 1 GiB")


def gib(b: float) -> str:
    return f"{b / (1 << 30):.2f} GiB" if b >= 1 << 30 else f"{b / (1 << 20):.0f} MiB"


def mem_available(meminfo: str = "/proc/meminfo") -> int | None:
    try:
        with open(meminfo) as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def address_space_limit() -> int | None:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def cgroup_room(root: str = "/sys/fs/cgroup", self_cgroup: str = "/proc/self/cgroup") -> int | None:
    """memory.max - memory.current of this process's cgroup (v2), None when
    unlimited or not known."""
    try:
        with open(self_cgroup) as f:
            path = next((line.split(":", 2)[2].strip() for line in f if line.startswith("0::")), None)
        if path is None:
            return None
        base = os.path.join(root, path.lstrip("/"))
        with open(os.path.join(base, "memory.max")) as f:
            limit = f.read().strip()
        if limit == "max":
            return None
        with open(os.path.join(base, "memory.current")) as f:
            return int(limit) - int(f.read().strip())
    except (OSError, ValueError, IndexError):
        return None


def host_facts(eng) -> tuple[int | None, int | None, int | None, str]:
    """(MemAvailable, RLIMIT_AS, cgroup room, where) of the machine the
    engine `eng` (core/engine.Engine) runs on: this one, read here; with
    --host, that host's, from its engine's environment record
    (engine/src/env/env.c)."""
    host = eng.remote()
    if host is None:
        return mem_available(), address_space_limit(), cgroup_room(), ""
    from ctxbench.core import model
    env = model.Document(eng.host_environment()).environment
    facts = [v if isinstance(v, int) else None for v in (env.mem_available, env.rlimit_as, env.cgroup_memory_room)]
    return facts[0], facts[1], facts[2], f" on {host.host.name}"


def check(needs: list[Need], command: str, hint: str, available: int | None = None,
          as_limit: int | None = None, cgroup: int | None = None, eng=None) -> None:
    """Refuse (UserError, exit 2) before measuring when the largest point
    cannot fit; with `eng` (the command's core/engine.Engine), `available`,
    `as_limit` and `cgroup` are those of the machine it runs on (tests
    pass their own, and no engine)."""
    if not needs:
        return
    where = ""
    if eng is not None:
        available, as_limit, cgroup, where = host_facts(eng)
    top = max(needs, key=lambda n: n.resident)
    big = max(needs, key=lambda n: n.per_process)
    limits = [(available, top, top.resident, "of memory held at once (locked), {have} is available (MemAvailable)"),
              (cgroup, top, top.resident, "of memory held at once (locked), {have} is left under this cgroup's "
               "memory.max"),
              (as_limit, big, big.per_process, "of address space in one process, ulimit -v allows {have}")]
    for have, need, size, says in limits:
        if have is not None and size > have:
            raise UserError(f"{command}: {need.what} needs at least {gib(size)} "
                            + says.format(have=gib(max(have, 0))) + f"{where}: {hint}")
