"""Checks shared by the tests of the Rust, Java and C++ runtime harnesses
(tests/test_runtimes_{rust,java,cpp}.py): each harness is run directly, the
way the front end runs it (runtimes/PROTOCOL.md), with small counts."""
import ast
import json
import os
import statistics
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LANGS = ROOT / "src" / "ctxbench" / "runtimes" / "langs"
GROUPS, ITERATIONS = 2, 3
MIN_SAMPLE_US = 200


def descriptor(runtime: str) -> dict:
    """The literal fields of langs/<runtime>.py's Runtime(...), read without
    importing the front end: these tests need only the toolchain."""
    tree = ast.parse((LANGS / f"{runtime}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Runtime":
            return {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    raise AssertionError(f"no Runtime(...) in langs/{runtime}.py")


def harness_argv(d: dict) -> list:
    return [str(ROOT / p) if i == 0 and not os.path.isabs(p) else p for i, p in enumerate(d["harness"])]


def skip_unless_built(d: dict):
    exe = Path(harness_argv(d)[0])
    return pytest.mark.skipif(not exe.exists(), reason=f"{exe.relative_to(ROOT)} not built ({d['missing']})")


def cpus(placement: str) -> set:
    """Pinned: one CPU (the last this process may use); default: two."""
    allowed = sorted(os.sched_getaffinity(0))
    if placement == "pinned":
        return {allowed[-1]}
    if len(allowed) < 2:
        pytest.skip("the default placement needs two CPUs")
    return set(allowed[:2])


def run(d: dict, placement: str, *extra, groups=GROUPS, min_sample_us=MIN_SAMPLE_US, timeout=300, env=None):
    """Runs the harness as the front end would: affinity set before exec, the
    descriptor's one-worker settings when pinned. Returns (header, results,
    skipped)."""
    pinned = placement == "pinned"
    argv = harness_argv(d) + (list(d["pinned_args"]) if pinned else [])
    argv += ["--placement", placement, "--groups", str(groups), "--iterations", str(ITERATIONS),
             "--min-sample-us", str(min_sample_us), *extra]
    env = dict(env if env is not None else os.environ, **(d["pinned_env"] if pinned else {}))
    where = cpus(placement)
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env,
                       preexec_fn=lambda: os.sched_setaffinity(0, where))
    assert p.returncode == 0, f"{argv}: exit {p.returncode}: {p.stderr[-2000:]}"
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    header = lines[0]
    assert header["tool"]["name"] == f"ctxbench-rt-{d['name']}" and header["runtime"]["name"] == d["name"]
    assert header["runtime"]["version"] and isinstance(header["runtime"]["flags"], dict)
    return header, [x for x in lines[1:] if "id" in x], [x for x in lines[1:] if "skipped" in x]


def check_record(r: dict, runtime: str, placement: str) -> None:
    """One result as runtimes/PROTOCOL.md defines it, its samples re-derived from its raw parts."""
    q = r["quantity"]
    parts = r["id"].split("/")
    assert parts[0] == "runtimes" and parts[1] == runtime and parts[-1] == placement, r["id"]
    p = r["params"]
    assert p["runtime"] == runtime and p["placement"] == placement
    n = len(r["samples"])
    groups = GROUPS if q == "memory" else GROUPS * ITERATIONS
    assert n == groups and r["group"] == sorted(r["group"]) and set(r["group"]) == set(range(GROUPS)), r["id"]
    assert isinstance(r["warnings"], list) and r["warmup"]["method"]
    raw = r["raw"]
    if q == "handoff":
        assert r["unit"] == "ns" and len(parts) == 4 and parts[2] == p["mechanism"]
        assert raw["handoffs"] == [2 * p["n"]] * n, "every sample is n round trips, 2n one-way hand-offs"
        for v, t, h in zip(r["samples"], raw["total_ns"], raw["handoffs"]):
            assert v == pytest.approx(t / h, rel=1e-9) and v > 0
        assert p["delay_ns"] >= 0 and p["workers"] >= 1
    elif q == "spawn":
        assert r["unit"] == "ns" and parts[3] == "spawn"
        for v, t, k in zip(r["samples"], raw["total_ns"], raw["spawns"]):
            assert v == pytest.approx(t / k, rel=1e-9) and v > 0
    else:
        assert q == "memory" and r["unit"] == "bytes" and parts[3] == "memory" and p["parked"] >= 1
        heap = p.get("measure") == "heap_used"
        before, after = (raw["heap_used_before"], raw["heap_used_after"]) if heap else (raw["rss_before"], raw["rss_after"])
        for v, b, a in zip(r["samples"], before, after):
            assert v == pytest.approx((a - b) / p["parked"], rel=1e-9)
    if q != "memory":
        v = r["verify"]
        assert len(v["voluntary"]) == len(v["involuntary"]) == n and v["source"]
        assert all(x >= 0 for x in v["voluntary"] + v["involuntary"])


def switches_per_handoff(r: dict) -> float:
    """Kernel switches (voluntary + involuntary) of the process per one-way
    hand-off: the median over samples, as the command reports it
    (runtimes/analysis.kernel_record). A sum over samples lets one sample
    that met a GC cycle or the JIT (the JVM's own threads switch too)
    speak for all of them: a Java vt-queue run summed to 0.0117 so."""
    from ctxbench.runtimes.analysis import kernel_record
    return kernel_record(r)["per_handoff"]


def by_mechanism(results) -> dict:
    return {r["params"]["mechanism"]: r for r in results if r["quantity"] == "handoff"}


def known_answer(d: dict, mechanisms, delay: int = 1000, groups: int = 10, min_sample_us: int = 1000,
                 kernel_threads: bool = False) -> dict:
    """Runs D = 0 and D = delay in one run (pinned), the harness interleaving
    them group by group; each group's D = delay median minus the D = 0 median
    of the group run just before it (the host's speed drifts by tens of
    percent over seconds on a shared machine; neighbours share it), and the
    median of those differences. Only samples the kernel did not switch out
    count (the mechanisms are user-level: a switch there is another task,
    a JIT thread or another process, taking the CPU for its slice of
    milliseconds, which the sample then measures too); kernel_threads: every
    sample counts, the switches being the mechanism's own. Samples of 1 ms.
    Returns {mechanism: (difference, what it came from)}; skips when the host is so
    loaded that fewer than half the groups kept a sample of each delay."""
    _, results, _ = run(d, "pinned", "--mechanisms", ",".join(mechanisms), "--delay-ns", f"0,{delay}", groups=groups,
                        min_sample_us=min_sample_us)
    per_group, excess = {}, {}
    for r in results:
        assert r["quantity"] == "handoff" and r["params"]["delay_ns"] in (0, delay)
        assert len(r["samples"]) == groups * ITERATIONS and set(r["group"]) == set(range(groups))
        v = r["verify"]
        clean = [(x, g) for x, g, a, b in zip(r["samples"], r["group"], v["voluntary"], v["involuntary"]) if kernel_threads or a + b == 0]
        medians = [statistics.median([x for x, g in clean if g == k] or [float("nan")]) for k in range(groups)]
        per_group.setdefault(r["params"]["mechanism"], {})[r["params"]["delay_ns"]] = medians
        excess[r["params"]["mechanism"]] = max(excess.get(r["params"]["mechanism"], 0), r["params"]["delay_excess_ns"])
    assert set(per_group) == set(mechanisms)
    out = {}
    for m, v in per_group.items():
        diffs = [b - a for a, b in zip(v[0], v[delay]) if a == a and b == b]
        if 2 * len(diffs) < groups:
            pytest.skip(f"{m}: only {len(diffs)} of {groups} groups kept a sample the kernel did not switch out")
        out[m] = (statistics.median(diffs), {"per group": [round(x) for x in diffs], "spin excess": excess[m]})
    return out


def bad_args(d: dict, *argv) -> subprocess.CompletedProcess:
    p = subprocess.run(harness_argv(d) + list(argv), capture_output=True, text=True, timeout=60)
    assert p.returncode == 1, (argv, p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ctxbench-rt-{d['name']}: "), p.stderr
    assert p.stdout == ""
    return p
