"""The reference rows: ctxbench's own C switches, measured by the engine in
the same run, turned into the runtimes' quantity.

The engine's ping-pong times n round trips (t_switch) and reports the
direct cost of a switch, t_switch/2n minus the single party's share. A
runtime harness reports the whole one-way hand-off, total / 2N, with
nothing subtracted. So the reference rows here are the engine's hand-off
the same way, t_switch / 2n per sample, with the engine's own switch counts
per hand-off: the asm switch is the floor (no kernel), the kernel thread
and process pipes what a hand-off through the kernel costs."""
from __future__ import annotations

from ctxbench.core.model import Result

# engine id -> (mechanism label, placement)
ENGINE_IDS = {
    "user/asm/same-thread": ("asm switch (C)", "pinned"),
    "kernel/thread/pipe/same-cpu": ("kernel threads, pipe (C)", "pinned"),
    "kernel/process/pipe/same-cpu": ("kernel processes, pipe (C)", "pinned"),
    "kernel/thread/pipe/cross-cpu": ("kernel threads, pipe (C)", "default"),
}


def handoff_record(engine_result: dict) -> dict | None:
    """The engine result as a raw runtimes record (quantity handoff)."""
    r = Result(engine_result)
    if r.id not in ENGINE_IDS:
        return None
    label, placement = ENGINE_IDS[r.id]
    n = r.params.n
    t_switch = r.raw("t_switch_ns")
    if not isinstance(n, int) or n <= 0 or not t_switch.size:
        return None
    per = [float(t) / (2 * n) for t in t_switch]
    cpus = sorted({c for c in (r.params.cpu, r.params.get("cpu_b")) if isinstance(c, int) and c >= 0})
    out = {"id": f"runtimes/c/{r.id}", "quantity": "handoff", "unit": "ns",
           "doc": f"ctxbench's own {label}: the engine's {r.id}, t_switch / 2n (nothing subtracted)",
           "params": {"runtime": "c", "mechanism": label, "placement": placement, "n": n,
                      "engine_id": r.id, "cpu": r.params.cpu, "cpu_b": r.params.get("cpu_b"), "cpus": cpus},
           "samples": per, "group": list(r.groups or []),
           "raw": {"total_ns": list(map(float, t_switch)), "handoffs": [2 * n] * len(per)},
           "verify": {"voluntary": r.counts("voluntary"), "involuntary": r.counts("involuntary"),
                      "source": "the engine's per-party counts (verify.c)"},
           "warnings": []}
    if not out["group"]:
        del out["group"]
    if r.clock_probe is not None:  # the engine's per-group readings: cycles as for its own ids
        out["clock_probe"] = r.clock_probe
    return out
