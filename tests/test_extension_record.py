"""A command with members of its own in a results file touches its package
and the registry, never core/ (issue 47): here a toy command declares its
section and a member of its results through the registration API alone
(core/results: Feature, Records), is registered beside the real features,
and its document is written, read back, described by the JSON Schema and
refused by a registry that does not know it, with no file under
src/ctxbench/core changed or naming it."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Union

import pytest
from msgspec import UNSET, UnsetType

import ctxbench
from ctxbench.core import model, reader, results
from ctxbench.core.errors import UserError
from ctxbench.core.results import Closed, Feature, Records, Section, Stats
from ctxbench.core.results.base import Int
from ctxbench.records import RECORDS

CORE = Path(ctxbench.__file__).resolve().parent / "core"


# What the toy command's package would hold (toy/record.py) ...
class Toy(Section, frozen=True):
    knob: Int = UNSET


class ToyPoint(Closed, frozen=True):
    toy_cost: Union[Stats, UnsetType] = UNSET


# ... and its line in the registry (ctxbench/records.py)
WITH_TOY = Records(*RECORDS.features, Feature("toy", section=Toy, result=ToyPoint))


def _engine_result() -> dict:
    return {"id": "kernel/thread/pipe/same-cpu", "quantity": "switch", "unit": "ns", "params": {"cpu": 1, "n": 10},
            "samples": [1.0, 2.0, 3.0, 2.5], "group": [0, 0, 1, 1]}


def _write(path: Path) -> None:
    point = model.with_members(model.analyse(_engine_result()), toy_cost={"estimate_ns": 4.0, "ci95": [3.0, 5.0]})
    doc = model.document({"name": "ctxbench-engine"}, {"hostname": "h"}, [point],
                         extra={"toy": {"knob": 3, "preset": "quick"}}, records=WITH_TOY)
    path.write_bytes(results.encode(doc))


def test_a_toy_command_s_records_need_no_change_in_core(tmp_path):
    path = tmp_path / "toy.json"
    _write(path)
    rec = reader.load(str(path), WITH_TOY)
    view = model.Document(rec)
    assert view.command == "toy" and view.section() == Toy(knob=3, preset="quick")
    (r,) = view.records
    assert isinstance(r.toy_cost, Stats) and results.member(r, "toy_cost").estimate_ns == 4.0
    assert model.Result(r).summary.median == pytest.approx(2.25)  # the core's members as ever
    assert json.loads(path.read_text())["results"][0]["toy_cost"] == {"estimate_ns": 4.0, "ci95": [3.0, 5.0]}
    assert not [p for p in CORE.rglob("*.py") if "toy_cost" in p.read_text() or "ToyPoint" in p.read_text()]


def test_the_toy_s_members_are_in_the_schema_and_refused_without_its_record(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    path = tmp_path / "toy.json"
    _write(path)
    schema = WITH_TOY.json_schema()
    assert "toy_cost" in schema["$defs"]["Result"]["properties"] and "knob" in schema["$defs"]["Toy"]["properties"]
    jsonschema.Draft202012Validator(schema).validate(json.loads(path.read_text()))
    assert not jsonschema.Draft202012Validator(RECORDS.json_schema()).is_valid(json.loads(path.read_text()))
    with pytest.raises(UserError, match="unknown field `toy_cost`"):  # closed: a registry without the toy refuses it
        reader.load(str(path), RECORDS)


def test_a_member_declared_twice_is_the_registry_s_error():
    class Again(Closed, frozen=True):
        summary: Int = UNSET  # the core's
    with pytest.raises(ValueError, match="declared twice: summary"):
        Records(*RECORDS.features, Feature("again", result=Again))
