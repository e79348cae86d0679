"""The peers: what each tool's operation contains, and which of ctxbench's
quantities it is set beside (docs/peers.md).

A peer's number is per its own operation. Its `contents` say what one
operation holds (switches, system calls, wake-ups, on one CPU or two), from
the tool's source; the run checks the switches against the peer's own
context-switch counts (getrusage of its process tree). `units` turns the
peer's number into ctxbench's unit (per hand-off, per switch, per call):
converted = per_op / units. Each placement then names

- `match`: the part of a ctxbench id that is the same quantity
  (parts.py names them: kernel/process/pipe/same-cpu's hand-off
  t_switch/2n, its direct cost, its pipe's write and read, ...);
- `predict`: the converted number rebuilt from parts ctxbench measured in
  the same round, where the two differ by what the peer adds or leaves
  out (stress-ng's op has one write and one read for two switches, so its
  per-switch figure is the direct switch plus half a pipe's calls).

Unpinned placements are the peer as its documentation runs it, on every
allowed CPU: two parties then hand off across CPUs, and the row is a
cross-CPU wake-up, labelled so and set beside ctxbench's cross-cpu ids
only, never beside a same-CPU switch cost."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ctxbench.peers import parsers

PINNED, UNPINNED = "pinned", "unpinned"
PLACEMENTS = (PINNED, UNPINNED)

# What a row of a placement is, by what its parties did (the table's sections)
SAME_CPU = "same-CPU switch"
CROSS_CPU = "cross-CPU wake-up (not a switch cost)"
ONE_THREAD = "one thread (no hand-off between tasks)"
THROUGHPUT = "throughput of many tasks (not a per-switch cost)"

SYSBENCH_YIELDS = 1000  # sysbench's own default --thread-yields, given explicitly so that the record says it


@dataclass(frozen=True)
class View:
    """How one placement of a peer is read."""
    label: str                                   # SAME_CPU, CROSS_CPU, ...
    match: str | None                            # the part of a ctxbench id that measures the same thing
    predict: tuple[tuple[float, str], ...] = ()  # sum of coefficient x part (per converted unit); the
                                                 # match alone where the op adds nothing to it
    switches_per_op: float | None = None         # what the contents imply (checked against rusage)
    why: str = ""                                # where converted and match differ, by which part
    switch_parts: tuple[tuple[float, str], ...] = ()  # per measured switch per op (hackbench): x switches
    scale_only: bool = False                     # no ctxbench equivalent: the match is shown for scale, not judged
    placement_seen: bool = True                  # the launch is its ping-pong alone, so where it ran shows in
                                                 # each CPU's busy time (not lat_ctx: it also times a pipe alone)


@dataclass(frozen=True)
class Peer:
    key: str                                     # the id: peers/<key>/<placement>
    title: str
    tool: str                                    # program on PATH; "" = ctxbench's engine
    package: str                                 # the Debian package that brings it ("" none)
    version_argv: tuple[str, ...]                # appended to the program
    argv: Callable[[str, int, int], list[str]] | None  # (program, count, cpu) -> argv; None: an engine id
    parse: Callable[[str], parsers.Parsed]
    op: str                                      # one operation of the peer's number
    contents: dict                               # switches, system calls, wake-ups per op
    units: float                                 # converted = per_op / units
    unit: str                                    # what converted is per
    pilot: int                                   # the first count tried (sized from it after)
    views: dict = field(default_factory=dict)    # placement -> View
    engine_id: str = ""                          # ctxbench's own equivalent: this engine id, through the seam
    ops_of_count: Callable[[int], int] | None = None  # the operations a count asks for (its output must say so)
    says: dict = field(default_factory=dict)     # what its output must say it ran (parsers' extra)

    def ops(self, count: int) -> int | None:
        return self.ops_of_count(count) if self.ops_of_count else None


def _perf(tasks: str) -> Callable[[str, int, int], list[str]]:
    return lambda prog, count, cpu: [prog, "bench", "sched", "pipe", "-l", str(count)] + (
        ["-T"] if tasks == "thread" else [])


def _stress_switch(prog: str, count: int, cpu: int) -> list[str]:
    return [prog, "--switch", "1", "--switch-ops", str(count), "--metrics", "--timeout", "60"]


def _stress_context(prog: str, count: int, cpu: int) -> list[str]:
    return [prog, "--context", "1", "--context-ops", str(count), "--metrics", "--timeout", "60"]


def _hackbench(prog: str, count: int, cpu: int) -> list[str]:
    # every count given, hackbench's default fds too: ops_of_count below is 2 groups x 20^2 x loops
    return [prog, "--pipe", "--groups", "2", "--fds", "20", "--loops", str(count), "--datasize", "100"]


def _sysbench(prog: str, count: int, cpu: int) -> list[str]:
    return [prog, "threads", "--threads=2", f"--thread-yields={SYSBENCH_YIELDS}", "--thread-locks=8",
            f"--events={count}", "--time=0", "run"]


def _lat_ctx(prog: str, count: int, cpu: int) -> list[str]:
    # -N 1: one repetition a launch. lmbench's default keeps the median of 11 (TRIES), which took up to 7 s a
    # launch on a 2-vCPU guest; ctxbench's rounds are the repetitions here
    return [prog, "-N", "1", "-s", "0", "2"]


def _perf_peer(tasks: str) -> Peer:
    part = "process" if tasks == "process" else "thread"
    return Peer(
        f"perf-sched-pipe/{tasks}", f"perf bench sched pipe ({tasks}{'es' if tasks == 'process' else 's'})", "perf",
        "linux-perf", ("--version",), _perf(tasks), parsers.perf_sched_pipe,
        "a round trip: each task writes one int to a pipe and reads one from the other",
        {"hand-offs": 2, "switches": 2, "system calls": "2 write + 2 read", "wake-ups": 2}, 2, "hand-off", 20000,
        {PINNED: View(SAME_CPU, f"{part}.handoff", ((1, f"{part}.handoff"),), 2,
                      f"the same hand-off as ctxbench's kernel/{part}/pipe/same-cpu before it subtracts the pipe's "
                      f"write and read (t_switch/2n): its direct switch plus those calls"),
         UNPINNED: View(CROSS_CPU, f"{part}.x.handoff", ((1, f"{part}.x.handoff"),), None,
                        f"where the scheduler put the two tasks on two CPUs, a hand-off is a cross-CPU wake-up "
                        f"(kernel/{part}/pipe/cross-cpu, t_switch/2n)")},
        ops_of_count=lambda count: count, says={"tasks": "processes" if tasks == "process" else "threads"})


PEERS: tuple[Peer, ...] = (
    _perf_peer("process"),
    _perf_peer("thread"),
    Peer("stress-ng-switch", "stress-ng --switch (pipe method)", "stress-ng", "stress-ng", ("--version",),
         _stress_switch, parsers.stress_switch,
         "one write of one byte into a one-slot pipe (O_DIRECT) that the other process reads",
         {"switches": 2, "system calls": "1 write + 1 read", "wake-ups": 2}, 2, "switch", 50000,
         {PINNED: View(SAME_CPU, "process.direct", ((1, "process.direct"), (0.5, "process.single")), 2,
                       "stress-ng calls one op a context switch; it holds two switches, one write and one read "
                       "(perf bench's op holds two of each). Its number per switch is set beside ctxbench's "
                       "direct switch; from parts, two direct switches and one pipe write and read make one op"),
          UNPINNED: View(CROSS_CPU, "process.x.handoff", ((1, "process.x.handoff"), (-0.5, "process.single")), None,
                         "on two CPUs each op is two cross-CPU wake-ups with one write and one read: per wake-up, "
                         "ctxbench's cross-CPU hand-off less half a pipe's write and read")},
         ops_of_count=lambda count: count, says={"method": "pipe"}),
    Peer("stress-ng-context", "stress-ng --context (swapcontext)", "stress-ng", "stress-ng", ("--version",),
         _stress_context, parsers.stress_context,
         "one swapcontext between three contexts of one thread, timed with a clock read around it",
         {"user-level switches": 1, "system calls": "1 rt_sigprocmask (inside swapcontext)", "clock reads": 1},
         1, "swapcontext", 200,
         {PINNED: View(ONE_THREAD, "ucontext.direct", ((1, "ucontext.direct"), (1, "clock.read")), 0,
                       "stress-ng times each swapcontext with clock_gettime: ctxbench's swapcontext switch plus "
                       "one clock read (timer/clock_monotonic)"),
          UNPINNED: View(ONE_THREAD, "ucontext.direct", ((1, "ucontext.direct"), (1, "clock.read")), 0,
                         "one thread: placement changes nothing a switch does (ctxbench's swapcontext switch "
                         "plus one clock read)")},
         ops_of_count=lambda count: count * 1000),
    Peer("ctx-clock", "ctx-clock's method (ctxbench's equivalent)", "", "", (), None,
         parsers.ctx_clock, "one rejected system call, syscall(-1), between two rdtscp reads; the minimum of many",
         {"switches": 0, "system calls": "1 (rejected: ENOSYS)", "timer reads": 1}, 1, "system call", 20000,
         {PINNED: View(ONE_THREAD, "syscall.value",
                       ((1, "syscall.value"), (-1, "syscall.spread"), (-1, "syscall.dispatch")), 0,
                       "a user-kernel round trip, not a switch between tasks. It is ctxbench's system call "
                       "(getpid, the mean) less two parts ctxbench measures: the mean's excess over the fastest "
                       "call (ctx-clock keeps the minimum) and a real call's dispatch (syscall(-1) is rejected "
                       "before the syscall table). ctx-clock subtracts nothing for its rdtscp pair; ctxbench "
                       "subtracts its timer's fastest read")},
         engine_id="peer/ctx-clock"),
    Peer("sysbench-threads", "sysbench threads (2 threads)", "sysbench", "sysbench", ("--version",), _sysbench,
         lambda text: parsers.sysbench_threads(text, SYSBENCH_YIELDS),
         "one sched_yield() between a mutex lock and unlock (an event is 1000 of them)",
         {"switches": "1 where another thread is runnable on the CPU", "system calls": "1 sched_yield"}, 1, "yield",
         100,
         {PINNED: View(SAME_CPU, "futex.direct", (), 1,
                       "no ctxbench equivalent: a yield switches without a sleep or a wake-up, so it is cheaper "
                       "than ctxbench's blocking switch (kernel/thread/futex/same-cpu), shown for scale",
                       scale_only=True),
          UNPINNED: View(ONE_THREAD, "syscall.value", (), 0,
                         "on two CPUs each thread has its own CPU: a yield finds nothing else to run, so it is a "
                         "system call and a pass through the scheduler with no switch (the switches per yield "
                         "say how often); ctxbench measures no yield, so the system call is shown for scale",
                         scale_only=True)},
         ops_of_count=lambda count: count * SYSBENCH_YIELDS, says={"threads": 2}),
    Peer("hackbench", "hackbench (rt-tests; pipes, processes)", "hackbench", "rt-tests", ("--help",), _hackbench,
         parsers.hackbench, "one message of 100 bytes through a pipe, among 2 groups of 20 senders and 20 receivers",
         {"system calls": "1 write + 1 read", "switches": "as the pipes fill and drain (measured)"}, 1, "message",
         50,
         {PINNED: View(THROUGHPUT, "process.single", ((1, "process.single"),), None,
                       "mostly a pipe's write and read (ctxbench's single-party share); each message carries a "
                       "fraction of a switch (measured), added at ctxbench's direct switch cost",
                       switch_parts=((1, "process.direct"),)),
          UNPINNED: View(THROUGHPUT, None, (), None,
                         "many tasks on every CPU at once: time per message of the whole machine, no ctxbench "
                         "equivalent")},
         ops_of_count=lambda count: 2 * 20 * 20 * count, says={"mode": "process"}),
    Peer("lat_ctx", "lmbench lat_ctx -N 1 -s 0 2", "lat_ctx", "", (), _lat_ctx, lambda t: parsers.lat_ctx(t, 2),
         "one switch in a ring of 2 processes passing a token through pipes, lat_ctx's pipe overhead subtracted",
         {"switches": 1, "system calls": "its own overhead subtracted"}, 1, "switch", 1,
         {PINNED: View(SAME_CPU, "process.direct", ((1, "process.direct"),), 1,
                       "lat_ctx subtracts its pipe's cost as ctxbench subtracts the single party's share"),
          UNPINNED: View(CROSS_CPU, "process.x.handoff", ((1, "process.x.handoff"), (-1, "process.single")), None,
                         "on two CPUs: a cross-CPU wake-up less the pipe's write and read", placement_seen=False)}),
)
BY_KEY = {p.key: p for p in PEERS}
