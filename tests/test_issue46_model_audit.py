"""Issue 46's audit of the results model, report, compare, the published
schema and history (tests/audits/issue46-model-report-store-peers.md,
areas A and B): a file the published schema accepts is one the reader
accepts, a bad one is one line in ctxbench's words, what report writes
can be written, and no numpy or statsmodels warning reaches the terminal."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from conftest import FIXTURES, ROOT
from test_faults import one_line_error

from ctxbench.cli import main
from ctxbench.core import reader, results
from ctxbench.core.errors import UserError
from ctxbench.records import RECORDS

RUN = FIXTURES / "v1" / "run.json"  # a real run file: baseline/nop, then a kernel ping-pong
PING = 1                            # RUN's kernel/thread/pipe/same-cpu


def _v2(path=RUN) -> dict:
    """A fixture as a command writes it today (ctxbench/2)."""
    return json.loads(results.encode(reader.load(str(path), RECORDS)))


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    return jsonschema.Draft202012Validator(json.loads((ROOT / "docs" / "results-file.schema.json").read_text()))


def _both_refuse(validator, doc, says: str) -> str:
    """The published schema and the reader both refuse `doc`; the reader's
    reason holds `says`. Returns the reason."""
    assert not validator.is_valid(doc)
    with pytest.raises(UserError) as e:
        reader.parse(json.loads(json.dumps(doc)), "'bad.json'", RECORDS)
    assert says in e.value.why, e.value.why
    return e.value.why


def _both_accept(validator, doc) -> None:
    validator.validate(doc)
    reader.parse(json.loads(json.dumps(doc)), "'good.json'", RECORDS)


# ---- one bound for a measured number (A044, A050, A074, A075) ---------------

def test_a_measured_number_has_one_bound_in_the_reader_the_schema_and_the_docs(validator):
    for ok in (2**63 - 1, -2**63, -2.0**63, 9.2e18):
        doc = _v2()
        doc["results"][PING]["samples"][0] = ok
        _both_accept(validator, doc)
    for bad in (2**63, 2.0**63, -2**63 - 1, 1e308):
        doc = _v2()
        doc["results"][PING]["samples"][0] = bad
        _both_refuse(validator, doc, "-2^63 <= x < 2^63")
    assert "-2^63 <= x < 2^63" in (ROOT / "docs" / "results-file.md").read_text()


@pytest.mark.parametrize("where", ["samples", "verify"])
def test_nan_is_said_as_nan_not_out_of_range(where):
    doc = _v2()
    r = doc["results"][PING]
    (r["samples"] if where == "samples" else r["verify"]["expected_voluntary"])[0] = float("nan")
    with pytest.raises(UserError) as e:
        reader.parse(doc, "'bad.json'", RECORDS)
    assert "NaN (not a number)" in e.value.why and "out of range" not in e.value.why, e.value.why


@pytest.mark.parametrize("value", [1e308, float("inf"), 2**64])
def test_a_verify_count_past_a_counter_is_one_line_in_ctxbench_words(validator, value):
    doc = _v2()
    doc["results"][PING]["verify"]["voluntary"][0] = value
    if value != float("inf"):  # not JSON: the schema never sees it
        assert not validator.is_valid(doc)
    with pytest.raises(UserError) as e:
        reader.parse(doc, "'bad.json'", RECORDS)
    assert "verify.voluntary[0]" in e.value.why and "Error" not in e.value.why, e.value.why


# ---- group ids (A065, A066, A148, A149) -------------------------------------

@pytest.mark.parametrize("gid", [2**63, 2**70, 2**31])
def test_a_group_id_past_the_engines_int_is_refused_by_both(validator, gid):
    doc = _v2()
    doc["results"][PING]["group"][0] = gid
    why = _both_refuse(validator, doc, "group id out of range")
    assert "dimension" not in why


def test_group_ids_far_apart_index_a_small_drift_table():
    """Labels 0 and 2^40 are two rounds, not 2^40 + 1 columns (136 TiB)."""
    from ctxbench.stats import drift
    t = drift.log_table([(np.array([1.0, 2.0, 4.0]), np.array([0, 1, 2**40])),
                         (np.array([3.0, 3.0]), np.array([0, 1]))])
    assert t.shape == (2, 4)  # rounds 0, 1, a gap, 2^40
    assert np.isnan(t[:, 2]).all() and np.isfinite(t[0, [0, 1, 3]]).all()


def test_a_run_with_group_ids_far_apart_is_read_in_little_memory():
    doc = _v2()
    assert doc["run"]["order"] == "interleaved by group"  # the drift table is made
    for r in doc["results"]:
        if isinstance(r.get("group"), list):
            r["group"] = [g * 10**8 for g in r["group"]]
        if isinstance(r.get("clock_probe"), dict) and isinstance(r["clock_probe"].get("group"), list):
            r["clock_probe"]["group"] = [g * 10**8 for g in r["clock_probe"]["group"]]
    reader.parse(doc, "'far.json'", RECORDS)


# ---- warning codes (A085, A151) ---------------------------------------------

@pytest.mark.parametrize("code", ["made_up", "zz\x1b[5m\u202e"])
def test_an_unknown_warning_code_is_refused_by_the_schema_as_by_the_reader(validator, code):
    doc = _v2()
    doc["results"][PING]["warnings"] = [{"code": code, "severity": "info", "text": "t", "data": {}}]
    why = _both_refuse(validator, doc, "is none of this ctxbench's")
    assert "warnings[0].code" in why and "\x1b" not in why and "\u202e" not in why, why


# ---- nesting (A111) ---------------------------------------------------------

def test_the_nesting_bound_is_documented_and_kept():
    text = (ROOT / "docs" / "results-file.md").read_text()
    assert f"at most {reader.MAX_DEPTH} levels" in text and "cannot say" in text
    deep = inner = {}
    for _ in range(reader.MAX_DEPTH + 5):
        inner["x"] = {}
        inner = inner["x"]
    with pytest.raises(UserError, match="nested deeper"):
        reader.decode(json.dumps({"a": deep}).encode(), "'deep.json'")


# ---- parts, pairs, raw (A135, A137, A217) -----------------------------------

def test_a_part_that_is_a_number_is_refused_by_both_except_i_pct(validator):
    doc = _v2(FIXTURES / "tasks-small.json")
    doc["results"][0]["parts"]["R_total"] = 1e308
    _both_refuse(validator, doc, "parts.R_total is float, not an object")
    doc = _v2(FIXTURES / "irq-small.json")
    point = next(r for r in doc["results"] if isinstance(r.get("parts"), dict) and r["parts"])
    point["parts"]["I_pct"] = 12.5
    _both_accept(validator, doc)


def test_a_pair_without_its_plus_is_the_readers_line_and_the_schemas_pattern(validator, tmp_path, capsys):
    doc = _v2(FIXTURES / "tasks-small.json")
    for r in doc["results"]:
        if "pair" in r.get("params", {}):
            r["params"]["pair"] = "aescrc"
    _both_refuse(validator, doc, "params.pair of 'tasks/")
    f = tmp_path / "noplus.json"
    f.write_text(json.dumps(doc))
    err = one_line_error(capsys, ["report", str(f), "-o", str(tmp_path / "r.html")], code=2)
    assert err.startswith(f"ctxbench: '{f}' is malformed: params.pair") and "ValueError" not in err, err


@pytest.mark.parametrize("member", ["raw", "verify"])
def test_text_in_raw_or_verify_other_than_source_is_refused_by_both(validator, member):
    doc = _v2()
    arrays = doc["results"][PING][member]
    name = next(k for k, v in arrays.items() if isinstance(v, list))
    arrays[name] = "x"
    _both_refuse(validator, doc, f"{member}.{name} of 'kernel/")
    doc = _v2()
    doc["results"][PING][member]["source"] = "VmRSS of /proc/self/status"
    _both_accept(validator, doc)


def test_compare_of_a_raw_string_is_one_line(tmp_path, capsys):
    doc = _v2()
    doc["results"][PING]["raw"]["t_single_ns"] = "x"
    f = tmp_path / "raw_str.json"
    f.write_text(json.dumps(doc))
    err = one_line_error(capsys, ["compare", str(f), str(RUN)], code=2)
    assert "raw.t_single_ns" in err, err


# ---- strings a report writes (A150, A225, A223) ----------------------------

def test_safe_text_replaces_surrogates_and_escapes_format_characters():
    assert reader.safe_text("a\ud800b\udc80c") == "a\ufffdb\ufffdc"
    assert reader.safe_text("x\u202ey\u200bz") == "x\\u202ey\\u200bz"
    assert reader.safe_text("\x1b[2J") == "\ufffd[2J"
    assert reader.safe_text(reader.safe_text("x\u202e")) == "x\\u202e"  # read twice (the store) says the same


def test_report_of_ids_with_a_lone_surrogate_and_a_bidi_override_writes_both_files(tmp_path, capsys):
    doc = json.loads(RUN.read_text())
    doc["results"] = doc["results"][:2]
    doc["results"][0]["id"] = "baseline/nop\ud800"
    doc["results"][1]["id"] += "\u202eevil"
    f = tmp_path / "ids.json"
    f.write_text(json.dumps(doc))  # json.dumps writes the surrogate as the escape \ud800
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    rc = main(["report", str(f), "-o", str(html), "--markdown", str(md)])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    for out in (html, md):
        text = out.read_text(encoding="utf-8")
        assert "\u202e" not in text and "u202eevil" in text, out
        assert "baseline/nop\ufffd" in text, out


# ---- no numpy or statsmodels warnings (A191, B059) --------------------------

def test_a_ratio_past_a_floats_range_is_a_difference_with_no_warning():
    from ctxbench.compare import change as changes
    groups = np.repeat(np.arange(5), 6)
    tiny = changes.SideSamples(np.full(30, 5e-324), groups, "groups")
    big = changes.SideSamples(np.full(30, 9e18) * (1 + 1e-3 * np.arange(30)), groups, "groups")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = changes.change(tiny, big)
    assert not c.has_ratio and np.isnan(c.rel) and c.diff > 9e18 and c.diff_ci[0] > 0


def test_history_pool_of_runs_that_agree_exactly_warns_nothing():
    from ctxbench.history.pooled import pool
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = pool([16.8] * 6, [16.6] * 6, [16.8] * 6)
    assert p.runs == 6 and p.estimate == pytest.approx(16.8) and p.tau == 0 and p.covers == 6


# ---- the final audit (tests/audits/issue46-final-model-report-store-peers.md) -------------------

@pytest.mark.parametrize("member", ["raw", "verify"])
def test_a_source_that_is_not_text_is_refused_by_both_in_the_readers_words(validator, member):
    """A301, A302: `source` (who measured) is text or null, in the reader as
    in the schema; the line names the result and the member, not msgspec's
    path of a record the file does not have."""
    doc = _v2()
    doc["results"][PING].setdefault(member, {})["source"] = [1, 2]
    assert not validator.is_valid(doc)
    with pytest.raises(UserError) as e:
        reader.parse(doc, "'bad.json'", RECORDS)
    assert f"{member}.source" in e.value.why and "not text" in e.value.why and "Expected" not in e.value.why, \
        e.value.why


@pytest.mark.parametrize("text, says", [("NaN", "NaN (not a number) is not JSON"), ("-Infinity", "-Infinity is not"),
                                        ("1e999", "past a float's range")])
def test_nan_infinity_and_numbers_past_a_float_anywhere_in_a_file_are_refused(tmp_path, text, says):
    """A376: not only samples: a NaN in an irq part's statistics, in
    `timing` or in `I_pct` was read and never shown. No JSON parser reads
    NaN or Infinity; the reader refuses them wherever they are."""
    doc = json.dumps(_v2()).replace('"unit": "ns"', f'"unit": "ns", "x": {text}', 1)
    with pytest.raises(UserError) as e:
        reader.decode(doc.encode(), "'bad.json'")
    assert says in e.value.why, e.value.why


def test_a_document_the_store_kept_with_nan_still_reads():
    """Stores kept documents written by json.dumps, NaN and all (now
    msgspec: null): what the store kept reads back, its NaN as null (an
    unknown), while a file holding NaN is refused."""
    assert reader.decode(b'{"a": NaN, "b": [1e999, 1.5]}', "run 1 in the store", strict=False) == \
        {"a": None, "b": [None, 1.5]}
    with pytest.raises(UserError):
        reader.decode(b'{"a": NaN}', "'f.json'")
