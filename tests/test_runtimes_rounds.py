"""A runtimes run in rounds (runtimes/rounds.py): the rounds' records of one
id become one record whose groups keep their launch, and a difference
between launches beyond what groups vary by is said, with the launches'
medians (runtimes/analysis.launch_spread)."""
import pytest

from ctxbench.runtimes import analysis, rounds
from ctxbench.core.results import plain


def row_of(raw: dict) -> dict:
    """analysis.row_of's record as builtins, read member by member below."""
    return plain(analysis.row_of(raw))


def _rec(samples, groups, n=100, mech="channel", **extra):
    k = len(samples)
    return {"id": f"runtimes/go/{mech}/pinned", "quantity": "handoff", "unit": "ns",
            "params": {"runtime": "go", "mechanism": mech, "placement": "pinned", "n": n, "delay_ns": 0},
            "samples": list(samples), "group": list(groups),
            "raw": {"total_ns": [s * 2 * n for s in samples], "handoffs": [2 * n] * k},
            "verify": {"voluntary": [0] * k, "involuntary": [0] * k, "source": "getrusage"},
            "warnings": [], **extra}


@pytest.mark.parametrize("groups,rounds_,want", [(8, 3, [3, 3, 2]), (2, 1, [2]), (2, 3, [1, 1]), (20, 5, [4] * 5)])
def test_split_spreads_groups_over_rounds(groups, rounds_, want):
    assert rounds.split(groups, rounds_) == want and sum(want) == groups


def test_merge_renumbers_groups_and_keeps_each_rounds_parts():
    a = _rec([10.0, 11, 12, 13], [0, 0, 1, 1], n=100, jfr={"virtual_thread_pinned": 0})
    b = _rec([20.0, 21], [0, 0], n=50, jfr={"virtual_thread_pinned": 2})
    spawn = dict(_rec([5.0], [0]), id="runtimes/go/goroutine/spawn/pinned", quantity="spawn")
    out = {r["id"]: r for r in rounds.merge([[a, spawn], [b]], [2, 1])}
    m = out["runtimes/go/channel/pinned"]
    assert m["samples"] == [10, 11, 12, 13, 20, 21] and m["group"] == [0, 0, 1, 1, 2, 2]
    assert m["raw"]["handoffs"] == [200] * 4 + [100] * 2  # each sample keeps its own round trips
    assert m["params"]["n_per_round"] == [100, 50] and m["params"]["rounds"] == 2
    assert m["params"]["launch_groups"] == [2, 1] and m["jfr"] == {"virtual_thread_pinned": 2}
    assert out["runtimes/go/goroutine/spawn/pinned"]["params"]["launch_groups"] == [2]  # measured once
    assert rounds.launches(m) == [[10.5, 12.5], [20.5]]


def test_launches_that_differ_are_said_with_their_medians():
    # three launches, three groups each: within a launch the groups agree to
    # 1%, between launches the cost doubles (a JIT's choice, say)
    per = [100.0, 200.0, 100.0]
    recs = [[_rec([v * (1 + 0.01 * g)] * 4, [g] * 4) for g in range(3)] for v in per]
    merged = rounds.merge([[_join(r)] for r in recs], [3, 3, 3])
    r = row_of(merged[0])
    assert r["launches"]["medians"] == pytest.approx([101, 202, 101])
    w = [x for x in r["warnings"] if x["code"] == "launch_spread"]
    assert len(w) == 1 and "101 ns, 202 ns, 101 ns" in w[0]["text"] and w[0]["data"]["p"] < 0.01
    # the same spread within launches, none between: nothing to say
    same = [[_rec([100.0 * (1 + 0.5 * g)] * 4, [g] * 4) for g in range(3)] for _ in per]
    r = row_of(rounds.merge([[_join(x)] for x in same], [3, 3, 3])[0])
    assert not [x for x in r["warnings"] if x["code"] == "launch_spread"] and r["launches"]["p_launch"] > 0.5
    # re-analysing keeps one warning
    again = row_of(row_of(merged[0]))
    assert [x["code"] for x in again["warnings"]].count("launch_spread") == 1


def test_one_launch_has_no_launch_record():
    r = row_of(_rec([100.0] * 6, [0, 0, 0, 1, 1, 1]))
    assert "launches" not in r


def _join(parts):
    """One launch's groups as one record (what a harness run returns)."""
    out = parts[0]
    for p in parts[1:]:
        from ctxbench.core import model
        out = model.append_samples(out, p)
    return out


def test_the_table_marks_rows_whose_launches_differ():
    from ctxbench.runtimes import table
    differ = [[_rec([v * (1 + 0.01 * g)] * 4, [g] * 4) for g in range(3)] for v in (100.0, 200.0, 100.0)]
    agree = [[_rec([50.0 * (1 + 0.5 * g)] * 4, [g] * 4, mech="gosched") for g in range(3)] for _ in range(3)]
    rows = [row_of(r) for r in rounds.merge([[_join(a), _join(b)] for a, b in zip(differ, agree)], [3] * 3)]
    text = table.render(rows)
    assert f"{table.LAUNCHES_DIFFER} its launches differ" in text
    assert "  go channel (pinned): 101 ns, 202 ns, 101 ns" in text and "go gosched (pinned):" not in text


def test_the_figure_draws_each_launchs_median():
    from ctxbench.runtimes import figures
    differ = [[_rec([v * (1 + 0.01 * g)] * 4, [g] * 4) for g in range(3)] for v in (100.0, 200.0, 100.0)]
    rows = [row_of(r) for r in rounds.merge([[_join(x)] for x in differ], [3] * 3)]
    fig = figures.figure(rows, {})
    ticks = [line for line in fig.axes[0].lines if line.get_marker() == "|" and len(line.get_xdata()) == 3]
    assert len(ticks) == 1 and sorted(ticks[0].get_xdata()) == pytest.approx([101, 101, 202])
