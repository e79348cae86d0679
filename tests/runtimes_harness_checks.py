"""What every runtime harness test shares (tests/test_runtimes_harnesses.py,
bench/test_runtimes_known_answer.py): run a harness through the front end's
own path (harness.find, command, run), skip with the one missing line when
its toolchain or build is absent, check each record as runtimes/PROTOCOL.md
defines it, and the two physical checks every runtime is held to.

Kernel switches per hand-off, pinned on one CPU (getrusage of the whole
process around each sample), the median over samples as the command
reports it (runtimes/analysis.kernel_record; a sum would let one sample
that met a GC cycle or the JIT speak for all):
- a user-level hand-off never leaves the thread: the kernel switches the
  process out only when something else wants the CPU or a helper thread
  of the runtime wakes (Go's sysmon, the JVM's JIT, V8's platform
  threads), far less than once per 100 hand-offs;
- a kernel-thread hand-off moves the only CPU from one thread of the
  process to another, and every such move is a switch the kernel counts,
  voluntary (the waker went to sleep) or involuntary (the woken thread
  preempted it): one per hand-off, less the few a sample's edges cut off
  (0.9 with 16 round trips a sample).

The known answer (--delay-ns 0,D): the receiver of each one-way hand-off
spins D ns more, its spin target less the spin's own measured cost
(params.delay_overhead_ns), so the one-way figure grows by D. The harness
takes D = 0 and D in turn within each group (the host's speed drifts by
tens of percent over seconds on a shared machine; neighbours share it);
per group the medians' difference, over samples the kernel left alone
(a switch in a user-level sample is another task taking the CPU for its
slice, which the sample then measures too), and the median over groups:
within 10% of D, plus at most the spin overhead that was subtracted. That
overhead is measured in a tight loop on warm caches; in the hand-off it
runs right after a switch, on caches and predictors the switch disturbed
(the indirect cost ctxbench measures elsewhere), so the subtraction can
fall short by up to its own size (Node's MessageChannel: +1243 ns for a
188 ns overhead, every group above +1150)."""
from __future__ import annotations

import os
import statistics

import pytest

from ctxbench.runtimes import harness
from ctxbench.runtimes.analysis import kernel_record

USER_LEVEL_MAX = 0.01       # switches per hand-off: one per 100 is the kernel passing by
KERNEL_THREAD_MIN = 0.9     # one per hand-off, less a sample's edges
DELAY_NS = 1000
# 300 ms of warm-up: a JIT still compiling wakes its compiler threads, and
# those are kernel switches of the process (Java's vt-park read 0.10 per
# hand-off after 50 ms)
SMALL = harness.Settings(groups=2, iterations=3, min_sample_us=200, warmup_ms=300, spawn=50, park=1000)
# 10 groups of 10 interleaved pairs of 1 ms samples: a group disturbed by
# the load of a shared host moves one of ten medians
KNOWN = harness.Settings(groups=10, iterations=10, min_sample_us=1000, warmup_ms=100, delay_ns=(0, DELAY_NS))


def found(name: str) -> harness.Found:
    rt = {r.name: r for r in harness.runtimes()}[name]
    f = harness.find(rt)
    if not f.present:
        pytest.skip(f.missing)
    return f


def run(name: str, placement: str, settings: harness.Settings, mechanisms=None, env=None):
    """(header, results, skipped) of one harness run as the command makes
    it; the default placement is skipped where only one CPU is allowed."""
    f = found(name)
    allowed = sorted(os.sched_getaffinity(0))
    if placement == "default" and len(allowed) < 2:
        pytest.skip("the default placement needs two allowed CPUs")
    cpus = harness.placement_cpus(placement, max(allowed), allowed)
    mechs = list(mechanisms or f.runtime.mechanisms)
    cmd = harness.command(f, placement, cpus, mechs, settings)
    if env:
        cmd = harness.Command(cmd.argv, dict(cmd.env, **env), cmd.cpus, cmd.placement)
    return harness.run(f, cmd, timeout_s=settings.deadline_s(len(mechs)))


def handoffs(results: list[dict]) -> dict[str, dict]:
    return {r["params"]["mechanism"]: r for r in results if r["quantity"] == "handoff"}


def check_record(r: dict, runtime: str, placement: str, settings: harness.Settings) -> None:
    """One result as runtimes/PROTOCOL.md defines it, its samples re-derived
    from its raw parts."""
    q = r["quantity"]
    parts = r["id"].split("/")
    assert parts[0] == "runtimes" and parts[1] == runtime and parts[-1] == placement, r["id"]
    p = r["params"]
    assert p["runtime"] == runtime and p["placement"] == placement
    n = len(r["samples"])
    expect = settings.groups * (1 if q == "memory" else settings.iterations)
    assert n == expect and r["group"] == sorted(r["group"]) and set(r["group"]) == set(range(settings.groups)), r["id"]
    assert isinstance(r["warnings"], list)
    raw = r["raw"]
    if q == "handoff":
        assert r["warmup"]["method"], "a hand-off says how it knows its warm-up was enough"
        assert r["unit"] == "ns" and len(parts) == 4 and parts[2] == p["mechanism"]
        assert raw["handoffs"] == [2 * p["n"]] * n, "every sample is n round trips, 2n one-way hand-offs"
        for v, t, h in zip(r["samples"], raw["total_ns"], raw["handoffs"]):
            assert v == pytest.approx(t / h, rel=1e-9) and v > 0
        assert p["delay_ns"] == 0 and p["workers"] >= 1
    elif q == "spawn":  # raw parts where the harness gives them (Rust, Java, C++)
        assert r["unit"] == "ns" and parts[3] == "spawn"
        assert all(v > 0 for v in r["samples"])
        for v, t, k in zip(r["samples"], raw.get("total_ns", []), raw.get("spawns", [])):
            assert v == pytest.approx(t / k, rel=1e-9)
    else:
        assert q == "memory" and r["unit"] == "bytes" and parts[3] == "memory" and p["parked"] >= 1
        heap = p.get("measure") == "heap_used"
        before, after = (raw.get("heap_used_before", []), raw.get("heap_used_after", [])) if heap \
            else (raw.get("rss_before", []), raw.get("rss_after", []))
        for v, b, a in zip(r["samples"], before, after):
            assert v == pytest.approx((a - b) / p["parked"], rel=1e-9)
    if q == "handoff" or (q == "spawn" and "verify" in r):
        v = r["verify"]
        assert len(v["voluntary"]) == len(v["involuntary"]) == n and v["source"]
        assert all(x >= 0 for x in v["voluntary"] + v["involuntary"])


def check_protocol(name: str, placement: str, header: dict, results: list[dict], skipped: list[dict],
                   settings: harness.Settings = SMALL) -> None:
    """Every mechanism answered (a result or a reason), the version is
    recorded, every record is well formed, and spawn and memory were measured."""
    rt = found(name).runtime
    assert header["tool"]["name"] == f"ctxbench-rt-{name}" and header["runtime"]["name"] == name
    assert header["runtime"]["version"] and isinstance(header["runtime"]["flags"], dict)
    got = handoffs(results)
    assert set(got) | {s["mechanism"] for s in skipped} == set(rt.mechanisms)
    assert all(s["why"] for s in skipped), skipped
    for r in results:
        check_record(r, name, placement, settings)
    assert {"spawn", "memory"} <= {r["quantity"] for r in results}, "no spawn or memory record"


def check_switches(results: list[dict], user: set[str], kernel: set[str]) -> None:
    """Pinned: user-level < 0.01 kernel switches per hand-off, kernel
    threads >= 0.9."""
    got = handoffs(results)
    assert set(got) <= user | kernel
    bad = []
    for m, r in got.items():
        per = kernel_record(r)["per_handoff"]
        if m in user and per >= USER_LEVEL_MAX:
            bad.append(f"{m}: {per:.3f} kernel switches per hand-off, a user-level hand-off has none")
        if m in kernel and per < KERNEL_THREAD_MIN:
            bad.append(f"{m}: {per:.3f} kernel switches per hand-off, a kernel-thread one needs one each")
    assert not bad, bad


def _group_medians(r: dict, clean: bool) -> dict[int, float]:
    """Per group, the median sample; with `clean`, of the samples the
    kernel did not switch the process out of."""
    by: dict[int, list[float]] = {}
    v = r["verify"]
    for g, s, a, b in zip(r["group"], r["samples"], v["voluntary"], v["involuntary"]):
        if not clean or a + b == 0:
            by.setdefault(g, []).append(s)
    return {g: statistics.median(x) for g, x in by.items()}


def _overhead(params: dict) -> int:
    o = params.get("delay_overhead_ns", 0)
    return max(o) if isinstance(o, list) and o else (o if isinstance(o, int) else 0)


def known_answer(results: list[dict], kernel_threads: bool = False) -> dict[str, dict]:
    """Per mechanism: the added ns per hand-off (median over groups of the
    groups' median differences) and what it came from. kernel_threads:
    every sample counts (the switches are the mechanism's own)."""
    by: dict[str, dict[int, dict]] = {}
    for r in results:
        assert r["quantity"] == "handoff" and r["params"]["delay_ns"] in (0, DELAY_NS)
        by.setdefault(r["params"]["mechanism"], {})[r["params"]["delay_ns"]] = r
    out = {}
    for m, pair in by.items():
        plain, delayed = pair[0], pair[DELAY_NS]
        a, b = _group_medians(plain, not kernel_threads), _group_medians(delayed, not kernel_threads)
        diffs = [b[g] - a[g] for g in sorted(a) if g in b]
        out[m] = {"added": statistics.median(diffs) if diffs else float("nan"), "groups": [round(x) for x in diffs],
                  "plain": statistics.median(plain["samples"]), "spin_overhead": _overhead(delayed["params"])}
    return out


def check_known_answer(name: str, mechanisms, kernel_threads: bool = False) -> None:
    """A known +1000 ns per hand-off recovered within 10% for each of
    `mechanisms`, pinned, above which the spin's own overhead may come back
    too (see above); skipped when the host is so busy that fewer than
    3 groups kept a sample of each delay the kernel left alone."""
    answers = known_answer(run(name, "pinned", KNOWN, mechanisms)[1], kernel_threads)
    assert set(answers) == set(mechanisms)
    busy = [m for m, k in answers.items() if len(k["groups"]) < 3]
    if busy:
        pytest.skip(f"{name}: {', '.join(busy)}: fewer than 3 groups with a sample the kernel left alone: the host "
                    f"is too busy to recover a {DELAY_NS} ns delay")
    bad = []
    for m, k in answers.items():
        line = (f"{name}/{m}: +{k['added']:.0f} ns per hand-off for +{DELAY_NS} (plain {k['plain']:.0f} ns, spin "
                f"overhead {k['spin_overhead']} ns subtracted; per group {k['groups']})")
        print(line)
        if not 0.9 * DELAY_NS <= k["added"] <= 1.1 * DELAY_NS + k["spin_overhead"]:
            bad.append(line)
    assert not bad, bad
