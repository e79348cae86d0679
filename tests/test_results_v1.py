"""Every shape ctxbench/1 had (tests/fixtures/v1, one file each) is read as
ctxbench/2 by core/results/upgrade.py, and `report` and `compare` read
each; a store that kept ctxbench/1 documents reads them upgraded."""
import json

import pytest

from conftest import FIXTURES
from ctxbench.cli import main
from ctxbench.core import reader, results
from ctxbench.core.model import SEVERITY, Document
from ctxbench.sweep import plan as sweep_plan
from ctxbench.records import RECORDS

V1 = FIXTURES / "v1"
SHAPES = sorted(p.name for p in V1.glob("*.json"))


def _raw(name: str) -> dict:
    return json.loads((V1 / name).read_text())


def test_there_is_a_fixture_of_every_shape_the_script_makes():
    import importlib.util
    spec = importlib.util.spec_from_file_location("make_v1", V1 / "make_v1_fixtures.py")
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    assert set(make.SHAPES) | {"run.json", "runtimes.json"} == set(SHAPES)
    for name, (_, build) in make.SHAPES.items():
        assert build() == _raw(name), f"{name} is not what make_v1_fixtures.py makes: regenerate it"


@pytest.mark.parametrize("name", SHAPES)
def test_each_shape_upgrades_to_a_valid_ctxbench_2_record(name):
    raw = _raw(name)
    assert raw["schema"] == "ctxbench/1"
    rec = RECORDS.read(raw)
    assert isinstance(rec, results.Document) and rec.schema == "ctxbench/2"
    assert [r.id for r in rec.results] == [r["id"] for r in raw["results"]]
    again = RECORDS.read(results.plain(rec))
    assert again == rec  # upgrade is idempotent: a ctxbench/2 document is read as it is
    for r in rec.results:
        for w in r.warnings or []:
            assert w.severity == SEVERITY[w.code] and isinstance(w.data, dict)


def test_plain_text_warnings_get_the_code_of_the_message_ctxbench_wrote():
    rec = RECORDS.read(_raw("text_warnings.json"))
    codes = {w.code for r in rec.results for w in r.warnings or []}
    assert {"ci_includes_zero", "negative_indirect"} <= codes
    texts = [w.text for r in rec.results for w in r.warnings or []]
    assert not any(t.startswith("ctxbench: ") for t in texts)


def test_an_engine_document_has_its_text_warnings_coded_engine():
    rec = RECORDS.read(_raw("engine_document.json"))
    assert {w.code for r in rec.results for w in r.warnings} == {"engine"}
    doc = reader.parse(_raw("engine_document.json"), "engine output", RECORDS)  # and the reader analyses it
    assert all(r.summary and r.verification for r in doc.results)


def test_a_sweep_from_before_issue_22_gets_its_plan_and_its_rounds_n():
    raw = _raw("code_text_warnings_sweep.json")
    assert "plan" not in raw["sweep"] and not any("sample_n" in r for r in raw["results"])
    doc = results.plain(RECORDS.read(raw))
    assert doc["sweep"]["plan"]["fitted"] == "before issue 22: not fitted"
    grid = sweep_plan.grid_of_file(doc["sweep"]["plan"], "f")
    assert grid == {s: tuple(sorted(raw["sweep"]["strides"])) for s in raw["sweep"]["sizes"]}
    for r in doc["results"]:
        if "round_cost_s" in r:
            assert r["sample_n"] == [r["params"]["n"]] * len(r["samples"])
    assert all(w["severity"] for r in doc["results"] for w in r["warnings"])


def test_an_irq_share_as_a_number_and_as_a_record_both_read():
    number = RECORDS.read(_raw("irq_I_pct_number.json"))
    record = RECORDS.read(_raw("text_warnings.json"))
    assert any(isinstance((r.parts or {}).get("I_pct"), float) for r in number.results)
    assert any(isinstance((r.parts or {}).get("I_pct"), results.base.Stats) for r in record.results)


def test_members_of_older_sections_are_kept():
    doc = results.plain(RECORDS.read(_raw("tasks_before_rounds.json")))
    assert doc["tasks"]["repeat"] == _raw("tasks_before_rounds.json")["tasks"]["repeat"]


@pytest.mark.parametrize("name", SHAPES)
def test_report_and_compare_read_each_shape(tmp_path, capsys, name):
    path = str(V1 / name)
    assert main(["report", path, "-o", str(tmp_path / "r.html")]) == 0, capsys.readouterr().err
    assert main(["compare", path, path]) == 0, capsys.readouterr().err
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("name", SHAPES)
def test_the_reader_gives_the_views_a_ctxbench_2_document(name):
    doc = reader.load(str(V1 / name), RECORDS)
    assert isinstance(doc, results.Document) and doc.schema == "ctxbench/2"
    assert Document(doc).results  # the views read it
    assert RECORDS.read(results.plain(doc)) == doc  # and what the reader analysed is still a valid document


def test_a_store_of_ctxbench_1_documents_reads_them_upgraded(tmp_path):
    from ctxbench.core.store import record
    from ctxbench.core.store.db import Store
    s = Store(str(tmp_path / "store.sqlite"))
    raw = _raw("run.json")
    with s.begin() as conn:
        run_id, new = record.add(conn, raw)  # as a store made before ctxbench/2 holds it
        back = record.document(conn, run_id, RECORDS)
    assert new and back.schema == "ctxbench/2"
    assert RECORDS.read(back) == RECORDS.read(raw)
