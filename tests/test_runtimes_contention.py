"""Who else ran on a harness launch's CPUs (runtimes/contention.py), on
numbers whose answer is known: a /proc/stat written here, CPU times set by
hand; nothing measured."""
import json
import os

import pytest

from ctxbench.core import cpu_busy
from ctxbench.runtimes import analysis, contention, rounds, table
from ctxbench.core.results import plain

HZ = os.sysconf("SC_CLK_TCK")


def row_of(raw: dict) -> dict:
    """analysis.row_of's record as builtins, read member by member below."""
    return plain(analysis.row_of(raw))


def _stat(tmp_path, cpu1_ticks: dict[str, int]):
    """A /proc/stat whose cpu1 line has these fields (user nice system idle
    iowait irq softirq steal), cpu0 all 7s."""
    names = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]
    line1 = " ".join(str(cpu1_ticks.get(n, 0)) for n in names)
    p = tmp_path / "stat"
    p.write_text(f"cpu  1 1 1 1 1 1 1 1\ncpu0 {' '.join(['7'] * 8)}\ncpu1 {line1} 0 0\nintr 5\n")
    return p


def test_busy_time_counts_what_runs_and_not_idle(tmp_path, monkeypatch):
    monkeypatch.setattr(cpu_busy, "STAT", str(_stat(tmp_path, {"user": 100, "system": 20, "idle": 900,
                                                                    "iowait": 50, "irq": 3, "softirq": 2,
                                                                    "steal": 5})))
    assert cpu_busy.busy_s([1]) == pytest.approx(130 / HZ)
    assert cpu_busy.busy_s([0, 1]) == pytest.approx((130 + 6 * 7) / HZ)  # cpu0: all but idle and iowait
    assert cpu_busy.busy_s([2]) is None  # a CPU it does not list: cannot say
    monkeypatch.setattr(cpu_busy, "STAT", str(tmp_path / "absent"))
    assert cpu_busy.busy_s([1]) is None


def test_others_share_is_busy_time_less_the_harness_and_the_front_end(monkeypatch):
    # over 2.0 s of wall time, CPU 1 was busy 1.9 s: the harness used 1.4 s, the front end 0.1 s
    clock = iter([10.0, 12.0])
    busy = iter([100.0, 101.9])
    children = iter([5.0, 6.4])
    mine = iter([1.0, 1.1])
    monkeypatch.setattr(contention, "busy_s", lambda cpus: next(busy))
    monkeypatch.setattr(contention, "_children_s", lambda: next(children))
    monkeypatch.setattr(contention, "_self_s", lambda: next(mine))
    monkeypatch.setattr(contention.time, "monotonic", lambda: next(clock))
    w = contention.Window((1,), front_end_there=True).start().stop()
    assert w["others_share"] == pytest.approx(0.4 / 2.0) and w["harness_cpu_s"] == pytest.approx(1.4)
    assert contention.disturbed(w) and not contention.disturbed(dict(w, others_share=0.05))
    assert not contention.disturbed({"others_share": None})


def test_the_front_end_off_the_launchs_cpu_counts_against_the_rest(monkeypatch):
    # 1.0 s of wall time: CPU 1 busy 1.0 s, the harness 0.9 s of it; CPU 0 busy 0.8 s, the front end 0.5 s of it
    clock, children, mine = iter([0.0, 1.0]), iter([0.0, 0.9]), iter([0.0, 0.5])
    busy = {(1,): iter([0.0, 1.0]), (0,): iter([0.0, 0.8])}
    monkeypatch.setattr(contention, "busy_s", lambda cpus: next(busy[tuple(cpus)]))
    monkeypatch.setattr(contention, "_children_s", lambda: next(children))
    monkeypatch.setattr(contention, "_self_s", lambda: next(mine))
    monkeypatch.setattr(contention.time, "monotonic", lambda: next(clock))
    w = contention.Window((1,), front_end_there=False, rest=(0,)).start().stop()
    assert w["others_share"] == pytest.approx(0.1) and w["machine_share"] == pytest.approx(0.3)
    # each share over its limit, the worse counts
    want = max(0.1 / contention.QUIET, 0.3 / contention.MACHINE_QUIET)
    assert contention.score(w) == pytest.approx(want) and contention.disturbed(w) == (want > 1)
    assert not contention.disturbed({"others_share": 0.01, "machine_share": 0.1})
    assert contention.disturbed({"others_share": 0.01, "machine_share": 0.5})  # the rest of the machine busy


def _rec(share, tried, placement="pinned", machine=0.0):
    n = 4
    return {"id": f"runtimes/go/channel/{placement}", "quantity": "handoff", "unit": "ns",
            "params": {"runtime": "go", "mechanism": "channel", "placement": placement, "n": 100, "delay_ns": 0,
                       "others_share": share, "machine_share": machine, "launches_tried": tried},
            "samples": [100.0] * n, "group": [0, 0, 1, 1], "raw": {"total_ns": [2e4] * n, "handoffs": [200] * n},
            "verify": {"voluntary": [0] * n, "involuntary": [0] * n, "source": "getrusage"}, "warnings": []}


def test_each_launchs_share_is_kept_and_the_table_says_what_was_relaunched():
    merged = rounds.merge([[_rec(0.01, 1)], [_rec(0.30, 3)], [_rec(0.02, 2, machine=0.5)]], [2, 2, 2])[0]
    assert merged["params"]["others_share_per_round"] == [0.01, 0.30, 0.02]
    assert merged["params"]["machine_share_per_round"] == [0.0, 0.0, 0.5]
    assert merged["params"]["launches_tried_per_round"] == [1, 3, 2]
    r = row_of(merged)
    assert r["contention"]["disturbed"] == [2, 3] and r["contention"]["quiet"] == contention.QUIET
    assert f"at most {contention.RELAUNCHES} times" in table.contention_line([r])  # the limit the command used
    line = table.contention_line([r])
    assert "3 relaunch(es) in this run" in line and "still disturbed: go channel launch 2, 3" in line
    clean = row_of(rounds.merge([[_rec(0.01, 1)], [_rec(0.0, 1)]], [2, 2])[0])
    assert "0 relaunch(es)" in table.contention_line([clean]) and "none kept disturbed" in table.contention_line([clean])
    # a record from before the count says nothing
    old = _rec(0.0, 1)
    for k in ("others_share", "machine_share", "launches_tried"):
        del old["params"][k]
    assert "contention" not in row_of(old) and table.contention_line([row_of(old)]) == ""


def test_a_share_below_zero_is_kept_as_read(monkeypatch):
    # 1.0 s of wall time: CPU 1 counted busy 0.98 s in ticks, the harness's own CPU time 0.99 s
    clock, busy, children, mine = iter([0.0, 1.0]), iter([0.0, 0.98]), iter([0.0, 0.99]), iter([0.0, 0.0])
    monkeypatch.setattr(contention, "busy_s", lambda cpus: next(busy))
    monkeypatch.setattr(contention, "_children_s", lambda: next(children))
    monkeypatch.setattr(contention, "_self_s", lambda: next(mine))
    monkeypatch.setattr(contention.time, "monotonic", lambda: next(clock))
    w = contention.Window((1,)).start().stop()
    assert w["others_share"] == pytest.approx(-0.01)  # the ticks' coarseness, not a 0 that claims exactness
    assert not contention.disturbed(w)


@pytest.mark.parametrize("quiet_before", [True, False])
def test_a_disturbed_launch_is_launched_again_only_after_a_quiet_wait(quiet_before, monkeypatch, tmp_path):
    """Disturbed launches (shares set by hand) of the fake python harness:
    launched again up to RELAUNCHES times when the wait before found the
    CPUs quiet; once, and listed as steady load, when the wait gave up."""
    from ctxbench import cli
    from ctxbench.runtimes import command, harness
    monkeypatch.setattr(contention, "settle", lambda *a, **k: 0.2 if quiet_before else contention.SETTLE_MOST_S)
    monkeypatch.setattr(contention.Window, "stop", lambda self: {"others_share": 0.5, "machine_share": 0.5})
    launches = []
    real = harness.run
    monkeypatch.setattr(command.harness, "run", lambda *a, **k: launches.append(1) or real(*a, **k))
    out = tmp_path / "rt.json"
    assert cli.main(["runtimes", "--quick", "--runtime", "python", "--placement", "pinned",
                     "-o", str(out), "--no-store"]) in (0, 1)
    doc = json.loads(out.read_text())
    steady = doc["contention"]["not_relaunched_steady_load"]
    if quiet_before:
        assert len(launches) == 1 + contention.RELAUNCHES and steady == []
    else:
        assert len(launches) == 1 and [(s["runtime"], s["settle_s"]) for s in steady] == \
            [("python", contention.SETTLE_MOST_S)]


def test_no_quiet_wait_launches_at_once_and_again_when_disturbed(monkeypatch, tmp_path):
    """--quiet-wait 0: no wait before a launch (settle is never asked), and a
    disturbed pinned launch is still launched again; the record says 0."""
    from ctxbench import cli
    from ctxbench.runtimes import command, harness

    def never(*a, **k):
        raise AssertionError("settle() called with --quiet-wait 0")
    monkeypatch.setattr(contention, "settle", never)
    monkeypatch.setattr(contention.Window, "stop", lambda self: {"others_share": 0.5, "machine_share": 0.5})
    launches = []
    real = harness.run
    monkeypatch.setattr(command.harness, "run", lambda *a, **k: launches.append(1) or real(*a, **k))
    out = tmp_path / "rt.json"
    assert cli.main(["runtimes", "--quick", "--runtime", "python", "--placement", "pinned", "--quiet-wait", "0",
                     "-o", str(out), "--no-store"]) in (0, 1)
    doc = json.loads(out.read_text())
    assert len(launches) == 1 + contention.RELAUNCHES
    assert doc["contention"]["quiet_wait_s"] == 0 and doc["contention"]["not_relaunched_steady_load"] == []
