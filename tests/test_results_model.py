"""The results model (core/results) on generated documents (hypothesis):
what it reads it writes back unchanged (encode -> decode -> equal, and
the builtins it gives are the document it was given: no member lost),
and upgrade() is idempotent on ctxbench/2. Plus the published JSON Schema
is the one the model generates (tools/results_schema.py rewrites it)."""
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from ctxbench.core import results
from ctxbench.core.results.warnings import CODES, SEVERITY
from ctxbench.records import RECORDS

ROOT = Path(__file__).resolve().parents[1]

num = st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False))
# what a clock can have measured: the model refuses samples and raw numbers outside [-2^63, 2^63) (issue 46)
measured = st.one_of(st.none(), st.floats(min_value=-2.0**63, max_value=2.0**63, exclude_max=True))
count = st.integers(min_value=0, max_value=10**6)
text = st.text(max_size=12)
name = st.from_regex(r"x_[a-z]{1,8}", fullmatch=True)  # a member no record declares
pair = st.lists(num, min_size=2, max_size=2)

stats = st.fixed_dictionaries({}, optional={
    "n": count, "median": num, "mean": num, "ci95": pair, "ci95_of": text, "mde": num, "estimate_ns": num,
    "se_ns": num, "resolved": st.booleans(), "below_mde": st.booleans(), "method": text, "rounds": count,
    "x_other": num})
warning = st.sampled_from(sorted(CODES)).flatmap(lambda c: st.fixed_dictionaries(
    {"code": st.just(c), "severity": st.just(SEVERITY[c]), "text": text,
     "data": st.dictionaries(name, num, max_size=3)}))
params = st.fixed_dictionaries({}, optional={
    "cpu": count, "n": count, "placement": text, "mechanism": text, "size": count, "rate_hz": count,
    "scale": st.floats(allow_nan=False, allow_infinity=False), "pinned": st.booleans(), "x_free": text})
result = st.fixed_dictionaries({"id": text}, optional={
    "quantity": text, "unit": text, "doc": text, "params": params, "samples": st.lists(measured, max_size=6),
    "group": st.lists(st.integers(0, 40), max_size=6), "raw": st.dictionaries(name, st.lists(measured, max_size=4),
                                                                                max_size=2),
    "warnings": st.lists(warning, max_size=3), "summary": stats, "summary_all": stats,
    "verification": st.fixed_dictionaries({}, optional={"checked": st.booleans(), "verdict": text,
                                                         "dropped_samples": st.lists(count, max_size=3),
                                                         "voluntary": count}),
    "cycles": st.fixed_dictionaries({"applies": st.booleans()}, optional={"why": text, "summary": stats}),
    "parts": st.dictionaries(st.sampled_from(["I", "C", "R_prime", "direct"]), stats, max_size=3),
    "indirect": st.one_of(st.none(), stats), "sample_n": st.lists(st.one_of(st.none(), count), max_size=4),
    "counters": st.dictionaries(name, st.booleans(), max_size=2)})
environment = st.fixed_dictionaries({}, optional={
    "hostname": text, "cpu": st.fixed_dictionaries({}, optional={"model": st.one_of(st.none(), text),
                                                                 "online": count, "x_vendor": text}),
    "kernel": st.fixed_dictionaries({}, optional={"release": text, "x_machine": text}),
    "mitigations": st.dictionaries(name, st.one_of(st.none(), text), max_size=3),
    "virtualization": st.fixed_dictionaries({}, optional={"is_vm": st.booleans()})})
section = st.fixed_dictionaries({}, optional={"started": text, "preset": text, "engine_args": st.lists(text, max_size=3),
                                              "drift": st.dictionaries(name, num, max_size=2), "x_old": count})
check = st.fixed_dictionaries({"level": text, "topic": text, "what": text, "hint": text, "subject": text,
                               "data": st.dictionaries(name, num, max_size=2)})
document = st.fixed_dictionaries({"schema": st.just("ctxbench/2"), "results": st.lists(result, max_size=4)},
                                 optional={"tool": st.fixed_dictionaries({}, optional={"name": text, "version": text}),
                                           "environment": environment, "run": section, "ring": section,
                                           "checks": st.lists(check, max_size=2),
                                           "failures": st.lists(st.fixed_dictionaries({"id": text, "error": text}),
                                                                max_size=2)})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document)
def test_a_document_round_trips_through_the_model(doc):
    rec = RECORDS.read(doc)
    assert results.plain(rec) == doc  # nothing lost, nothing added
    again = RECORDS.read(json.loads(results.encode(rec)))
    assert again == rec


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document)
def test_upgrade_is_idempotent_on_ctxbench_2(doc):
    rec = RECORDS.read(doc)
    assert RECORDS.read(results.plain(rec)) == rec


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document, st.lists(text, min_size=1, max_size=3))
def test_a_ctxbench_1_document_upgrades_once(doc, texts):
    old = dict(doc, schema="ctxbench/1",
               results=[dict(r, warnings=list(texts)) for r in doc["results"]])
    rec = RECORDS.read(old)
    assert rec.schema == "ctxbench/2" and RECORDS.read(results.plain(rec)) == rec
    assert all(len(r.warnings) == len(texts) for r in rec.results)


def test_the_published_json_schema_is_the_models():
    """docs/results-file.schema.json is what the model generates: after
    changing a record, `python tools/results_schema.py` rewrites it."""
    published = json.loads((ROOT / "docs" / "results-file.schema.json").read_text())
    assert published == RECORDS.json_schema(), "run: python tools/results_schema.py"


def test_a_writer_cannot_add_an_undeclared_member(tmp_path, monkeypatch):
    """The document a command built is made a record before it is written:
    a member the model does not declare is one line naming it, exit 1, and
    the results are kept in a fallback file, not lost."""
    import pytest
    from ctxbench.core.errors import UserError
    from ctxbench.lifecycle import Lifecycle
    monkeypatch.chdir(tmp_path)
    life = Lifecycle("noise", str(tmp_path / "r.json"), store="off")
    res = [{"id": "x", "samples": [1.0], "x_new": 1}]
    with pytest.raises(UserError) as e:
        life.document({"tool": {}, "environment": {}}, res)
    assert e.value.code == 1 and "unknown field `x_new`" in str(e.value) and "$.results[0]" in str(e.value)
    assert not (tmp_path / "r.json").exists()
    kept = list(tmp_path.glob("ctxbench-unsaved-*.json"))
    assert len(kept) == 1 and json.loads(kept[0].read_text())["results"] == res


def test_each_command_s_section_record_is_the_document_s():
    """Each feature's section (its record.py, registered in ctxbench.records)
    is the registry's Document member of the command's name, and the
    registry's commands are those (what Document.section and .command read)."""
    import msgspec
    from ctxbench.core.results import Section
    declared = {}
    for f in msgspec.structs.fields(RECORDS.Document):
        kinds = [t for t in getattr(f.type, "__args__", ()) if isinstance(t, type) and issubclass(t, Section)]
        if kinds:
            declared[f.name] = kinds[0]
    assert declared == {f.name: f.section for f in RECORDS.features if f.section}
    assert RECORDS.commands == tuple(declared) and "run" in declared and "fleet" not in declared
