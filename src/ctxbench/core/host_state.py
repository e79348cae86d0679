"""The host's state during a run, from the sensors the engine reads beside
the core-clock probe (engine/src/core/host_sensors.h; docs/host-state.md):
the kernel's entry and exit (a rejected system call), the measured CPU's
steal and the other CPUs' busy time.

A run's state is the median of every reading (before and after each
group, every result), so a group that met a burst moves it little;
steal and the others' load are shares of the time the groups ran.
Against the best this host has recorded (the store's earlier runs), a
sensor that moved names what moved the run: the clock is the probe's
(core/cycles.py), the rest are these. A walk through code and two
pointer chases were tried and dropped: they explained nothing the clock
did not (docs/host-state.md); files measured with them keep their
readings, which nothing here reads."""
from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ctxbench.core import results
from ctxbench.core.results.result import SENSOR_NS
from ctxbench.stats.numbers import is_finite

# (name, what it times, its arrays' stem): the timed sensors
SENSORS = (("syscall", "kernel entry and exit", "syscall"),)
NAMES = tuple(s[0] for s in SENSORS)
WHAT = MappingProxyType({name: what for name, what, _ in SENSORS})
# A sensor this much slower than the host's best has moved (a tenth: the
# sensors' own spread between quiet runs is a few percent, docs/host-state.md)
MOVED = 0.10


PLAUSIBLE_NS = SENSOR_NS  # what a reading can be (core/results/result.py)


def plausible_ns(x) -> bool:
    return is_finite(x) and PLAUSIBLE_NS[0] <= x <= PLAUSIBLE_NS[1]


@dataclass(frozen=True)
class HostState:
    """A run's sensors (ns, the median reading), steal and the others' load."""
    ns: dict[str, float]     # sensor name -> ns (nan where none was read)
    steal_share: float       # the measured CPU's steal over its time while the groups ran
    others_busy_share: float  # the other CPUs' busy time over theirs, meanwhile
    readings: int

    def record(self) -> dict:
        """As a results file keeps it (the run's section: host_state)."""
        out = {f"{k}_ns": (v if math.isfinite(v) else None) for k, v in self.ns.items()}
        return dict(out, steal_share=_num(self.steal_share), others_busy_share=_num(self.others_busy_share),
                    readings=self.readings)


def _num(x: float):
    return x if math.isfinite(x) else None


def _probe(r) -> dict:
    p = results.plain(results.member(r, "clock_probe"))
    return p if isinstance(p, dict) else {}


def _arrays(p: dict, stem: str, unit: str = "ns") -> tuple[list, list]:
    """A sensor's readings before and after each group: one each per group
    the probe read, else none (a damaged record)."""
    b, a, g = p.get(f"{stem}_before_{unit}"), p.get(f"{stem}_after_{unit}"), p.get("group")
    ok = isinstance(b, list) and isinstance(a, list) and isinstance(g, list) and len(b) == len(a) == len(g)
    return (b, a) if ok else ([], [])


def _deltas(p: dict, part: str, whole: str) -> tuple[float, float]:
    """Over the groups, the sums of after - before of two /proc/stat
    counters (ms), `part` of `whole`: a group whose part is not within its
    whole (a damaged record) counts for neither."""
    (pb, pa), (wb, wa) = _arrays(p, part, "ms"), _arrays(p, whole, "ms")
    n = d = 0.0
    for x0, x1, w0, w1 in zip(pb, pa, wb, wa):
        if all(is_finite(v) for v in (x0, x1, w0, w1)) and 0 <= x1 - x0 <= w1 - w0:
            n, d = n + (x1 - x0), d + (w1 - w0)
    return n, d


def of_results(res: list) -> HostState | None:
    """The host's state over these results' groups; None where no result
    carries the sensors (an older engine, a result not measured by groups)."""
    readings: dict[str, list[float]] = {name: [] for name in NAMES}
    steal = own = busy = total = 0.0
    for r in res:
        p = _probe(r)
        for name, _, stem in SENSORS:
            b, a = _arrays(p, stem)
            readings[name] += [float(x) for x in b + a if plausible_ns(x)]
        s, o = _deltas(p, "steal", "own_total")
        b_, t = _deltas(p, "others_busy", "others_total")
        steal, own, busy, total = steal + s, own + o, busy + b_, total + t
    n = max(len(v) for v in readings.values())
    if not n:
        return None
    ns = {k: float(np.median(v)) if v else math.nan for k, v in readings.items()}
    return HostState(ns, steal / own if own > 0 else math.nan, busy / total if total > 0 else math.nan, n)


def from_record(rec) -> HostState | None:
    """A kept host_state (a run's section) as a HostState; None if absent."""
    d = results.plain(rec)
    if not isinstance(d, dict):
        return None
    ns = {k: float(d[f"{k}_ns"]) if plausible_ns(d.get(f"{k}_ns")) else math.nan for k in NAMES}
    share = {k: float(d[k]) if is_finite(d.get(k)) else math.nan for k in ("steal_share", "others_busy_share")}
    return HostState(ns, share["steal_share"], share["others_busy_share"], int(d.get("readings") or 0))


def moved(now: HostState, best: dict[str, float]) -> dict[str, float]:
    """Per sensor, how much slower than the host's best (now / best - 1),
    for the sensors both have."""
    return {k: now.ns[k] / best[k] - 1 for k in NAMES
            if math.isfinite(now.ns.get(k, math.nan)) and math.isfinite(best.get(k, math.nan)) and best[k] > 0}
