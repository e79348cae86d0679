"""What the host's state did between the two sides (issue 48;
docs/host-state.md): each sensor's change (core/host_state.py), and the
verdict on an id that changed as a sensor it follows did: "the host", not
"slower". Only where the two sides ran the same kernel, mitigations,
microcode and command line: a rejected system call's path is the kernel's
own, so on another kernel its change is the kernel's, the code under test.
Which ids follow which sensor is what the runs in docs/host-state.md found."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ctxbench.core import host_state
from ctxbench.core.model import Document

# The environment facts (compare/header._env_facts) under which a sensor's
# change is the host's: the same on both sides, or the sensor measured the
# code under test
SAME = ("kernel", "mitigations", "microcode", "kernel cmdline", "CPU")
# Which sensors each family of ids follows beyond the clock (docs/host-state.md:
# the kernel's switches with the system call's path, in cycles, r^2 0.71 over
# eight runs with and without a neighbour; on the AMD guest of issue 48 a
# system call 37% slower came with kernel switches 13-21% slower)
FOLLOWS = (("kernel/", ("syscall",)), ("baseline/syscall", ("syscall",)), ("user/ucontext", ("syscall",)))
# The clock (time per core cycle) moves every CPU-bound id judged in ns
CLOCK_MOVED = 0.03
CPU_BOUND = ("kernel/", "user/", "baseline/", "reference/")


@dataclass(frozen=True)
class HostChange:
    """Per sensor, new/base - 1 of the two sides' states; the clock's, as
    time per core cycle (nan where a side has none); `comparable`: whether
    a change is the host's (SAME held)."""
    changes: dict[str, float]
    comparable: bool
    clock: float = math.nan

    def moved(self) -> dict[str, float]:
        return {k: v for k, v in self.changes.items() if abs(v) >= host_state.MOVED}


def of_sides(base: list[dict], new: list[dict], differences: list[str]) -> HostChange | None:
    """The sensors' and the clock's change between the sides; None where
    a side has neither."""
    from ctxbench.core.store.between import doc_ghz
    sb, sn = (host_state.of_results([r for d in docs for r in Document(d).records]) for docs in (base, new))
    gb, gn = ([g for g in map(doc_ghz, docs) if g] for docs in (base, new))
    clock = (sum(gb) / len(gb)) / (sum(gn) / len(gn)) - 1 if gb and gn else math.nan
    if (sb is None or sn is None) and not math.isfinite(clock):
        return None
    ch = {k: sn.ns[k] / sb.ns[k] - 1 for k in host_state.NAMES
          if sb and sn and math.isfinite(sb.ns[k]) and math.isfinite(sn.ns[k]) and sb.ns[k] > 0}
    # facts unknown on a side (a file without them) are not the same: nothing is laid on the host
    known = all(Document(d).environment.kernel_release and Document(d).environment.cpu_model for d in base + new)
    return HostChange(ch, known and not any(d.split(":")[0] in SAME for d in differences), clock)


def follows(key: str) -> tuple[str, ...]:
    """The sensors an id follows (none: its verdict is never the host's)."""
    return next((s for prefix, s in FOLLOWS if key.startswith(prefix)), ())


def attributed(key: str, verdict: str, rel: float, host: HostChange | None, in_ns: bool = False) -> str:
    """The verdict, or "the host (...)" where an id that is slower (faster)
    follows a sensor that moved the same way on comparable sides, or, judged
    in ns (`in_ns`), a CPU-bound id whose change goes with the clock's."""
    if host is None or not host.comparable or verdict not in ("slower", "faster") or not math.isfinite(rel):
        return verdict
    alike = [f"{host_state.WHAT[k]} {v:+.0%}" for k, v in host.moved().items()
             if k in follows(key) and (v > 0) == (rel > 0)]
    if in_ns and key.startswith(CPU_BOUND) and abs(host.clock) >= CLOCK_MOVED and (host.clock > 0) == (rel > 0):
        alike.append(f"core clock {-host.clock / (1 + host.clock):+.0%}")
    return "the host (" + ", ".join(alike) + ")" if alike else verdict


def header_line(host: HostChange | None) -> str | None:
    """The sensors' change, for compare's header."""
    if host is None:
        return None
    said = ", ".join(f"{host_state.WHAT[k]} {v:+.1%}" for k, v in host.changes.items()) or "no sensors on a side"
    tail = ("" if host.comparable else "; the sides differ in kernel, mitigations, microcode, command line or CPU "
            "(or a side does not say): what moved there may be theirs, and no verdict is laid on the host")
    return f"host state new/base: {said}{tail}"
