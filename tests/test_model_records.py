"""The views read records (issue 34): a member the record leaves UNSET
reads as the view's default, an open record's undeclared member comes
from its `extra`, and a record reads the same as its builtins."""
from __future__ import annotations

import math

from ctxbench.core import model, results
from ctxbench.run.record import Run
from ctxbench.records import RECORDS


def _doc() -> dict:
    r = {"id": "kernel/thread/pipe/same-cpu", "quantity": "switch", "unit": "ns", "params": {"cpu": 1},
         "samples": [1.0, 2.0, 3.0], "group": [0, 1, 2],
         "summary": {"n": 3, "median": 2.0, "ci95": [1.0, 3.0], "launch_interval": {"df": 2}},
         "indirect": {"estimate_ns": 5.0, "se_ns": 1.0, "ci_simultaneous": [1.0, 9.0]}}
    return {"schema": "ctxbench/2", "tool": {"name": "ctxbench-engine"},
            "environment": {"hostname": "h", "cpu": {"model": "M", "family": 6},
                            "virtualization": {"is_vm": True}},
            "results": [r], "run": {"order": "interleaved by group", "drift": {"rounds": 3}}}


def test_a_record_reads_as_its_builtins_through_every_view():
    doc = _doc()
    rec = RECORDS.read(doc)
    for d in (doc, rec):
        v = model.Document(d)
        (r,) = v.results
        assert r.id == "kernel/thread/pipe/same-cpu" and r.params.cpu == 1 and r.samples == [1.0, 2.0, 3.0]
        assert r.summary.median == 2.0 and r.summary.ci95 == (1.0, 3.0) and r.summary.n == 3
        assert r.summary.launch_interval == {"df": 2}  # an undeclared member: the record's extra
        assert math.isnan(r.summary.mde) and r.summary.ci95_for is None  # absent (UNSET): the default
        assert r.indirect.estimate == 5.0 and r.indirect.ci_simultaneous == (1.0, 9.0)
        assert r.above_pingpong is None and r.verification == {} and not r.cycles.applies
        assert v.environment.hostname == "h" and v.environment.cpu_model == "M" and v.environment.is_vm
        assert v.environment.cycle_hz is None
        assert v.command == "run" and (v.section() == Run(order="interleaved by group", drift={"rounds": 3})
                                       if d is rec else v.section() == d["run"])
        assert v.tool == {"name": "ctxbench-engine"}


def test_with_members_makes_a_new_record_of_the_declared_types():
    rec = RECORDS.result(_doc()["results"][0])
    new = model.with_members(rec, summary={"median": 4.0, "ci95": [3.0, 5.0]})
    assert isinstance(new.summary, results.Stats) and new.summary.median == 4.0
    assert rec.summary.median == 2.0  # the record it was made from, as it was
