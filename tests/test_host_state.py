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


def probe(groups: int, syscall: float, steal_per_group: float = 0.0, busy_per_group: float = 5.0) -> dict:
    """A result's clock_probe with the sensor read alike before and after
    each group; /proc/stat's counters advance 10 ms a group."""
    t = [10.0 * g for g in range(groups + 1)]
    return {"group": list(range(groups)), "syscall_before_ns": [syscall] * groups,
            "syscall_after_ns": [syscall] * groups,
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
    assert s.ns["syscall"] == 200.0 and s.readings == 20
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
    best = HostBest(5, {"syscall": 128.0})
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
    assert "nothing to hold it against" in "\n".join(host.lines(rec))
    assert host.record(None, 3.7, None, None) is None and host.lines(None) == []


def test_the_kept_record_reads_back_as_the_state():
    state = host_state.of_results([{"id": "a", "clock_probe": probe(3, 150.0)}])
    back = host_state.from_record(state.record())
    assert back.ns["syscall"] == 150.0 and back.readings == state.readings
    assert math.isnan(host_state.from_record({"readings": 1}).ns["syscall"])


def test_history_marks_the_runs_whose_host_read_slower_than_the_series_best():
    from dataclasses import replace

    from ctxbench.history.series import Point, host_moved
    p = Point(1, None, "h", "cpu", "0x1", "6.1", "", "", "0.1", "", 1800.0, None, None, None, True, "ns")
    pts = [replace(p, sensors=(128.0,)), replace(p, sensors=(176.0,)), replace(p, sensors=()),
           replace(p, sensors=(138.0,))]
    assert host_moved(pts) == ["", "kernel entry and exit +38%", "", ""]  # +8%: under host_state.MOVED


def test_compare_lays_a_change_on_the_host_only_where_the_sides_ran_one_kernel():
    from ctxbench.compare import host as compare_host

    def doc(syscall, env=True):
        return {"environment": {"kernel": {"release": "6.1"}, "cpu": {"model": "cpu"}} if env else {},
                "results": [{"id": "kernel/thread/pipe/same-cpu", "clock_probe": probe(4, syscall)}]}
    same = compare_host.of_sides([doc(128.0)], [doc(176.0)], [])
    assert same.changes["syscall"] == pytest.approx(176 / 128 - 1) and same.comparable
    said = compare_host.attributed("kernel/thread/pipe/same-cpu", "slower", 0.18, same)
    assert said == "the host (kernel entry and exit +38%)"
    assert compare_host.attributed("kernel/thread/pipe/same-cpu", "faster", -0.1, same) == "faster"  # not alike
    assert compare_host.attributed("reference/cpu", "slower", 0.1, same) == "slower"  # follows no sensor
    other_kernel = compare_host.of_sides([doc(128.0)], [doc(176.0)], ["kernel: 6.1  ->  6.12"])
    assert compare_host.attributed("kernel/thread/pipe/same-cpu", "slower", 0.18, other_kernel) == "slower"
    assert "no verdict is laid on the host" in compare_host.header_line(other_kernel)
    assert compare_host.of_sides([{"results": [{"id": "a"}]}], [doc(1.0)], []) is None
    # a side that does not say its kernel or CPU: the same only by default, so not the same
    unknown = compare_host.of_sides([doc(128.0, env=False)], [doc(176.0, env=False)], [])
    assert compare_host.attributed("kernel/thread/pipe/same-cpu", "slower", 0.18, unknown) == "slower"


def test_readings_no_machine_gives_are_not_read():
    """A damaged file's or store's readings (1e-300 ns, 1e300 ns, a steal
    longer than the CPU's time, arrays longer than the groups) are left
    out, never printed as a 300-digit change (issue 48's audit)."""
    bad = probe(4, 1e-300)
    assert host_state.of_results([{"id": "a", "clock_probe": bad}]) is None
    p = probe(4, 100.0)
    p["steal_after_ms"] = [1e9] * 4  # more stolen than the CPU ran
    p["others_busy_after_ms"] = [x + 1e9 for x in p["others_busy_after_ms"]]
    longer = {"group": [0, 1], "syscall_before_ns": [200.0] * 400, "syscall_after_ns": [200.0] * 400}
    s = host_state.of_results([{"id": "a", "clock_probe": p}, {"id": "b", "clock_probe": longer},
                               {"id": "c", "clock_probe": {"group": [0], "syscall_before_ns": [1e9 + 1],
                                                           "syscall_after_ns": [1e300]}}])
    assert s.ns["syscall"] == 100.0 and math.isnan(s.steal_share) and math.isnan(s.others_busy_share)


def _recorded(tmp_path, name: str):
    """A recorded default run (tests/fixtures/host-state: issue 48's runs on
    2026-11-28, six ids kept), decompressed where the CLI reads files."""
    import gzip

    from conftest import FIXTURES
    out = tmp_path / f"{name}.json"
    out.write_bytes(gzip.decompress((FIXTURES / "host-state" / f"{name}.json.gz").read_bytes()))
    return out


def test_compare_of_two_recorded_runs_names_the_host_s_clock_not_the_kernel(tmp_path):
    """Two default runs of one guest, same kernel, 20 minutes apart: the
    host gave the second a 3.9% faster clock. Judged in ns (at a 1%
    threshold: 5% calls a 2-4% change none), the kernel's switches are
    faster, and the verdict names the host's clock; judged in core cycles
    (the default) the clock is taken out and no kernel id is laid on the
    host; the header says the host's state either way."""
    from conftest import run_cli
    slow, fast = _recorded(tmp_path, "slow-clock"), _recorded(tmp_path, "fast-clock")
    p = run_cli("compare", str(slow), str(fast), "--unit", "ns", "--threshold", "1%", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    rows = {line.split()[0]: line for line in p.stdout.splitlines() if line.startswith(("kernel/", "user/"))}
    assert "the host (core clock +4%)" in rows["kernel/thread/pipe/same-cpu"], p.stdout
    assert not any(line.rstrip().endswith(("slower", "faster")) for line in rows.values()), p.stdout
    assert "same kernel" in p.stdout and "host state new/base: kernel entry and exit" in p.stdout
    q = run_cli("compare", str(slow), str(fast), "--threshold", "1%", cwd=tmp_path)
    assert q.returncode == 0 and "the host" not in "".join(
        line for line in q.stdout.splitlines() if line.startswith("kernel/")), q.stdout


def test_a_store_whose_rows_are_not_numbers_costs_no_run_and_no_history(tmp_path):
    """A shared store is input: text where a number belongs (issue 48's
    audit: a traceback after measuring, the results file never written)
    is read as nothing there, by the run's look back and by history."""
    from sqlalchemy import text

    from conftest import run_cli
    from ctxbench.core.store import between, record
    from ctxbench.core.store.db import Store
    from test_store import synthetic
    s = Store(str(tmp_path / "s.sqlite"))
    with s.begin() as conn:
        for k in range(3):
            d = synthetic(k)
            d["environment"]["hostname"], d["environment"]["kernel"]["release"] = "host0", "6.0.0"
            d["results"][0]["clock_probe"] = probe(4, 100.0 + k)
            record.add(conn, d)
        conn.execute(text("UPDATE runs SET syscall_ns = 'abc', core_ghz = 'x' WHERE id = 1"))
        conn.execute(text("UPDATE results SET median = 'y' WHERE run_id = 2"))
    env = {"kernel": "6.0.0", "cpu_model": "Test CPU", "microcode": None, "mitigations": "spectre_v2: Mitigation: x"}
    with s.begin() as conn:
        best = between.host_best(conn, "host0", env)
        assert best.ns["syscall"] == 101.0 and best.runs == 2
        assert between.host_best(conn, "host0", dict(env, kernel="6.12")) is None  # another kernel's are not ours
        between.spreads(conn, "host0", None, None, ["kernel/thread/pipe/same-cpu"])
        assert between.host_speed(conn, "host0") is None
    p = run_cli("history", "kernel/thread/pipe/same-cpu", "--store", str(tmp_path / "s.sqlite"), cwd=tmp_path)
    # the text median is said in one line; the text sensor, before, was a traceback in the host's marks
    assert "Traceback" not in p.stderr and (p.returncode == 0 or len(p.stderr.strip().splitlines()) == 1), p.stderr
    with s.begin() as conn:
        conn.execute(text("UPDATE results SET median = 1000.0 WHERE run_id = 2"))
    p = run_cli("history", "kernel/thread/pipe/same-cpu", "--store", str(tmp_path / "s.sqlite"), cwd=tmp_path)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
