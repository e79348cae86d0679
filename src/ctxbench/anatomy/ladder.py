"""The anatomy's ladder: configurations (rungs) that differ in one thing
each, and the parts of a switch their differences are (issue 12).

A rung is an engine id; a part is a difference between two rungs measured
in the same interleaved rounds (or, for the system calls, a rung's own
component). One table, so what is measured and what each difference means
are read in one place.

The chain (`chain=True`) is one hand-off of a process ping-pong on one
CPU, built up from its pieces:

    system calls' entry and exit   2 x baseline/syscall (send + receive)
    the mechanism's own work       t_single / n of the thread rung, less the above
    the calls between processes    t_single / n of the process rung - the thread's
    the switch, thread to thread   the thread rung (t_avg: wake-up, pick, switch)
    the address space              process - thread (t_avg: calls already out)

and its measured total is the process rung's hand-off, t_switch / 2n. The
calls get their own step because a process pair cannot make the thread
pair's calls: its futex words are process-shared (another hash key) and its
file table is not shared (no reference taken per fd lookup). The other
parts are what one more property adds to its reference (off the chain),
and the cross-CPU wake-up is a different quantity, shown apart."""
from __future__ import annotations

from dataclasses import dataclass

MECHANISMS = ("pipe", "futex")


@dataclass(frozen=True)
class Rung:
    name: str
    id: str             # engine id, {m} = the mechanism
    what: str
    optional: bool      # its setup may be refused here (a prctl, cgroups, a second CPU): probed first.
                        # FIFO and kernel sampling are not: they fall back and say so in the result
    test: bool = False  # hidden known-answer rung (tests only)

    def engine_id(self, mechanism: str) -> str:
        return self.id.format(m=mechanism)


@dataclass(frozen=True)
class Part:
    """factor * rung's series - ref_factor * reference's series, per round;
    a series is a rung's per-switch cost (t_avg, its samples) or its
    mechanism's calls per hand-off without a switch (t_single / n)."""
    name: str
    rung: str          # the treatment rung
    reference: str     # what it is measured against ("" for none)
    what: str
    chain: bool = False
    component: str = "t_avg"
    ref_component: str = "t_avg"
    factor: float = 1.0
    ref_factor: float = 1.0


RUNGS = (
    Rung("syscall", "baseline/syscall", "a bare system call (getpid)", False),
    Rung("thread", "kernel/thread/{m}/same-cpu", "two threads of one process on one CPU, SCHED_OTHER", False),
    Rung("process", "kernel/process/{m}/same-cpu", "two processes on one CPU", False),
    Rung("fpu", "kernel/thread/{m}/same-cpu/fpu",
         "threads that dirty the widest vector register state before every hand-off", False),
    Rung("fifo", "kernel/thread/{m}/same-cpu/fifo", "threads under SCHED_FIFO", False),
    Rung("ibpb", "kernel/process/{m}/same-cpu/ibpb",
         "processes with indirect-branch speculation disabled by prctl (IBPB on switch)", True),
    Rung("ssbd", "kernel/process/{m}/same-cpu/ssbd",
         "processes with speculative store bypass disabled by prctl", True),
    Rung("l1d-flush", "kernel/process/{m}/same-cpu/l1d-flush", "processes with L1D flush on switch by prctl", True),
    Rung("cgroup-same", "kernel/process/{m}/same-cpu/cgroup-same", "both processes in one new cgroup", True),
    Rung("cgroup-split", "kernel/process/{m}/same-cpu/cgroup-split", "each process in its own new cgroup", True),
    Rung("profiled", "kernel/thread/{m}/same-cpu/profiled",
         "the thread rung sampled by the cpu-clock event (in-kernel attribution)", False),
    Rung("cross-cpu", "kernel/thread/{m}/cross-cpu", "threads on two CPUs: a wake-up latency, not a switch", True),
    Rung("test-busy", "test/anatomy/thread/pipe/busy-5000",
         "test only: the thread pipe rung with 5000 ns of busy work per switch", False, test=True),
)
BY_NAME = {r.name: r for r in RUNGS}

PARTS = (
    Part("system calls: entry and exit", "syscall", "",
         "two bare system calls per hand-off (a send and a receive)", chain=True, factor=2.0),
    Part("the mechanism's send and receive", "thread", "syscall",
         "t_single per hand-off (send and receive without a switch) less the two bare calls", chain=True,
         component="t_single", ref_factor=2.0),
    Part("the calls between processes", "process", "thread",
         "the same calls made by two processes instead of two threads (process-shared futex words; a file "
         "table that is not shared)", chain=True, component="t_single", ref_component="t_single"),
    Part("the switch, thread to thread", "thread", "",
         "the direct cost of a same-CPU thread switch: wake-up, the scheduler's pick, the switch itself",
         chain=True),
    Part("address space (process - thread)", "process", "thread",
         "switch_mm: a change of page tables (and of PCID/ASID where used)", chain=True),
    Part("vector register state", "fpu", "thread", "saving and restoring the dirtied FPU/vector state"),
    Part("SCHED_FIFO - SCHED_OTHER", "fifo", "thread", "the real-time class's path against the fair class's"),
    Part("IBPB on switch", "ibpb", "process", "an indirect-branch predictor barrier at every change of address space"),
    Part("SSBD", "ssbd", "process", "speculative store bypass disabled for the parties"),
    Part("L1D flush on switch", "l1d-flush", "process", "the L1 data cache flushed when a party is switched out"),
    Part("cgroups (two - one)", "cgroup-split", "cgroup-same", "the parties in two cgroups rather than one"),
    Part("test: injected busy work", "test-busy", "thread", "known answer: 5000 ns per switch"),
)

DEFAULT = tuple(r.name for r in RUNGS if not r.test)
