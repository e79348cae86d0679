"""The analyses return new results and leave the ones they were given as
they were (issue 34): a result read or measured once is never changed
behind the back of another reader of it."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from ctxbench.anatomy import attribution
from ctxbench import rounds
from ctxbench.core import model, reader
from ctxbench.core.results import plain
from ctxbench.core.store.between import Spread
from ctxbench.irq import analysis as irq_analysis
from ctxbench.ring import analysis as ring_analysis
from ctxbench.runtimes import analysis as runtimes_analysis
from ctxbench.sweep import analysis as sweep_analysis
from ctxbench.records import RECORDS

ROUNDS, PER_GROUP, OPS = 8, 6, 1000


def _clock_probe(ghz: list[float]) -> dict:
    t = [OPS / f for f in ghz]
    return {"ops": OPS, "group": list(range(len(ghz))), "before_ns": t, "after_ns": list(t),
            "pmu_cycles_per_op": [None] * len(ghz)}


def _raw(rid: str, params: dict, ns: float, seed: int) -> dict:
    """A result measured interleaved: ROUNDS groups, a drifting clock."""
    rng = np.random.default_rng(seed)
    ghz = (3.0 * np.exp(rng.normal(0, 0.03, ROUNDS))).tolist()
    x = [float(v) for r in range(ROUNDS) for v in ns * (1 + rng.normal(0, 0.01, PER_GROUP)) * 3.0 / ghz[r]]
    return {"id": rid, "quantity": "switch", "unit": "ns", "params": params, "samples": x,
            "group": [r for r in range(ROUNDS) for _ in range(PER_GROUP)], "clock_probe": _clock_probe(ghz),
            "warnings": [], "counters": {"available": True, "switch": {"a": {"instructions": 1000,
                                                                              "l1d_load_misses": 5}}}}


def _results() -> list[dict]:
    return [model.analyse(_raw("kernel/thread/pipe/same-cpu", {"kind": "thread", "mechanism": "pipe", "cpu": 1,
                                                                "placement": "same-cpu"}, 2000.0, 1)),
            model.analyse(_raw("ring/thread/pipe", {"kind": "thread", "mechanism": "pipe", "parties": 4,
                                                    "footprint": 0}, 3000.0, 2)),
            model.analyse(_raw("m", {"size": 4096, "stride": 0}, 1000.0, 3)),
            model.analyse(_raw("m", {"size": 8192, "stride": 0}, 1000.0, 4)),
            model.analyse(_raw("m", {"size": 4096, "stride": 64}, 1500.0, 5))]


def _unchanged(f, *args):
    """f's result, after checking that f left its arguments as they were."""
    data = [a for a in args if isinstance(a, (dict, list))]
    before = copy.deepcopy(data)
    out = f(*args)
    assert data == before, f.__name__
    return out


@pytest.mark.parametrize("form", ["records", "builtins"])
def test_every_analysis_leaves_its_input_unchanged_and_returns_new_results(form):
    """Records are frozen; builtins (what a command is still building) are
    left as they were all the same."""
    res = _results() if form == "records" else plain(_results())
    widened, rec = _unchanged(model.apply_drift, res)
    assert rec["rounds"] == ROUNDS and widened[0] is not res[0] and "ci95_within" in plain(widened[0])["summary"]
    again, rec = _unchanged(model.apply_next_run, res)
    assert model.Result(again[0]).summary.ci95_for == "another run's median"
    spread = {model.Result(res[0]).point_key: Spread(5, 0.1, 0.01, 0.08, 0.004)}
    between, n = _unchanged(rounds.apply_between_runs, res, spread)
    assert n == 1 and "ci95_this_run" in plain(between[0])["summary"] and between[1] is res[1]
    above = _unchanged(ring_analysis.with_above_pingpong, res)
    assert model.Result(above[1]).above_pingpong and model.Result(above[0]).above_pingpong is None
    ind = _unchanged(sweep_analysis.with_indirect, res)
    assert all(model.Result(r).indirect for r in ind[2:]) and "simultaneous_t" in plain(ind[2])["indirect"]
    rates = _unchanged(sweep_analysis.with_counter_rates, res[2])
    assert "per_kilo_instructions" in model.Result(rates).counters
    launches = _unchanged(runtimes_analysis.over_launches, res[0])
    assert launches is not res[0]
    point = dict(plain(res[0]), parts={"I": {"estimate_ns": 1.0}})
    (marked,) = _unchanged(irq_analysis.untrusted, [point], {"ok": False, "reason": "a test"})
    assert model.Result(marked).effects["I"]["trusted"] is False and model.Result(marked).warnings[0].code == "untrusted"
    profile = {"chains": [{"ips": ["ffffffff81000010"], "count": 1}]}
    named = _unchanged(attribution.named_chains, profile, attribution.Symbols("ffffffff81000000 T a\n"))
    assert named["chains"][0]["functions"] == ["a"]


def test_the_reader_leaves_the_document_it_was_given_unchanged():
    res, rec = model.apply_drift(_results())
    doc = json.loads(json.dumps(plain(model.document({}, {}, res, {"run": {"order": "interleaved by group",
                                                                           "drift": rec}}, records=RECORDS))))
    back = _unchanged(reader.parse, doc, "test", RECORDS)
    assert back.run.drift["rounds"] == ROUNDS
