"""Findings are grouped by their code (topic) and subject, from their data,
never by parsing their text back (issue 23)."""
from ctxbench.core.checks import Finding, grouped


def _cv(rid, cv, text=None):
    return Finding("warning", "cv", text or f"{rid}: CV {cv:.0%} is high", "more samples", subject=rid, data={"cv": cv})


def test_per_result_findings_fold_into_one_line_from_their_data():
    fs = [_cv("a", 0.12), Finding("ok", "cpu", "AMD: 2 CPUs"), _cv("b", 0.31, text="whatever the words: say")]
    out = grouped(fs)
    assert [f.topic for f in out] == ["cv", "cpu"]
    assert out[0].what == "CV above 10% in 2 results: a (12%), b (31%)"
    assert out[0].data == {"results": [{"subject": "a", "cv": 0.12}, {"subject": "b", "cv": 0.31}]}
    assert out[0].hint == "more samples"


def test_machine_findings_and_single_ones_stay_as_they_are():
    one = _cv("a", 0.5)
    machine = [Finding("note", "cv", "x: y"), Finding("note", "cv", "z: w")]  # no subject: not per result
    assert grouped([one] + machine) == [one] + machine


def test_involuntary_counts_samples():
    fs = [Finding("warning", "involuntary", f"{r}: t", "h", subject=r, data={"samples": n}) for r, n in (("a", 1), ("b", 3))]
    assert grouped(fs)[0].what.endswith("results: a (1 sample), b (3 samples)")
