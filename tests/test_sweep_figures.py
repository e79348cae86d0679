"""Figures from a committed small results file, without measuring (golden
structure, not golden numbers): the files exist, are PNG/SVG, and say what
the quantity is and on what machine. Counter figures appear when counters
exist (added synthetically here: this machine refuses hardware counters)."""
import pytest

from conftest import FIXTURES
from ctxbench.ui.figures import save
from ctxbench.sweep import figures as figures_sweep
from ctxbench.core import reader, results
from ctxbench.core.model import Result
from ctxbench.sweep import analysis as sweep_analysis
from ctxbench.sweep import plan as sweep_plan
from ctxbench.records import RECORDS

FIXTURE = FIXTURES / "sweep-small.json"


@pytest.fixture(scope="module")
def doc():
    return reader.load(str(FIXTURE), RECORDS)


def test_fixture_has_the_sweep_schema(doc):
    assert doc.schema == "ctxbench/2" and doc.sweep.mechanisms  # a ctxbench/1 file, read upgraded
    for r in doc.results:
        assert isinstance(r.params["size"], int) and isinstance(r.params["stride"], int)
        assert r.samples and r.summary.n > 0
        assert set(results.plain(r.indirect)) >= {"n", "median", "ci95", "ci95_of", "reference", "estimate_ns",
                                                  "se_ns", "mde_ns", "resolved", "below_mde"}
        assert len(set(r.group)) >= doc.sweep.pilot_rounds  # rounds, paired by group


def test_figures_from_fixture(doc, tmp_path):
    paths = [p for name, fig in figures_sweep.all_figures(doc, compare_stride=64)
             for p in save(fig, str(tmp_path), name)]
    names = sorted(p.rsplit("/", 1)[1] for p in paths)
    for name, _ in figures_sweep._mechanisms(doc):
        for ext in ("png", "svg"):
            assert f"sweep-{figures_sweep.slug(name)}.{ext}" in names
    assert "sweep-compare-stride64.png" in names and "sweep-compare-stride64.svg" in names
    assert not any("counters" in n for n in names)  # the fixture has no counters
    for p in paths:
        data = open(p, "rb").read()
        if p.endswith(".png"):
            assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000
        else:
            text = data.decode()
            assert "<svg" in text
    svg = open(tmp_path / "sweep-compare-stride64.svg").read()
    assert "Indirect cost" in svg and "stride 64" in svg
    assert doc.environment.cpu.model.split()[0] in svg  # on what machine
    assert "L1d" in svg  # the cache boundaries are marked


def test_counter_figures_when_counters_exist(doc, tmp_path):
    d = results.plain(doc)
    name, bid = figures_sweep._mechanisms(d)[0]
    for i, r in enumerate(d["results"]):
        if r["id"] == bid:  # synthetic counts, only to exercise the figure path
            size = r["params"]["size"]
            party = {"instructions": 1_000_000, "l1d_load_misses": size // 64, "l1i_load_misses": 10,
                     "dtlb_load_misses": size // 4096}
            r["counters"] = {"requested": True, "available": True,
                             "single": {"a": dict(party), "b": dict(party, instructions=1)},
                             "switch": {"a": dict(party), "b": dict(party)}}
            d["results"][i] = sweep_analysis.with_counter_rates(r)
    fname, fig = figures_sweep.counter_figure(d, name, bid)
    paths = save(fig, str(tmp_path), fname)
    assert sorted(p.rsplit(".", 1)[1] for p in paths) == ["png", "svg"]
    assert "per 1000 instructions" in open([p for p in paths if p.endswith(".svg")][0]).read()


def test_summary_text_from_fixture(doc):
    mechs = figures_sweep._mechanisms(doc)
    text = sweep_analysis.text_summary(doc.results, doc.environment, mechs, 12.0, 300.0)
    assert "strided points resolved" in text and "stride-0 check" in text
    assert "wall time: 12 s of a 300 s budget" in text
    for name, _ in mechs:
        assert name in text
    # every point has a cell: its estimate, '<MDE' or '~estimate'
    for r in doc.results:
        cell = sweep_analysis.cell(Result(r).indirect)
        assert cell != "n/a" and (cell[0] in "<~" or r.indirect.resolved)


def test_fixture_keys_are_unique(doc):
    keys = [sweep_plan.key(r) for r in doc.results]
    assert len(keys) == len(set(keys))
