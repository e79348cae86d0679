"""The report opens with what was measured: in every section the figures
and tables come first, then the warnings, one line per kind with the ids
it concerns (not one line per id and kind)."""
from conftest import FIXTURES

from ctxbench.core import reader
from ctxbench.report import build, html
from ctxbench.records import RECORDS


def test_warnings_follow_figures_and_are_grouped():
    paths = [FIXTURES / "irq-small.json", FIXTURES / "tasks-small.json", FIXTURES / "ring_base.json"]
    rep = build.build([(str(p), reader.load(str(p), RECORDS)) for p in paths])
    page = html.render(rep)
    sections = page.split("<section")[1:]
    assert any("<h3>Warnings</h3>" in s for s in sections)
    for s in sections:
        if "<h3>Warnings</h3>" in s and ("<figure" in s or "<table" in s):
            first_content = min(i for i in (s.find("<figure"), s.find("<table")) if i >= 0)
            assert first_content < s.find("<h3>Warnings</h3>")
    # grouped: no warning text repeats within a section
    for sec in rep.sections:
        texts = [t.split(" [", 1)[0] for _, t in sec.notes]
        assert len(texts) == len(set(texts)), texts


def test_run_figure_has_separate_user_and_kernel_panels():
    from ctxbench.run import figures
    rs = [{"id": "kernel/thread/pipe/same-cpu", "quantity": "switch", "summary": {"median": 2400, "ci95": [2390, 2410]}},
          {"id": "user/asm/same-thread", "quantity": "switch", "summary": {"median": -3.0, "ci95": [-5, 1]}}]
    fig = figures.figure(rs, {})
    axes = [a for a in fig.axes if a.get_visible()]
    assert len(axes) == 2
    labels = " ".join(a.get_xlabel() for a in axes)
    assert "(µs)" in labels and "(ns)" in labels
    # the negative user-level cost is drawn where it was measured
    user = next(a for a in axes if "(ns)" in a.get_xlabel())
    assert user.get_xlim()[0] < -3.0
