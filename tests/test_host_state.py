"""The host's state from the sensors beside the clock probe (issue 48:
core/host_state.py, run/host.py): known readings in, the run's state, what
moved against the host's best, and the line that names it. No engine: the
readings are written here, so every number out is known."""
from __future__ import annotations

import math

import pytest

from ctxbench.core import host_state
from ctxbench.core.store.between import HostBest
from ctxbench.run import host


def probe(groups: int, syscall: float, code: float = 300.0, l2: float = 3.4, llc: float = 90.0,
          steal_per_group: float = 0.0, busy_per_group: float = 5.0) -> dict:
    """A result's clock_probe with the sensors read alike before and after
    each group; /proc/stat's counters advance 10 ms a group."""
    def same(x):
        return [x] * groups
    t = [10.0 * g for g in range(groups + 1)]
    return {"group": list(range(groups)), "syscall_before_ns": same(syscall), "syscall_after_ns": same(syscall),
            "code_before_ns": same(code), "code_after_ns": same(code), "chase_l2_before_ns": same(l2),
            "chase_l2_after_ns": same(l2), "chase_llc_before_ns": same(llc), "chase_llc_after_ns": same(llc),
            "steal_before_ms": [steal_per_group * g for g in range(groups)],
            "steal_after_ms": [steal_per_group * (g + 1) for g in range(groups)],
            "own_total_before_ms": t[:-1], "own_total_after_ms": t[1:],
            "others_busy_before_ms": [busy_per_group * g for g in range(groups)],
            "others_busy_after_ms": [busy_per_group * (g + 1) for g in range(groups)],
            "others_total_before_ms": t[:-1], "others_total_after_ms": t[1:]}


def test_a_run_s_state_is_the_median_reading_and_the_shares_of_its_groups_time():
    # two results: one at 100 ns a call, one at 200 ns with four times the groups: the median is 200
    res = [{"id": "a", "clock_probe": probe(2, 100.0)}, {"id": "b", "clock_probe": probe(8, 200.0, steal_per_group=1.0)}]
    s = host_state.of_results(res)
    assert s.ns["syscall"] == 200.0 and s.ns["chase_l2"] == 3.4 and s.readings == 20
    assert s.steal_share == pytest.approx(8.0 / 100.0)  # 1 ms stolen of each 10 ms group of b, none of a's
    assert s.others_busy_share == pytest.approx(0.5)


def test_no_sensors_no_state():
    """An older engine's result (the clock alone) has no host state."""
    assert host_state.of_results([{"id": "a", "clock_probe": {"group": [0], "before_ns": [1.0]}}, {"id": "b"}]) is None


def test_a_sensor_that_moved_beyond_the_clock_is_named_and_the_clock_is_taken_out():
    """The kernel's entry 37% slower than the host's best, the clock held:
    named, with what to expect. The same readings with a clock 37% slower
    than the fastest: nothing of the sensor's own moved, nothing named."""
    state = host_state.of_results([{"id": "a", "clock_probe": probe(4, 176.0)}])
    best = HostBest(5, {"syscall": 128.0, "code": 300.0, "chase_l2": 3.4, "chase_llc": 90.0})
    rec = host.record(state, 3.68, best, 3.69)
    assert rec["moved"]["syscall"] == pytest.approx(176 / 128 / (3.69 / 3.68) - 1, abs=1e-4)
    assert rec["said"].startswith("kernel entry and exit 37% slower than this host's best; the clock held")
    assert "expect kernel ids higher" in rec["said"]
    slow_clock = host.record(state, 3.69 / (176 / 128), best, 3.69)
    assert abs(slow_clock["moved"]["syscall"]) < 1e-3 and slow_clock["said"] == ""
    text = "\n".join(host.lines(rec))
    assert "kernel entry and exit" in text and "What moved:" in text and "best" in text


def test_without_a_store_the_state_is_said_alone():
    state = host_state.of_results([{"id": "a", "clock_probe": probe(4, 130.0)}])
    rec = host.record(state, 3.7, None, None)
    assert rec["best"] is None and rec["said"] == "" and rec["moved"] == {}
    assert "no earlier run of this host with sensors" in "\n".join(host.lines(rec))
    assert host.record(None, 3.7, None, None) is None and host.lines(None) == []


def test_the_kept_record_reads_back_as_the_state():
    state = host_state.of_results([{"id": "a", "clock_probe": probe(3, 150.0, llc=math.nan)}])
    back = host_state.from_record(state.record())
    assert back.ns["syscall"] == 150.0 and math.isnan(back.ns["chase_llc"]) and back.readings == state.readings
