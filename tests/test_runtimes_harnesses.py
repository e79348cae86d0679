"""Every runtime harness (runtimes/<runtime>/, issue 24) held to the same
checks, through the front end's own path: it names its mechanisms, refuses
bad arguments in one line, keeps the protocol in both placements with its
version and flags, its user-level hand-offs stay in user space and its
kernel-thread ones go through the kernel, and a known +1 us per hand-off
comes back within 10% (tests/runtimes_harness_checks.py says the physics).
A runtime whose toolchain or build is absent is skipped with its one line.

The kernel threads' known answer, and Java SynchronousQueue's between
virtual threads, are timing comparisons a loaded host moves:
bench/test_runtimes_known_answer.py."""
from __future__ import annotations

import glob
import json
import os
import subprocess
from dataclasses import dataclass, field
from typing import Callable

import pytest

import runtimes_harness_checks as rc


@dataclass(frozen=True)
class Spec:
    """What this test knows of one runtime beyond its descriptor."""
    user: tuple[str, ...]                    # user-level hand-offs
    kernel: tuple[str, ...]                  # kernel-thread hand-offs
    families: tuple[str, ...]                # lightweight-thread families with spawn and memory records
    header: Callable[[str, dict], None]      # (placement, header["runtime"]) -> asserts
    may_skip: dict[str, str] = field(default_factory=dict)  # mechanism -> what its reason says
    known: tuple[str, ...] | None = None     # known answer checked here (default: every user-level one)


def _go(place, rt):
    assert rt["version"].startswith("go") and rt["flags"]["GOMAXPROCS"] == (1 if place == "pinned" else 2)


def _rust(place, rt):
    f = rt["flags"]
    assert f["tokio"] and f["corosensei"] and rt["version"].startswith("rustc ")
    # pinned: tokio's current-thread runtime (one worker); default: the multi-thread one
    assert f["tokio_scheduler"] == ("current_thread" if place == "pinned" else "multi_thread")


def _java(place, rt):
    f = rt["flags"]
    assert f["vm"] and isinstance(f["vm_args"], list)
    # compilation in the asking thread, between samples (runtimes/java/ctxbench-rt-java says why)
    assert "-XX:-BackgroundCompilation" in f["vm_args"]
    if place == "pinned":  # the descriptor's one-carrier settings reached the JVM
        assert set(rc.found("java").runtime.pinned_args) <= set(f["vm_args"])
        assert f["jdk.virtualThreadScheduler.parallelism"] == "1"


def _python(place, rt):
    f = rt["flags"]
    assert f["implementation"] and "greenlet" in f and "uvloop" in f


def _node(place, rt):
    assert rt["version"].startswith("v") and rt["flags"]["v8"] and "--expose-gc" in rt["flags"]["execArgv"]


def _cpp(place, rt):
    f = rt["flags"]
    assert "-std=c++20" in f["cxxflags"] and f["__cplusplus"] >= 202002 and f["boost"]


SPECS = {
    "go": Spec(("channel", "gosched", "iter-pull"), ("lockosthread",), ("goroutine", "osthread"), _go),
    "rust": Spec(("tokio-notify", "tokio-mpsc", "corosensei"), ("thread-channel",),
                 ("tokio-task", "corosensei", "thread"), _rust),
    "java": Spec(("vt-park", "vt-queue"), ("platform-park", "platform-queue"), ("virtual-thread", "platform-thread"),
                 _java, known=("vt-park",)),
    "python": Spec(("greenlet", "asyncio", "uvloop"), ("threading",), ("asyncio-task", "thread"), _python,
                   may_skip={"greenlet": "not installed", "uvloop": "not installed"}),
    "node": Spec(("promise", "messagechannel"), ("worker-atomics",), ("async-fn",), _node),
    "cpp": Spec(("coroutine", "boost-fiber"), ("thread-condvar",), ("coroutine", "boost-fiber", "thread"), _cpp),
}
NAMES = sorted(SPECS)
# the default placement's runs serve only the protocol's checks (records, versions, skips: no
# number judged), so they run beside other tests (flow); the pinned runs' switch counts and known
# answers are judged, so those run alone
PLACES = [pytest.param(n, p, marks=[pytest.mark.flow] if p == "default" else []) for n in NAMES
          for p in ("pinned", "default")]
BAD_ARGS = [("--placement", "nowhere"), ("--placement", "pinned", "--groups", "0"),
            ("--placement", "pinned", "--mechanisms", "fork"), ("--placement", "pinned", "--delay-ns", "1,x"),
            ("--bogus",)]


def test_specs_cover_every_descriptor():
    from ctxbench.runtimes import harness
    descriptors = {r.name: r for r in harness.runtimes()}
    assert set(descriptors) == set(SPECS)
    for name, spec in SPECS.items():
        assert set(spec.user) | set(spec.kernel) == set(descriptors[name].mechanisms), name


@pytest.mark.machine  # starts the real harnesses (make check starts none)
@pytest.mark.flow  # judges what they print, not what they measure
@pytest.mark.parametrize("name", NAMES)
def test_list_names_the_descriptors_mechanisms(name):
    f = rc.found(name)
    out = subprocess.run(list(f.argv) + ["--list"], capture_output=True, text=True, timeout=60, check=True).stdout
    listed = [json.loads(x) for x in out.splitlines()]
    assert tuple(x["mechanism"] for x in listed) == f.runtime.mechanisms
    assert all(x["doc"] for x in listed)


@pytest.mark.machine
@pytest.mark.flow
@pytest.mark.parametrize("name,argv", [(n, a) for n in NAMES for a in BAD_ARGS])
def test_bad_arguments_one_line(name, argv):
    f = rc.found(name)
    p = subprocess.run(list(f.argv) + list(argv), capture_output=True, text=True, timeout=60)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 1 and len(lines) == 1 and lines[0].startswith(f"ctxbench-rt-{name}: "), (argv, p)
    assert p.stdout == ""


_runs: dict[tuple[str, str], tuple] = {}


def small_run(name: str, placement: str):
    """One SMALL run per runtime and placement, shared by the tests below."""
    if (name, placement) not in _runs:
        _runs[name, placement] = rc.run(name, placement, rc.SMALL)
    return _runs[name, placement]


@pytest.mark.machine
@pytest.mark.parametrize("name,placement", PLACES)
def test_records_keep_the_protocol(name, placement):
    spec = SPECS[name]
    header, results, skipped = small_run(name, placement)
    rc.check_protocol(name, placement, header, results, skipped)
    spec.header(placement, header["runtime"])
    for s in skipped:
        assert s["mechanism"] in spec.may_skip and spec.may_skip[s["mechanism"]] in s["why"], s
    ids = {r["id"] for r in results}
    for family in spec.families:
        assert {f"runtimes/{name}/{family}/spawn/{placement}", f"runtimes/{name}/{family}/memory/{placement}"} <= ids
    if name == "java":  # a virtual-thread result is trusted only with no carrier pinned
        for m, r in rc.handoffs(results).items():
            if m not in spec.user:
                assert "jfr" not in r, m
                continue
            jfr = r.get("jfr") or {}
            assert jfr.get("virtual_thread_pinned") == 0 and "untimed" in jfr.get("counted_over", ""), (m, jfr)
            # what the recording costs is kept, measured apart from the timed samples
            assert [x > 0 for x in jfr.get("ns_per_handoff_while_recording", [])] == [True], (m, jfr)


@pytest.mark.machine
@pytest.mark.parametrize("name", NAMES)
def test_switches_per_handoff_pinned(name):
    spec = SPECS[name]
    rc.check_switches(small_run(name, "pinned")[1], set(spec.user), set(spec.kernel))


@pytest.mark.machine
@pytest.mark.parametrize("name", NAMES)
def test_a_known_delay_comes_back(name):
    spec = SPECS[name]
    present = set(spec.known or spec.user) - {s["mechanism"] for s in small_run(name, "pinned")[2]}
    rc.check_known_answer(name, sorted(present))


def older_jdk():
    for home in sorted(glob.glob("/usr/lib/jvm/*")):
        release = os.path.join(home, "release")
        if os.path.isfile(os.path.join(home, "bin", "java")) and os.path.isfile(release):
            for line in open(release):
                if line.startswith("JAVA_VERSION="):
                    major = line.split("=")[1].strip().strip('"').split(".")[0]
                    if major.isdigit() and int(major) < 21:
                        return home
    pytest.skip("no JDK older than 21 under /usr/lib/jvm to check the refusal with")


@pytest.mark.machine
@pytest.mark.flow  # which mechanisms ran, not what they measured
def test_older_jdk_refuses_virtual_threads_in_one_line():
    """JAVA_HOME on a JDK < 21: each virtual-thread mechanism is one skipped
    line saying why, the platform-thread ones still measure, exit 0."""
    home = older_jdk()
    settings = rc.harness.Settings(groups=2, iterations=3, min_sample_us=200, warmup_ms=20)
    header, results, skipped = rc.run("java", "default", settings, ["vt-park", "platform-park"],
                                      env={"JAVA_HOME": home})
    assert int(header["runtime"]["version"].split(".")[0].split("+")[0]) < 21
    assert [s["mechanism"] for s in skipped] == ["vt-park"] and "21" in skipped[0]["why"]
    assert [r["params"]["mechanism"] for r in results] == ["platform-park"]
