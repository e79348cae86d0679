"""The ring's intervals describe another run (issue 22: "points whose
run-to-run movement exceeds their interval must carry that wider
interval"; stats/drift.py next_run). Synthetic ring documents, no measuring:
points with a known per-round level, round jitter and sample noise, written
as `ctxbench ring` writes them and read back the way compare and report
read them."""
import json
import math

import numpy as np
import pytest

from conftest import run_cli

from ctxbench.core import model, reader, results
from ctxbench.stats import drift
from ctxbench.records import RECORDS

ROUNDS, PER_GROUP = 16, 6  # the ring's default preset
JITTER, NOISE = 0.03, 0.02  # a round's own level (relative sd), a sample's


def _ring_doc(levels, points, seed):
    """A ring document of `points` points; levels(i, r) is point i's host
    level (log) in round r, beside its jitter."""
    rng = np.random.default_rng(seed)
    results = []
    for i in range(points):
        base = 1000.0 * (1 + i % 7)
        x, g = [], []
        for r in range(ROUNDS):
            lev = levels(i, r) + rng.normal(0, JITTER)
            x += (base * math.exp(lev) * (1 + rng.normal(0, NOISE, PER_GROUP))).tolist()
            g += [r] * PER_GROUP
        results.append({"id": "ring/thread/pipe", "quantity": "switch", "unit": "ns",
                        "params": {"kind": "thread", "mechanism": "pipe", "parties": 2 + i, "footprint": 0},
                        "samples": x, "group": g})
    return {"schema": model.SCHEMA, "tool": {}, "environment": {}, "results": results,
            "ring": {"command": "ring", "order": "interleaved by group"}}


def _read(doc, tmp_path, name):
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return results.plain(reader.load(str(p), RECORDS).results)


def _holds(a, b):
    """Per point: does a's interval hold b's median?"""
    return [ra["summary"]["ci95"][0] <= rb["summary"]["median"] <= ra["summary"]["ci95"][1] for ra, rb in zip(a, b)]


def test_a_point_that_drifts_carries_the_next_run_in_its_interval(tmp_path):
    """A third of the points meet a host whose level swings by +-6% in
    stretches of 4 rounds; the next run meets it stuck at +6% all along.
    The first run saw the swing, so its interval must hold the next run's
    median at every such point (within-run intervals held 5 of 16 here)."""
    moving = lambda i: i % 3 == 0  # noqa: E731
    swing = 0.06
    first = _read(_ring_doc(lambda i, r: (swing if (r // 4) % 2 else -swing) if moving(i) else 0.0, 48, 1),
                  tmp_path, "a.json")
    stuck = _read(_ring_doc(lambda i, r: swing if moving(i) else 0.0, 48, 2), tmp_path, "b.json")
    held = _holds(first, stuck)
    assert all(h for i, h in enumerate(held) if moving(i)), [i for i, h in enumerate(held) if moving(i) and not h]
    # what lasted over rounds was seen as drift (the points that stayed get
    # some too: the common factor, a median over points, follows a third
    # of them a little, and they carry the opposite of that)
    assert all(r["summary"]["own_drift_rel_sd"] > 0 for i, r in enumerate(first) if moving(i))
    assert sum(held) >= 0.9 * len(held)


@pytest.mark.slow  # many simulated runs
def test_without_drift_the_interval_is_two_runs_sampling_error_only(tmp_path):
    """No drift at all: two runs differ by their sampling errors alone, so
    each interval must still hold the other run's median at >= 90% of 112
    points (a 95% interval of one run's median holds another run's 83% of
    the time: 93-98 of 112 here), and nothing may be added for drift that
    is not there: no own drift, and the interval within 10% (median over
    points) of sqrt(2) t x the run's own bootstrap interval."""
    a = _read(_ring_doc(lambda i, r: 0.0, 112, 3), tmp_path, "a.json")
    b = _read(_ring_doc(lambda i, r: 0.0, 112, 4), tmp_path, "b.json")
    assert sum(_holds(a, b)) >= 101 and sum(_holds(b, a)) >= 101, (sum(_holds(a, b)), sum(_holds(b, a)))
    for run in (a, b):
        assert all(r["summary"]["own_drift_rel_sd"] == 0 for r in run)
        ratio = [(r["summary"]["ci95"][1] - r["summary"]["ci95"][0])
                 / (r["summary"]["ci95_multiple"] * (r["summary"]["ci95_within"][1] - r["summary"]["ci95_within"][0]))
                 for r in run]
        assert 1 <= np.median(ratio) < 1.10, np.median(ratio)


def test_next_run_arithmetic():
    """sqrt(2) x t(15)/z x each side in quadrature with z x the drifts
    (t_0.975,15 = 2.1314 from tables)."""
    s = {"median": 100.0, "ci95": [98.0, 103.0]}
    w = drift.next_run(s, 0.01, 0.02, 16)
    k = math.sqrt(2) * 2.1314 / 1.96
    d = 1.96 * 100 * math.hypot(0.01, 0.02)
    assert w["ci95_within"] == [98.0, 103.0] and w["ci95_for"] == "another run's median"
    assert math.isclose(w["ci95"][0], 100 - k * math.hypot(2, d), rel_tol=1e-4)
    assert math.isclose(w["ci95"][1], 100 + k * math.hypot(3, d), rel_tol=1e-4)
    assert drift.next_run({"median": math.nan, "ci95": [1, 2]}, 0.01, 0.0, 16)["ci95"] == [1, 2]


def test_persistence_known_answers():
    """Pooled lag-1 autocorrelation: levels lasting 4 rounds (+a x4, -a x4,
    ...) keep 12 of 15 adjacent pairs: (12 - 3)/16; alternating signs keep
    none: -15/16; a point's own drift is sqrt(rho x its mean square)."""
    four = np.array([[0.05 if (r // 4) % 2 else -0.05 for r in range(16)]] * 3)
    assert math.isclose(drift.persistence(four), 9 / 16)
    alt = np.array([[0.05 * (-1) ** r for r in range(16)]])
    assert math.isclose(drift.persistence(alt), -15 / 16)
    assert math.isclose(drift.own_sd(four[0], 9 / 16), math.sqrt(9 / 16) * 0.05)
    assert drift.own_sd(alt[0], -15 / 16) == 0.0
    assert math.isnan(drift.persistence(np.array([[0.1, -0.1, 0.1]])))  # too few rounds to say


def test_reader_re_derives_what_the_command_wrote(tmp_path):
    """The ring command's intervals (model.apply_next_run) come back the same
    from a file: compare and report show the interval the command printed."""
    doc = _ring_doc(lambda i, r: 0.04 * (r // 4 % 2) if i % 2 else 0.0, 12, 5)
    res = [model.analyse(r) for r in doc["results"]]
    res, rec = model.apply_next_run(res)
    again = _read(doc, tmp_path, "r.json")
    assert [r["summary"]["ci95"] for r in again] == [r.summary.ci95 for r in res]
    assert rec["persistence"] is not None and rec["rounds"] == ROUNDS


@pytest.mark.slow  # many simulated runs through compare
def test_compare_counts_how_often_each_interval_holds_the_other_run(tmp_path):
    """Two ring files: compare says how many points' intervals hold the
    other run's median, each way. Known answers: a file against itself
    holds all; against a run 3x slower, none."""
    doc = _ring_doc(lambda i, r: 0.0, 12, 6)
    slow = json.loads(json.dumps(doc))
    for r in slow["results"]:
        r["samples"] = [3 * x for x in r["samples"]]
    for name, d in (("a.json", doc), ("slow.json", slow)):
        (tmp_path / name).write_text(json.dumps(d))
    same = run_cli("compare", str(tmp_path / "a.json"), str(tmp_path / "a.json"))
    assert same.returncode == 0, same.stderr
    assert ("intervals: base's 95% interval holds new's median at 12 of 12 points, new's holds base's at 12 of 12 "
            "(each made to hold another run's median)") in same.stdout
    moved = run_cli("compare", str(tmp_path / "a.json"), str(tmp_path / "slow.json"))
    assert "holds new's median at 0 of 12 points, new's holds base's at 0 of 12" in moved.stdout, moved.stdout
