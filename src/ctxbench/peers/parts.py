"""The parts of ctxbench's own ids that the peers are set beside, read
from one round's engine results: each the median of that round's samples,
in ns (catalogue.py names them in its matches and predictions).

    <kind>.handoff   t_switch / 2n of kernel/<kind>/pipe/same-cpu: one hand-off,
                     nothing subtracted (a switch, a write and a read)
    <kind>.direct    its value: the direct cost of one switch
    <kind>.single    t_single / n: one write and one read of the pipe, no switch
    <kind>.x.handoff t_switch / 2n of kernel/<kind>/pipe/cross-cpu
    futex.direct     kernel/thread/futex/same-cpu's direct switch
    ucontext.direct  user/ucontext/same-thread's direct swapcontext switch
    clock.read       timer/clock_monotonic: one clock_gettime
    syscall.value    baseline/syscall: one getpid, mean per call, timer overhead subtracted
    syscall.spread   its mean less its fastest call (raw min_ns: the fastest timed
                     call, the timer's fastest read subtracted)
    syscall.dispatch getpid's fastest less syscall(-1)'s (baseline/syscall-enosys):
                     what a real call adds to a rejected one (the syscall table's call)

<kind> is process or thread."""
from __future__ import annotations

import math

import numpy as np

from ctxbench.core.model import Result

# the engine ids a peers run measures in every round, by the parts they give
IDS = ("kernel/process/pipe/same-cpu", "kernel/thread/pipe/same-cpu", "kernel/process/pipe/cross-cpu",
       "kernel/thread/pipe/cross-cpu", "kernel/thread/futex/same-cpu", "user/ucontext/same-thread",
       "timer/clock_monotonic", "baseline/syscall", "baseline/syscall-enosys")
CROSS_IDS = ("kernel/process/pipe/cross-cpu", "kernel/thread/pipe/cross-cpu")

NAMES = {
    "process.handoff": "kernel/process/pipe/same-cpu, one hand-off (t_switch/2n)",
    "process.direct": "kernel/process/pipe/same-cpu, direct switch",
    "process.single": "a pipe's write and read (kernel/process/pipe/same-cpu, t_single/n)",
    "thread.handoff": "kernel/thread/pipe/same-cpu, one hand-off (t_switch/2n)",
    "thread.direct": "kernel/thread/pipe/same-cpu, direct switch",
    "thread.single": "a pipe's write and read (kernel/thread/pipe/same-cpu, t_single/n)",
    "process.x.handoff": "kernel/process/pipe/cross-cpu, one hand-off (t_switch/2n)",
    "thread.x.handoff": "kernel/thread/pipe/cross-cpu, one hand-off (t_switch/2n)",
    "futex.direct": "kernel/thread/futex/same-cpu, direct switch",
    "ucontext.direct": "user/ucontext/same-thread, direct swapcontext switch",
    "clock.read": "one clock_gettime (timer/clock_monotonic)",
    "syscall.value": "baseline/syscall (getpid, mean per call, timer subtracted)",
    "syscall.spread": "baseline/syscall's mean less its fastest call",
    "syscall.dispatch": "a real call's dispatch (baseline/syscall's fastest - baseline/syscall-enosys's)",
}


def _median(r: Result, values=None) -> float:
    """The median of a result's samples (or of `values`, one per sample)
    that its verification kept."""
    vals = list(r.samples if values is None else values)
    keep = r.keep if len(r.keep) == len(vals) else [True] * len(vals)
    a = np.asarray([float(v) for v, k in zip(vals, keep) if k and v is not None and math.isfinite(v)], dtype=float)
    return float(np.median(a)) if a.size else math.nan


def of_round(results: list[dict]) -> dict[str, float]:
    """{part: ns} from one round's engine results (a part whose id is
    missing, or failed, is absent)."""
    by_id = {Result(r).id: Result(r) for r in results}
    out: dict[str, float] = {}
    for kind in ("process", "thread"):
        r = by_id.get(f"kernel/{kind}/pipe/same-cpu")
        if r is not None and isinstance(r.params.n, int) and r.params.n > 0:
            n = r.params.n
            out[f"{kind}.handoff"] = _median(r, r.raw("t_switch_ns") / (2 * n))
            out[f"{kind}.single"] = _median(r, r.raw("t_single_ns") / n)
            out[f"{kind}.direct"] = _median(r)
        x = by_id.get(f"kernel/{kind}/pipe/cross-cpu")
        if x is not None and isinstance(x.params.n, int) and x.params.n > 0:
            out[f"{kind}.x.handoff"] = _median(x, x.raw("t_switch_ns") / (2 * x.params.n))
    for part, id_ in (("futex.direct", "kernel/thread/futex/same-cpu"), ("ucontext.direct", "user/ucontext/same-thread"),
                      ("clock.read", "timer/clock_monotonic"), ("syscall.value", "baseline/syscall")):
        if id_ in by_id:
            out[part] = _median(by_id[id_])
    sc, no = by_id.get("baseline/syscall"), by_id.get("baseline/syscall-enosys")
    if sc is not None and "syscall.value" in out:
        out["syscall.spread"] = out["syscall.value"] - _median(sc, sc.raw("min_ns"))
        if no is not None:
            out["syscall.dispatch"] = _median(sc, sc.raw("min_ns")) - _median(no, no.raw("min_ns"))
    return {k: v for k, v in out.items() if math.isfinite(v)}


def combine(terms, parts: dict[str, float]) -> float | None:
    """sum of coefficient x part; None when a part is missing."""
    if not terms or any(name not in parts for _, name in terms):
        return None
    return float(sum(c * parts[name] for c, name in terms))
