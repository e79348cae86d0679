"""The run-to-run part of an interval: a drift common to all ids is found
and added; the within-run interval is kept; a file re-read gives the same."""
import math

import numpy as np

from ctxbench.core import model, reader, writer
from ctxbench.stats import drift
from ctxbench.records import RECORDS


def _interleaved(level_per_round, ids=6, per_group=8, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(ids):
        base = 1000.0 * (i + 1)
        x, g = [], []
        for r, lev in enumerate(level_per_round):
            x += list(base * math.exp(lev) * (1 + rng.normal(0, 0.01, per_group)))
            g += [r] * per_group
        out.append((np.array(x), np.array(g)))
    return out


def test_planted_drift_is_recovered():
    # the machine is 4% slower in alternate blocks of 4 rounds: block means of
    # 2 rounds then swing by +-2% around their mean (sd 2%)
    levels = [0.02 if (r // 4) % 2 else -0.02 for r in range(48)]
    rel = drift.relative_sd(drift.common_factor(_interleaved(levels)))
    assert 0.015 < rel < 0.025


def test_no_drift_adds_little():
    rel = drift.relative_sd(drift.common_factor(_interleaved([0.0] * 48)))
    # only the 1% sample noise averaged over 8 samples, 6 ids and 2 rounds
    assert rel < 0.003


def test_widen_keeps_within_interval_and_contains_it():
    s = {"median": 100.0, "ci95": [99.0, 101.5]}
    w = drift.widen(s, 0.01)
    assert w["ci95_within"] == [99.0, 101.5]
    assert w["ci95"][0] < 99.0 and w["ci95"][1] > 101.5
    assert math.isclose(101.5 - 100.0, 1.5) and math.isclose(w["ci95"][1] - 100, math.hypot(1.5, 1.96 * 1.0), rel_tol=1e-3)
    assert drift.widen(s, math.nan) == s


def test_too_few_rounds_add_nothing():
    assert math.isnan(drift.relative_sd(drift.common_factor(_interleaved([0.0] * 4))))


def test_reader_re_derives_the_same_drift(tmp_path):
    levels = [0.02 if (r // 4) % 2 else -0.02 for r in range(24)]
    results = []
    for i, (x, g) in enumerate(_interleaved(levels, ids=3)):
        raw = {"id": f"kernel/thread/x{i}/same-cpu", "quantity": "switch", "unit": "ns",
               "params": {"placement": "same-cpu"}, "samples": x.tolist(), "group": [int(k) for k in g]}
        results.append(model.analyse(raw))
    results, rec = model.apply_drift(results)
    doc = model.document({}, {}, results, extra={"run": {"order": "interleaved by group", "drift": rec}}, records=RECORDS)
    p = tmp_path / "r.json"
    writer.write_results(str(p), doc)
    again = reader.load(str(p), RECORDS)
    assert math.isclose(again.run.drift["relative_sd"], rec["relative_sd"])
    assert again.results[0].summary.ci95 == results[0].summary.ci95
    assert again.results[0].summary.ci95_within
