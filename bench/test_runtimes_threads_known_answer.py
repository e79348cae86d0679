"""The runtimes' kernel-thread mechanisms (issue 24) recover a known +1 us per
hand-off (--delay-ns 0,1000 interleaved group by group, pinned): each one-way
hand-off's receiver spins 1 us more. A timing comparison a loaded host moves:
on one CPU a third task can take the CPU between the two threads, and a
receiver that spins before it blocks (std's channel, SynchronousQueue) burns
the CPU its sender needs for a time that depends on when the token comes.
Measured here under load 2.5-4: +500 to +1300 ns per group. So it lives here;
the user-level mechanisms' known answer is in tests/test_runtimes_*.py."""
import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("runtimes_checks",
                                               Path(__file__).resolve().parents[1] / "tests" / "runtimes_checks.py")
rc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rc)

THREADS = {"rust": ("thread-channel",), "java": ("platform-park", "platform-queue"), "cpp": ("thread-condvar",)}


@pytest.mark.parametrize("runtime", sorted(THREADS))
def test_kernel_threads_recover_known_delay(runtime):
    d = rc.descriptor(runtime)
    if not Path(rc.harness_argv(d)[0]).exists():
        pytest.skip(f"{runtime} harness not built ({d['missing']})")
    for name, (diff, groups) in rc.known_answer(d, THREADS[runtime]).items():
        print(f"\n{runtime}/{name}: +{diff:.0f} ns for +1000 (per group: {groups})")
        assert diff == pytest.approx(1000, rel=0.10), f"{name}: {diff:.0f} ns; per group: {groups}"
