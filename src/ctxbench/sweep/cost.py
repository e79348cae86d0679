"""What one round of a sweep point costs (seconds) before it is measured
(issue 22): the default grid is fitted to the budget with it (fit.py), and
a point not yet measured is planned with it (steps/state.py). Once a point has
a round of its own, its measured cost replaces the model.

One round of a point is one engine job (engine/src/core/harness.c): a
setup and the calibration of n, then a setup again, a warm-up sample and
`iterations` samples. A sample (engine/src/kernel/pingpong.c) is an
untimed pass, the single run (n passes) and the switching run (2n passes
of the two parties, at least --min-sample-us long), so

    round = FIXED_S + (iterations + 3) * (pass + single + switching)
            + 4 * size * SETUP_NS_PER_BYTE
    switching = max(min_sample, 2 * pass of both),  single = n * pass alone

(+3: the warm-up sample and about two of calibration; 4 * size: both
parties' arrays zeroed and faulted in, twice). A pass touches every element
(size / 8) once, `stride` bytes apart: ELEM_NS per touch, plus the share of
touches that land on a new cache line (min(stride, 64) / 64) times the cost
of a line from where the arrays in use fit (LINE_NS): one party's in the
single run, both parties' in the switching run.

The constants are this project's 2-vCPU AMD EPYC KVM guest (1K-64M points,
--iterations 5, 2 ms samples): a round of its default grid within 15% for
kernel/process/pipe and 35% above it for user/asm (no fork), one point
within a factor of two (8M:256, at the LLC share, costs twice the model;
32M points 0.5-0.8 of it). Another host differs; the sweep measures every
planned point once before the rest of its pilot and fits the grid again to
what that round cost (steps/pilot.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from ctxbench.core.model import Environment

FIXED_S = 0.010            # per job: the parties' start and teardown
SETUP_NS_PER_BYTE = 1.25   # zeroing and faulting in fresh pages (a KVM guest's page faults)
ELEM_NS = 0.7              # one increment of an element whose line is at hand
# One cache line fetched from: the L1d, the L2, the measured CPU's share of
# the LLC, memory (past that share, the line from memory at a stride of 256 B
# cost 10 ns, at 64 B 6-9 ns).
LINE_NS = {"L1": 0.0, "L2": 0.3, "LLC": 0.6, "memory": 10.0}
ELEM = 8
LINE = 64


@dataclass(frozen=True)
class Host:
    """The capacities a pass's cost depends on (bytes; None: not known)."""
    l1: int | None = None
    l2: int | None = None
    llc_share: int | None = None

    @classmethod
    def from_env(cls, env: dict) -> "Host":
        caches = [c for c in Environment(env).caches
                  if c.get("size") and c.get("type") != "instruction"]
        by = {}
        for c in caches:
            by.setdefault(c.get("level") or 0, []).append(c)
        l1 = min((c["size"] for c in by.get(1, [])), default=None)
        l2 = min((c["size"] for c in by.get(2, [])), default=None)
        top = max(by) if by else 0
        # the measured CPU's share of a shared LLC: the host's other CPUs use the rest
        llc = [c["size"] // max(c.get("shared_by_pus") or 1, 1) for c in by.get(top, [])] if top > 2 else []
        return cls(l1, l2, min(llc) if llc else None)

    def level(self, both: int) -> str:
        """Where both parties' arrays (`both` bytes) fit."""
        for name, cap in (("L1", self.l1), ("L2", self.l2), ("LLC", self.llc_share)):
            if cap and both <= cap:
                return name
        # nothing known past the L2: memory only past a typical LLC (plan.FALLBACK_MAX)
        if not self.llc_share and both <= 32 << 20:
            return "LLC"
        return "memory"


@dataclass(frozen=True)
class Model:
    host: Host
    iterations: int
    min_sample_us: int

    def pass_s(self, size: int, stride: int, working_set: int) -> float:
        """One pass over `size` bytes while `working_set` bytes are in use."""
        if not size or not stride:
            return 0.0
        per_elem = ELEM_NS + min(stride, LINE) / LINE * LINE_NS[self.host.level(working_set)]
        return size / ELEM * per_elem * 1e-9

    def round_s(self, bid: str, size: int, stride: int) -> float:
        """Seconds one round of the point takes (any mechanism: the samples'
        length, not the switch, sets it)."""
        alone, both = self.pass_s(size, stride, size), self.pass_s(size, stride, 2 * size)
        switching = max(self.min_sample_us * 1e-6, 2 * both)  # n round trips, n >= 1
        single = switching * alone / (2 * both) if both else switching / 2  # the same n, one party
        setup = 4 * size * SETUP_NS_PER_BYTE * 1e-9 if stride else 0.0
        return FIXED_S + (self.iterations + 3) * (alone + single + switching) + setup

    def describe(self) -> dict:
        """What the results file records about the model the plan used."""
        return {"fixed_s": FIXED_S, "setup_ns_per_byte": SETUP_NS_PER_BYTE, "elem_ns": ELEM_NS,
                "line_ns": dict(LINE_NS), "host": {"l1": self.host.l1, "l2": self.host.l2,
                                                   "llc_share": self.host.llc_share},
                "iterations": self.iterations, "min_sample_us": self.min_sample_us}
