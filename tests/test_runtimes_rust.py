"""The Rust harness (runtimes/rust): records as runtimes/PROTOCOL.md defines them, the
kernel's switches per hand-off where physics fixes them, and a known +1 us
recovered per hand-off. Skipped where cargo has not built the harness."""
import json
import subprocess

import pytest

from runtimes_checks import (bad_args, by_mechanism, check_record, descriptor, harness_argv, known_answer, run,
                             skip_unless_built, switches_per_handoff)

D = descriptor("rust")
USER_LEVEL = ("tokio-notify", "tokio-mpsc", "corosensei")
KERNEL_THREADS = ("thread-channel",)
pytestmark = skip_unless_built(D)


def test_list_names_the_descriptors_mechanisms():
    out = subprocess.run(harness_argv(D) + ["--list"], capture_output=True, text=True, timeout=60, check=True).stdout
    listed = [json.loads(x) for x in out.splitlines()]
    assert tuple(x["mechanism"] for x in listed) == D["mechanisms"] == USER_LEVEL + KERNEL_THREADS
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
    assert flags["tokio"] and flags["corosensei"] and header["runtime"]["version"].startswith("rustc ")
    # pinned: tokio's current-thread runtime (one worker); default: the multi-thread one
    assert flags["tokio_scheduler"] == ("current_thread" if placement == "pinned" else "multi_thread")
    for r in results:
        check_record(r, "rust", placement)
    assert set(by_mechanism(results)) == set(D["mechanisms"])
    ids = {r["id"] for r in results}
    for family in ("tokio-task", "corosensei", "thread"):
        assert {f"runtimes/rust/{family}/spawn/{placement}", f"runtimes/rust/{family}/memory/{placement}"} <= ids


@pytest.mark.machine
def test_kernel_switches_per_handoff_pinned():
    """On one CPU with one worker a user-level hand-off never asks the kernel to
    switch: what switches remain come from other tasks preempting the process,
    far fewer than one per 100 hand-offs. Two kernel threads on one CPU cannot
    pass a token without the CPU switching from one to the other: at least one
    switch (voluntary if the sender blocked, involuntary if the woken receiver
    preempted it) per one-way hand-off."""
    _, results, _ = run(D, "pinned")
    m = by_mechanism(results)
    for name in USER_LEVEL:
        assert switches_per_handoff(m[name]) < 0.01, name
    for name in KERNEL_THREADS:
        assert switches_per_handoff(m[name]) >= 1.0, name


@pytest.mark.machine
def test_known_answer_delay():
    """--delay-ns 1000 makes each one-way hand-off's receiver spin 1000 ns more:
    the median grows by 1000 ns, within 10%. The kernel threads' known answer
    is a timing comparison a loaded host moves (a third task takes the CPU
    between the two threads): bench/test_runtimes_known_answer.py."""
    for name, (diff, how) in known_answer(D, USER_LEVEL).items():
        assert diff == pytest.approx(1000, rel=0.10), f"{name}: {diff:.0f} ns; {how}"
