"""The Java harness (runtimes/java): records as runtimes/PROTOCOL.md defines them, no
pinned virtual thread (JFR), the kernel's switches per hand-off where physics
fixes them, a known +1 us recovered per hand-off, and a JDK older than 21
refused for virtual threads in one line each. Skipped where no JDK built it."""
import glob
import json
import os
import subprocess

import pytest

from runtimes_checks import (bad_args, by_mechanism, check_record, descriptor, harness_argv, known_answer, run,
                             skip_unless_built, switches_per_handoff)

D = descriptor("java")
VIRTUAL = ("vt-park", "vt-queue")
PLATFORM = ("platform-park", "platform-queue")
pytestmark = skip_unless_built(D)


def test_list_names_the_descriptors_mechanisms():
    out = subprocess.run(harness_argv(D) + ["--list"], capture_output=True, text=True, timeout=60, check=True).stdout
    listed = [json.loads(x) for x in out.splitlines()]
    assert tuple(x["mechanism"] for x in listed) == D["mechanisms"] == VIRTUAL + PLATFORM
    assert all(x["doc"] for x in listed)


@pytest.mark.parametrize("argv", [("--placement", "nowhere"), ("--placement", "pinned", "--groups", "0"),
                                  ("--placement", "pinned", "--mechanisms", "fork"),
                                  ("--placement", "pinned", "--delay-ns", "1,x"), ("--bogus",)])
def test_bad_arguments_one_line(argv):
    bad_args(D, *argv)


@pytest.mark.machine
@pytest.mark.parametrize("placement", ["pinned", "default"])
def test_records_valid(placement):
    header, results, skipped = run(D, placement, "--spawn", "20", "--park", "200")
    assert not skipped
    flags = header["runtime"]["flags"]
    assert flags["vm"] and isinstance(flags["vm_args"], list)
    if placement == "pinned":  # the descriptor's one-carrier settings reached the JVM
        assert set(D["pinned_args"]) <= set(flags["vm_args"])
        assert flags["jdk.virtualThreadScheduler.parallelism"] == "1"
    for r in results:
        check_record(r, "java", placement)
    m = by_mechanism(results)
    assert set(m) == set(D["mechanisms"])
    for name in VIRTUAL:  # a virtual-thread result is trusted only with no carrier pinned
        assert m[name]["jfr"] == {"virtual_thread_pinned": 0}, name
    for name in PLATFORM:
        assert "jfr" not in m[name]
    ids = {r["id"] for r in results}
    for family in ("virtual-thread", "platform-thread"):
        assert {f"runtimes/java/{family}/spawn/{placement}", f"runtimes/java/{family}/memory/{placement}"} <= ids


@pytest.mark.machine
def test_kernel_switches_per_handoff_pinned():
    """Virtual threads on one carrier pass control inside the JVM: what
    switches remain are the JVM's own threads (JIT, GC, JFR) and other tasks
    preempting, far fewer than one per 100 hand-offs. Two platform threads on
    one CPU cannot pass a token without the CPU switching from one to the
    other: at least one switch (voluntary if the sender blocked, involuntary
    if the woken receiver preempted it) per one-way hand-off."""
    _, results, _ = run(D, "pinned")
    m = by_mechanism(results)
    for name in VIRTUAL:
        assert switches_per_handoff(m[name]) < 0.01, name
        assert m[name]["jfr"]["virtual_thread_pinned"] == 0
    for name in PLATFORM:
        assert switches_per_handoff(m[name]) >= 1.0, name


@pytest.mark.machine
def test_known_answer_delay():
    """--delay-ns 1000 makes each one-way hand-off's receiver spin 1000 ns more:
    the median grows by 1000 ns, within 10%. The kernel threads' known answer
    is a timing comparison a loaded host moves (a third task takes the CPU
    between the two threads), and so is SynchronousQueue's (a late partner
    takes another path): bench/test_runtimes_known_answer.py."""
    for name, (diff, how) in known_answer(D, ("vt-park",)).items():
        assert diff == pytest.approx(1000, rel=0.10), f"{name}: {diff:.0f} ns; {how}"


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
def test_older_jdk_refuses_virtual_threads_in_one_line():
    """JAVA_HOME on a JDK < 21: each virtual-thread mechanism is one skipped
    line saying why, the platform-thread ones still measure, exit 0."""
    home = older_jdk()
    env = dict(os.environ, JAVA_HOME=home)
    header, results, skipped = run(D, "default", "--mechanisms", "vt-park,platform-park", "--warmup-ms", "20", env=env)
    assert int(header["runtime"]["version"].split(".")[0].split("+")[0]) < 21
    assert [s["skipped"] for s in skipped] == ["vt-park"] and "21" in skipped[0]["why"]
    assert [r["params"]["mechanism"] for r in results] == ["platform-park"]
