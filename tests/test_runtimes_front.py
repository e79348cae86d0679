"""The runtimes command's own arithmetic, on records whose answer is known:
kernel switches per hand-off, the user-level/kernel-assisted line, the
engine's reference rows as hand-offs, the table and the figure."""
import math

import pytest

from ctxbench.runtimes import analysis, figures, references, table
from ctxbench.core.results import plain
from conftest import run_engine


def row_of(raw: dict) -> dict:
    """analysis.row_of's record as builtins, read member by member below."""
    return plain(analysis.row_of(raw))


def _record(samples, vol, inv, handoffs, runtime="go", mechanism="channel", placement="pinned", **extra):
    n = len(samples)
    return {"id": f"runtimes/{runtime}/{mechanism}/{placement}", "quantity": "handoff", "unit": "ns",
            "params": {"runtime": runtime, "mechanism": mechanism, "placement": placement, "n": handoffs // 2},
            "samples": samples, "group": [i // 3 for i in range(n)],
            "raw": {"total_ns": [s * handoffs for s in samples], "handoffs": [handoffs] * n},
            "verify": {"voluntary": vol, "involuntary": inv, "source": "getrusage"}, "warnings": [], **extra}


def test_kernel_switches_per_handoff_and_the_user_level_line():
    # 1000 hand-offs a sample: 5 switches is 0.005 (user-level), 1002 is 1.002 (kernel-assisted)
    user = row_of(_record([100.0] * 6, [3] * 6, [2] * 6, 1000))
    kern = row_of(_record([2000.0] * 6, [1000] * 6, [2] * 6, 1000, mechanism="thread"))
    assert user["kernel"]["per_handoff"] == pytest.approx(0.005) and user["kernel"]["switch"] == "user-level"
    assert kern["kernel"]["per_handoff"] == pytest.approx(1.002) and kern["kernel"]["switch"] == "kernel-assisted"
    assert kern["kernel"]["voluntary_per_handoff"] == pytest.approx(1.0)
    edge = row_of(_record([1.0] * 6, [10] * 6, [0] * 6, 1000))  # exactly 0.01: not below it
    assert edge["kernel"]["switch"] == "kernel-assisted"


def test_no_counts_is_said_not_guessed():
    r = row_of(_record([1.0] * 6, [], [], 1000))
    assert r["kernel"] == {}
    assert table.handoff_rows([r])[0][table.HANDOFF_HEADER.index("kernel switches per hand-off")] == "not counted"


def test_a_pinned_virtual_thread_is_flagged():
    r = row_of(_record([900.0] * 6, [0] * 6, [0] * 6, 1000, runtime="java", mechanism="vt-park",
                                 jfr={"virtual_thread_pinned": 3}))
    assert [w["code"] for w in r["warnings"]] == ["vt_pinned"]
    ok = row_of(_record([900.0] * 6, [0] * 6, [0] * 6, 1000, runtime="java", mechanism="vt-park",
                                  jfr={"virtual_thread_pinned": 0}))
    assert ok["warnings"] == []


def test_resolution_is_the_interval_s_standard_error_times_2_8():
    r = row_of(_record([100.0, 101, 99, 100, 102, 98, 100, 101, 99], [0] * 9, [0] * 9, 1000))
    lo, hi = r["summary"]["ci95"]
    assert r["resolution"]["mde_ns"] == pytest.approx(2.8016 * (hi - lo) / (2 * 1.96), rel=1e-3)


@pytest.mark.machine  # the real engine: a blocked thread sleeps in the kernel
def test_engine_reference_rows_are_the_whole_hand_off(engine_bin):
    """t_switch / 2n per sample, nothing subtracted: never below the
    engine's own derived switch cost (which subtracts the single party)."""
    import json
    p = run_engine("run", "kernel/thread/pipe/same-cpu", "user/asm/same-thread", "--groups", "2",
                   "--iterations", "3", "--min-sample-us", "200", "--warmup-ms", "0", "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    for eng in doc["results"]:
        raw = references.handoff_record(eng)
        n = eng["params"]["n"]
        assert raw["samples"] == [t / (2 * n) for t in eng["raw"]["t_switch_ns"]]
        assert all(h >= s for h, s in zip(raw["samples"], eng["samples"]))
        r = row_of(raw)
        if eng["id"].startswith("kernel/"):  # a blocked thread sleeps in the kernel: ~1 switch per hand-off
            assert 0.5 < r["kernel"]["per_handoff"] < 3, r["kernel"]
        else:  # the asm switch never enters the kernel
            assert r["kernel"]["switch"] == "user-level", r["kernel"]


def test_table_and_figure_show_every_row():
    rows = [row_of(_record([100.0 + i] * 6, [0] * 6, [0] * 6, 1000, mechanism=f"m{i}", placement=p))
            for i in range(3) for p in ("pinned", "default")]
    text = table.render(rows)
    assert all(f"m{i}" in text for i in range(3)) and "pinned, 1 CPU" in text and "default, 2 CPUs" in text
    assert len(table.handoff_rows(rows)) == 6
    fig = figures.figure(rows, {"hostname": "h", "cpu": {"model": "x"}})
    assert fig is not None and fig.axes[0].get_xscale() == "log"
    assert figures.figure([], {}) is None
    assert not any(math.isnan(float(r[3].split()[0])) for r in table.handoff_rows(rows) if r[3] != "n/a")
