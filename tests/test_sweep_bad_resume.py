"""A sweep continues from its own file (-o names it): the members it trusts
are checked (issue 22 kind 6), and a point the engine fails keeps its
place, so that the sweep stops with the engine's own reason rather than a
confused 'engine answered point ...' (no measuring: a fake engine)."""
import json

import pytest
from conftest import FIXTURES, own_engine
from test_partial_results import HEADER, _fake_engine

from ctxbench.core import engine
from ctxbench.core.errors import UserError
from ctxbench.sweep.steps import resume as sweep_command

FIXTURE = FIXTURES / "sweep-small.json"


def _with(tmp_path, **members):
    doc = json.load(open(FIXTURE))
    doc["sweep"].update(members)
    p = tmp_path / "sw.json"
    p.write_text(json.dumps(doc))
    return str(p), doc["sweep"].get("settings") or {}


@pytest.mark.parametrize("members", [{"wall_s": "12"}, {"wall_s": -1e9}, {"wall_s": [1]}, {"wall_s": True},
                                     {"settings": [1, 2]}, {"settings": "x"}, {"rounds": {"a": 1}}])
def test_a_resumed_file_with_bad_members_is_refused(tmp_path, members):
    path, settings = _with(tmp_path, **members)
    with pytest.raises(UserError, match="malformed") as e:
        sweep_command.existing(path, settings if isinstance(settings, dict) else {})
    assert "\n" not in str(e.value)


def test_a_good_resumed_file_is_taken_and_its_time_counted(tmp_path):
    path, settings = _with(tmp_path, wall_s=12.5)
    have, doc = sweep_command.existing(path, settings)
    assert have and sweep_command.prior_wall(doc) == 12.5


def test_a_failed_point_keeps_its_place_and_the_engine_says_why(tmp_path, monkeypatch):
    def res(size):
        return json.dumps({"type": "result", "result": {"id": "k", "params": {"size": size, "stride": 0}}})
    lines = [HEADER, res(1024), json.dumps({"type": "result", "result": None, "id": "k", "error": "mmap: no"}),
             res(4096)]
    own_engine(monkeypatch, _fake_engine(tmp_path, lines, "ctxbench-engine: k: mmap: no\n", 1))
    arrived = []
    with pytest.raises(UserError, match="mmap: no"):
        engine.Engine().stream([], engine.EngineOptions(), lambda h: None,
                               lambda r: arrived.append(r["params"]["size"]), on_failed_job=lambda f: arrived.append(None))
    assert arrived == [1024, None, 4096]  # paired by position with the points asked for
