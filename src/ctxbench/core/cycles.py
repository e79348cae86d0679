"""Core cycles: each sample's ns times its group's core clock
(docs/method.md#core-cycles; engine/src/core/clock_probe.h).

On a shared host the clock a run gets moves every CPU-bound number of the
run together, by 10-15% between runs on the cloud guests this was built
on. The engine times a chain of dependent one-cycle adds on the measured
CPU before every group and after it; `ops / time` is the group's core clock
f in cycles per ns (GHz), and a sample's ns times its group's f is its core
cycles. Where a PMU's cycles event was read, f is corrected by the counted
cycles per add (method `pmu`), else the add is taken as one cycle (method
`probe`), which the check chain of a known latency (imul, 3 cycles on
x86-64) confirms or not.

Cycles are the right unit only for what the core's clock paces. They are
the wrong one, and a result keeps ns only with the reason, for:
- cross-CPU wake-ups: an interrupt between CPUs, a CPU leaving idle and
  the hypervisor's part run on other clocks;
- a timer-reading loop's gaps (noise/): interruptions, not work;
- a sweep point whose working sets go to DRAM: memory's latency is in ns
  (the sweep marks those in params.working_set_level, as only it knows
  the caches);
- parties that ran on more than one CPU (params.cpus: a runtimes row of
  the default placement), where a hand-off can be a cross-CPU wake-up;
- a result without probe readings (a file from before the probe).

Everything here is arithmetic on what the file holds, so an old file is
re-analysed the same way and a test can feed it known clocks.
"""
from __future__ import annotations

import math
from types import MappingProxyType

import numpy as np

from ctxbench.stats import summary as stats

UNIT = "core cycles"
# The check chain's ratio to the add chain must be its latency within this
# (a timer's resolution is far finer; a folded add would be off by 2x or 4x).
CHECK_TOLERANCE = 0.10
# A group whose clock moved by more than this between its two readings is
# counted (the group's f is then their mean, and less certain).
MOVED_WITHIN_GROUP = 0.03

NS_ONLY_QUANTITIES = MappingProxyType({
    "wakeup": "a cross-CPU wake-up: the interrupt between CPUs, the idle exit and the hypervisor's part do not run "
              "at this CPU's core clock",
})
NS_ONLY_PREFIXES = MappingProxyType({
    "noise/": "the gaps of a timer-reading loop are interruptions, measured in time",
})
MORE_THAN_ONE_CPU = ("its parties ran on more than one CPU (params.cpus): a hand-off to another CPU is a cross-CPU "
                     "wake-up, whose interrupt, idle exit and hypervisor's part do not run at one core's clock")
NO_PROBE = "no core-clock probe in this result (written before the probe, or not by the engine)"


def _obj(x) -> dict:
    return x if isinstance(x, dict) else {}


def _nums(x) -> np.ndarray:
    if not isinstance(x, list):
        return np.zeros(0)
    return np.array([float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan for v in x])


def probe_of(result) -> dict:
    """A result's (a record's or an engine result's) probe readings as builtins, {} if none."""
    from ctxbench.core import results  # late: the results model imports what imports this
    return _obj(results.plain(results.member(result, "clock_probe")))


def group_clock(probe: dict) -> dict[int, float]:
    """Per group label: the core clock f (cycles per ns = GHz) from its
    readings before and after (their mean; one alone where the other is
    missing), times the counted cycles per add where a PMU counted them."""
    groups = probe.get("group")
    ops = probe.get("ops")
    if not isinstance(groups, list) or not isinstance(ops, (int, float)) or ops <= 0:
        return {}
    before, after = _nums(probe.get("before_ns")), _nums(probe.get("after_ns"))
    cpo = _nums(probe.get("pmu_cycles_per_op"))
    out = {}
    for i, g in enumerate(groups):
        fs = [ops / t for t in (before[i] if i < before.size else math.nan, after[i] if i < after.size else math.nan)
              if math.isfinite(t) and t > 0]
        if not fs or not isinstance(g, int):
            continue
        f = float(np.mean(fs))
        if i < cpo.size and math.isfinite(cpo[i]) and cpo[i] > 0:
            f *= float(cpo[i])
        out[g] = f
    return out


def group_walk(probe: dict) -> dict[int, float]:
    """Per group label: the other candidate's speed, ns per step of
    reference/cpu's branchy walk timed beside the add chain (mean of the
    readings before and after). Not a clock, and not used for cycles:
    bench/run_to_run.py compares the two corrections (docs/cycles.md)."""
    groups, steps = probe.get("group"), probe.get("walk_steps")
    if not isinstance(groups, list) or not isinstance(steps, (int, float)) or steps <= 0:
        return {}
    before, after = _nums(probe.get("walk_before_ns")), _nums(probe.get("walk_after_ns"))
    out = {}
    for i, g in enumerate(groups):
        ts = [t for t in (before[i] if i < before.size else math.nan, after[i] if i < after.size else math.nan)
              if math.isfinite(t) and t > 0]
        if ts and isinstance(g, int):
            out[g] = float(np.mean(ts)) / steps
    return out


def method(probe: dict) -> str:
    """`pmu` where every reading has counted cycles, else `probe`."""
    cpo = _nums(probe.get("pmu_cycles_per_op"))
    return "pmu" if cpo.size and np.isfinite(cpo).all() else "probe"


def check(probe: dict) -> dict:
    """The check chain against the add chain: their per-op time ratio
    (median over the readings), the latency it should be (None where no
    fixed one is known: ARM's multiplies), and whether it is."""
    ops, cops = probe.get("ops"), probe.get("check_ops")
    add = np.concatenate([_nums(probe.get("before_ns")), _nums(probe.get("after_ns"))])
    mul = np.concatenate([_nums(probe.get("check_before_ns")), _nums(probe.get("check_after_ns"))])
    want = probe.get("check_latency_cycles")
    n = min(add.size, mul.size)
    if not (isinstance(ops, (int, float)) and isinstance(cops, (int, float)) and n and ops > 0 and cops > 0):
        return {"ratio": None, "expected": want, "ok": None}
    r = (mul[:n] / cops) / (add[:n] / ops)
    r = r[np.isfinite(r)]
    ratio = float(np.median(r)) if r.size else math.nan
    ok = None if not isinstance(want, (int, float)) or not math.isfinite(ratio) else \
        bool(abs(ratio / want - 1) <= CHECK_TOLERANCE)
    return {"ratio": ratio if math.isfinite(ratio) else None, "expected": want, "ok": ok}


def ns_only_reason(result: dict) -> str | None:
    """Why this result keeps ns only (None: cycles apply)."""
    q = str(result.get("quantity") or "")
    if q in NS_ONLY_QUANTITIES:
        return NS_ONLY_QUANTITIES[q]
    rid = str(result.get("id") or "")
    for prefix, why in NS_ONLY_PREFIXES.items():
        if rid.startswith(prefix):
            return why
    params = _obj(result.get("params"))
    cpus = params.get("cpus")
    if isinstance(cpus, list) and len({c for c in cpus if isinstance(c, int) and not isinstance(c, bool)}) > 1:
        return MORE_THAN_ONE_CPU
    if params.get("working_set_level") == "memory":
        return ("a sweep point whose two working sets do not fit the last-level cache: its misses go to DRAM, "
                "whose latency is time, not core cycles")
    probe = probe_of(result)
    if probe.get("emulated"):
        return f"run under an emulator ({probe['emulated']}): the probe timed the emulator, not a core"
    if not group_clock(probe):
        return NO_PROBE
    return None


def to_cycles(samples, groups, clock: dict[int, float]) -> np.ndarray:
    """Each sample (ns) times its group's f; nan where the group has none."""
    x = np.asarray([float(s) if isinstance(s, (int, float)) and not isinstance(s, bool) else math.nan
                    for s in samples], dtype=float)
    f = np.array([clock.get(g, math.nan) if isinstance(g, int) else math.nan for g in groups], dtype=float)
    return x * f


def clock_record(probe: dict, clock: dict[int, float]) -> dict:
    """What the run's clock was: f's median, range and spread over groups,
    the groups whose clock moved between their readings, the check."""
    f = np.array(list(clock.values()), dtype=float)
    before, after = _nums(probe.get("before_ns")), _nums(probe.get("after_ns"))
    n = min(before.size, after.size)
    with np.errstate(all="ignore"):
        moved = np.abs(before[:n] / after[:n] - 1) if n else np.zeros(0)
    moved = moved[np.isfinite(moved)]
    return {"ghz_median": float(np.median(f)) if f.size else None,
            "ghz_min": float(f.min()) if f.size else None, "ghz_max": float(f.max()) if f.size else None,
            "ghz_cv": float(np.std(f, ddof=1) / np.mean(f)) if f.size > 1 else None,
            "groups": int(f.size),
            "groups_moved": int((moved > MOVED_WITHIN_GROUP).sum()),
            "moved_within_group_max": float(moved.max()) if moved.size else None,
            "check": check(probe), "pmu": probe.get("pmu")}


def mde_between_runs(summary: dict) -> float:
    """The smallest change between this run and another like it that a
    two-sided 5% test finds 80% of the time, from this run's interval:
    2.80 x sqrt(2) x se, se = half the 95% interval / 1.96 (two runs,
    each with this run's error)."""
    lo, hi = (summary.get("ci95") or [math.nan, math.nan])[:2]
    if not (isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and math.isfinite(lo) and math.isfinite(hi)):
        return math.nan
    from ctxbench.stats.power import MDE_FACTOR, Z_ALPHA

    return MDE_FACTOR * math.sqrt(2) * (hi - lo) / 2 / Z_ALPHA


def record_of(result: dict, keep: list[bool] | None = None) -> dict:
    """The `cycles` member of an analysed result: whether cycles apply
    (and why not), the method, the run's clock, and the summary of the
    kept samples in cycles (same groups resampled as the ns summary) with
    its MDE. `keep`: the verification's verdict per sample."""
    probe = probe_of(result)
    why = ns_only_reason(result)
    if why:
        return {"applies": False, "why": why}
    clock = group_clock(probe)
    samples = result.get("samples") or []
    groups = result.get("group")
    if not isinstance(groups, list) or len(groups) != len(samples):
        return {"applies": False, "why": "the samples carry no group labels to match the probe's readings"}
    keep = keep if keep is not None and len(keep) == len(samples) else [True] * len(samples)
    cyc = to_cycles(samples, groups, clock)
    kept = [(float(c), g) for c, g, k in zip(cyc, groups, keep) if k and math.isfinite(c)]
    s = stats.summarize([c for c, _ in kept], [g for _, g in kept])
    s["mde"] = mde_between_runs(s)
    return {"applies": True, "unit": UNIT, "method": method(probe), "clock": clock_record(probe, clock),
            "summary": s}


# ---- a derived effect in both units (tasks, irq, ring) ------------------------

def run_ghz(clocks) -> float:
    """The run's clock for reading a cycles MDE against an ns one: the
    median f over every group of the results a quantity is derived from
    (`clocks`: group_clock() dicts)."""
    f = [x for c in clocks for x in c.values() if math.isfinite(x) and x > 0]
    return float(np.median(f)) if f else math.nan


# A derived effect's verdict goes to cycles where they shrink its MDE by at
# least this much: on a host whose clock holds still the two MDEs differ by
# a few tenths of a percent, and the unit should not flip from quantity to
# quantity on that.
TWIN_MIN_GAIN = 0.02


def twin(ns: dict, cyc: dict | None, ghz: float, why: str = NO_PROBE) -> dict:
    """An effect over rounds (stats.power.effect, in ns) with its twin: the
    same statistic of the same rounds, each run's ns times its group's f
    (`cyc`, also a power.effect: its `_ns` members are cycles here). The
    record keeps the ns effect as it was and adds `cycles` (estimate_cycles,
    ci95, se_cycles, mde_cycles, resolved, below_mde, df), `ghz`, `mde_ratio`
    = the cycles MDE over the ns one at the run's clock ghz (the median f of
    the groups it used), and `unit`: the one the verdict uses, the one whose
    MDE is smaller (cycles where mde_ratio < 1 - TWIN_MIN_GAIN; "ns" on a
    tie, or where cycles cannot be had: `cycles` is None and `cycles_why`
    says why). The choice never looks at the estimate."""
    out = dict(ns)
    if not cyc or not (math.isfinite(ghz) and ghz > 0):
        out.update(unit="ns", cycles=None, cycles_why=why)
        return out
    out["cycles"] = {"estimate_cycles": cyc.get("estimate_ns"), "ci95": cyc.get("ci95"), "se_cycles": cyc.get("se_ns"),
                     "mde_cycles": cyc.get("mde_ns"), "resolved": cyc.get("resolved"),
                     "below_mde": cyc.get("below_mde"), "df": cyc.get("df")}
    for k in ("ci95_simultaneous", "simultaneous_z"):
        if k in cyc:
            out["cycles"][k] = cyc[k]
    m_ns, m_c = ns.get("mde_ns"), cyc.get("mde_ns")
    ratio = m_c / (m_ns * ghz) if (isinstance(m_ns, float) and isinstance(m_c, float) and math.isfinite(m_ns)
                                   and math.isfinite(m_c) and m_ns > 0) else math.nan
    out.update(ghz=ghz, mde_ratio=ratio, unit="cycles" if math.isfinite(ratio) and ratio < 1 - TWIN_MIN_GAIN else "ns")
    return out


def in_unit(e: dict, unit: str) -> dict:
    """An effect (with its twin) in one unit, as plain members: unit,
    estimate, ci95, se, mde, resolved, below_mde (and ci95_simultaneous
    where set); "cycles" of an effect without a twin reads as its ns."""
    c = e.get("cycles")
    if unit == "cycles" and isinstance(c, dict):
        out = {"unit": "cycles", "estimate": c.get("estimate_cycles"), "se": c.get("se_cycles"),
               "mde": c.get("mde_cycles")}
        src = c
    else:
        out = {"unit": "ns", "estimate": e.get("estimate_ns"), "se": e.get("se_ns"), "mde": e.get("mde_ns")}
        src = e
    out.update(ci95=src.get("ci95") or [math.nan, math.nan], resolved=bool(src.get("resolved")),
               below_mde=bool(src.get("below_mde")))
    if src.get("ci95_simultaneous"):
        out["ci95_simultaneous"] = src["ci95_simultaneous"]
    return out


def chosen(e: dict) -> dict:
    """The unit a twin's verdict uses (its `unit`), as in_unit's members."""
    return in_unit(e, str(e.get("unit") or "ns"))
