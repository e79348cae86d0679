"""The conversion arithmetic of ctxbench peers on known numbers: a peer's
number per op in ctxbench's unit, its ratio to ctxbench's part, the
prediction from parts, the verdicts (and "not resolved" where the rounds
cannot tell), the switch check, and the rule that an unpinned peer is
never set beside a same-CPU switch cost."""
from __future__ import annotations

import pytest

from ctxbench.core import model
from ctxbench.peers import analysis, catalogue, parts, table
from ctxbench.records import RECORDS

PARTS = {"process.handoff": 3000.0, "process.direct": 2200.0, "process.single": 800.0,
         "process.x.handoff": 20000.0, "thread.handoff": 2800.0, "thread.direct": 2100.0, "thread.single": 700.0,
         "ucontext.direct": 220.0, "clock.read": 25.0, "syscall.value": 140.0, "syscall.spread": 15.0,
         "syscall.dispatch": 35.0, "futex.direct": 2000.0}


def launches(per_op, ops=1000, switches=None, parts_=PARTS):
    """One launch per round with these numbers; `switches` per op split as the peer's voluntary count."""
    out = []
    for r, x in enumerate(per_op):
        sw = 0 if switches is None else switches * ops
        out.append({"round": r, "argv": ("peer", str(ops)), "cpus": [1], "count": ops, "per_op_ns": x, "ops": ops,
                    "wall_s": 0.1, "voluntary": sw, "involuntary": 0, "said": f"{x} ns", "parts": dict(parts_)})
    return out


def test_perf_pinned_is_two_hand_offs():
    peer = catalogue.BY_KEY["perf-sched-pipe/process"]
    r = analysis.row(peer, catalogue.PINNED, launches([6000.0] * 6, switches=2), "perf 6.1")
    assert r["samples"] == [3000.0] * 6           # ns per hand-off: the round trip over 2
    c = r["comparison"]
    assert c["ratio"]["point"] == pytest.approx(1.0) and c["explained"]["point"] == pytest.approx(1.0)
    assert c["verdict"] == "agrees" and c["switches_ok"] is True
    assert r["params"]["label"] == catalogue.SAME_CPU


def test_a_slow_window_in_one_round_does_not_move_the_ratio():
    """The host slows this guest by a third for a window that hits one
    side of a round (ctxbench's engine run in round 3 here): the ratio is
    the median of the rounds' ratios, so that round is one outlier among
    twenty, not a third of a round's sum carried into the estimate."""
    peer = catalogue.BY_KEY["perf-sched-pipe/process"]
    rows = launches([6000.0] * 20, switches=2)
    rows[3]["parts"] = dict(PARTS, **{"process.handoff": 3000.0 * 1.35})
    c = analysis.row(peer, catalogue.PINNED, rows, "perf 6.1")["comparison"]
    assert c["ratio"]["point"] == pytest.approx(1.0) and c["ratio"]["statistic"] == "median"
    assert c["ratio"]["ci95"] == pytest.approx([1.0, 1.0])  # 19 of 20 rounds at exactly 1: every resample's median
    assert c["verdict"] == "agrees"


def test_stress_ng_switch_is_accounted_for_by_half_a_pipe():
    """Its op holds two switches, one write and one read: per switch, the
    direct switch plus half of a write and a read."""
    peer = catalogue.BY_KEY["stress-ng-switch"]
    r = analysis.row(peer, catalogue.PINNED, launches([5200.0] * 6, switches=2), "0.15.06")
    c = r["comparison"]
    assert r["samples"][0] == 2600.0
    assert c["ratio"]["point"] == pytest.approx(2600 / 2200)            # 18% above the direct switch ...
    assert c["predicted"]["point"] == pytest.approx(2200 + 400)         # ... which the half pipe accounts for
    assert c["verdict"] == "accounted for"


def test_ctx_clock_rebuilt_from_the_syscalls_parts():
    peer = catalogue.BY_KEY["ctx-clock"]
    r = analysis.row(peer, catalogue.PINNED, launches([90.0] * 6), "engine")
    c = r["comparison"]
    assert c["predicted"]["point"] == pytest.approx(140 - 15 - 35)
    assert c["explained"]["point"] == pytest.approx(1.0) and c["verdict"] == "accounted for"


def test_stress_ng_context_adds_a_clock_read():
    peer = catalogue.BY_KEY["stress-ng-context"]
    r = analysis.row(peer, catalogue.PINNED, launches([245.0] * 3), "0.15.06")
    assert r["comparison"]["predicted"]["point"] == pytest.approx(245.0)


def test_hackbench_adds_its_measured_switches_at_the_direct_cost():
    peer = catalogue.BY_KEY["hackbench"]
    r = analysis.row(peer, catalogue.PINNED, launches([900.0] * 6, switches=0.05), "2.4")
    assert r["comparison"]["predicted"]["point"] == pytest.approx(800 + 0.05 * 2200)
    assert r["comparison"]["switches_per_op"] == pytest.approx(0.05)


def test_the_ratio_is_taken_round_by_round():
    """A host twice as fast in round 2 moves the peer and ctxbench alike:
    the ratio stays 1 and its interval is zero wide."""
    peer = catalogue.BY_KEY["perf-sched-pipe/process"]
    ls = launches([6000.0, 3000.0] * 3, switches=2)
    for x in ls[1::2]:
        x["parts"] = {k: v / 2 for k, v in PARTS.items()}
    c = analysis.row(peer, catalogue.PINNED, ls, "perf")["comparison"]
    assert c["ratio"]["ci95"] == pytest.approx([1.0, 1.0]) and c["verdict"] == "agrees"


def test_a_wide_interval_is_not_resolved():
    peer = catalogue.BY_KEY["perf-sched-pipe/process"]
    c = analysis.row(peer, catalogue.PINNED, launches([4000.0, 8000.0, 5000.0, 7000.0, 6000.0], switches=2),
                     "perf")["comparison"]
    assert c["verdict"] == "not resolved" and "more rounds" in c["resolution"]


def test_too_few_rounds_are_not_resolved():
    """Two rounds' bootstrap is the range of two ratios: no interval."""
    peer = catalogue.BY_KEY["perf-sched-pipe/process"]
    c = analysis.row(peer, catalogue.PINNED, launches([6000.0, 6010.0], switches=2), "perf")["comparison"]
    assert c["verdict"] == "not resolved" and "5 at least" in c["resolution"]


@pytest.mark.parametrize("ci, verdict", [
    ([0.95, 1.05], "agrees"), ([0.91, 1.09], "agrees"), ([0.85, 0.95], "not resolved"),
    ([0.80, 0.88], "differs (no part accounts for it)"), ([1.12, 1.3], "differs (no part accounts for it)")])
def test_the_verdict_is_an_equivalence_test_on_the_interval(ci, verdict):
    ratio = {"point": sum(ci) / 2, "ci95": ci, "rounds": 20}
    assert analysis.verdict(ratio, ratio, False, True, False)[0] == verdict


def test_parts_account_only_when_their_interval_is_inside():
    far = {"point": 0.8, "ci95": [0.75, 0.85], "rounds": 20}
    near = {"point": 1.0, "ci95": [0.95, 1.05], "rounds": 20}
    edge = {"point": 0.9, "ci95": [0.85, 0.95], "rounds": 20}
    assert analysis.verdict(far, near, True, True, False)[0] == "accounted for"
    assert analysis.verdict(far, far, True, True, False)[0] == "not accounted for"
    assert analysis.verdict(far, edge, True, True, False)[0] == "not resolved"
    assert analysis.verdict(far, near, True, True, True)[0] == "no ctxbench equivalent (shown for scale)"


def test_a_peer_that_does_not_switch_as_its_docs_say_is_warned():
    peer = catalogue.BY_KEY["perf-sched-pipe/process"]
    r = analysis.row(peer, catalogue.PINNED, launches([6000.0] * 3, switches=0.5), "perf")
    assert r["comparison"]["switches_ok"] is False
    assert [w["code"] for w in r["warnings"]] == ["peer_switches"]


def test_no_equivalent_says_so():
    peer = catalogue.BY_KEY["hackbench"]
    c = analysis.row(peer, catalogue.UNPINNED, launches([600.0] * 3), "2.4")["comparison"]
    assert c["ratio"] is None and c["verdict"] == "no ctxbench equivalent"


def test_a_missing_part_leaves_the_ratio_out():
    peer = catalogue.BY_KEY["perf-sched-pipe/process"]
    c = analysis.row(peer, catalogue.PINNED, launches([6000.0] * 3, switches=2, parts_={}), "perf")["comparison"]
    assert c["ratio"] is None and c["verdict"] == "no ctxbench figure this run"


def test_a_row_fits_the_results_model_and_its_table_cells():
    peer = catalogue.BY_KEY["stress-ng-switch"]
    r = analysis.row(peer, catalogue.UNPINNED, launches([40000.0] * 3, switches=2), "0.15.06")
    rec = model.analyse(r, RECORDS.Result)  # the record the results model keeps (validated)
    assert model.Result(rec).id == "peers/stress-ng-switch/unpinned"
    cells = table.cells(r)
    assert cells[0] == peer.title and cells[1] == "unpinned" and cells[-1] == "not resolved"  # 3 rounds < 5


def test_unpinned_rows_are_never_same_cpu_switch_costs():
    """An unpinned peer's tasks may hand off across CPUs: its row is a
    cross-CPU wake-up (matched with a cross-cpu id) or has no hand-off at
    all; no view sets a cross-CPU row beside a same-CPU part."""
    same_cpu_parts = {"process.handoff", "process.direct", "thread.handoff", "thread.direct", "futex.direct"}
    for peer in catalogue.PEERS:
        for place, view in peer.views.items():
            if place == catalogue.UNPINNED:
                assert view.label != catalogue.SAME_CPU, peer.key
            if view.label == catalogue.CROSS_CPU:
                assert view.match and ".x." in view.match, peer.key
                assert not any(n in same_cpu_parts for _, n in view.predict), peer.key
            for _, name in (*view.predict, *view.switch_parts, (1, view.match)):
                assert name is None or name in parts.NAMES, (peer.key, name)


def test_an_unpinned_launch_kept_on_one_cpu_is_warned():
    """Two tasks the scheduler kept on one CPU keep it busy and leave the
    other idle: that round measured a same-CPU switch, and the
    cross-CPU row says how many rounds were so."""
    peer = catalogue.BY_KEY["perf-sched-pipe/process"]
    ls = launches([40000.0, 6000.0, 41000.0], switches=2)
    for x, busy in zip(ls, ([0.02, 0.03], [0.0, 0.1], [0.03, 0.02])):
        x["cpus"], x["wall_s"], x["cpu_busy_s"] = [0, 1], 0.1, busy
    r = analysis.row(peer, catalogue.UNPINNED, ls, "perf")
    assert r["comparison"]["one_cpu_rounds"] == 1 and r["comparison"]["rounds_judged"] == 3
    assert "peer_one_cpu" in [w["code"] for w in r["warnings"]]
    assert analysis.one_cpu([0.1, 0.0], 0.1) is True and analysis.one_cpu([0.02, 0.02], 0.1) is False
    assert analysis.one_cpu([None, 0.1], 0.1) is None and analysis.one_cpu([0.1], 0.1) is None


def test_one_thread_rows_are_not_judged_for_placement():
    peer = catalogue.BY_KEY["stress-ng-context"]
    ls = launches([250.0] * 3)
    for x in ls:
        x["cpus"], x["wall_s"], x["cpu_busy_s"] = [0, 1], 0.1, [0.1, 0.0]
    r = analysis.row(peer, catalogue.UNPINNED, ls, "0.15.06")
    assert r["comparison"]["one_cpu_rounds"] is None and not r["warnings"]
