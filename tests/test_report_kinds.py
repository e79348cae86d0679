"""The report draws every kind of result: run, sweep, tasks, irq, noise and
ring, each from a committed small results file (no measurement)."""
import re

from conftest import FIXTURES, run_cli

FILES = ["sweep-small.json", "tasks-small.json", "irq-small.json", "noise-small.json", "ring_ring.json"]
TITLES = ["Indirect cost: working-set and stride sweep", "Indirect cost: task pairs with n switches",
          "Interrupt servicing overhead", "System noise on the measured CPU",
          "Process working set: ring of N parties"]


def test_report_has_every_kind_and_its_figures(tmp_path):
    out = tmp_path / "report.html"
    md = tmp_path / "report.md"
    p = run_cli("report", *[str(FIXTURES / f) for f in FILES], "-o", str(out), "--markdown", str(md))
    assert p.returncode == 0, p.stderr
    html = out.read_text()
    for t in TITLES:
        assert t in html, t
    # sweep >= 1, tasks 2 (Figures 2 and 3), irq 1 (Figure 5), noise 1, ring 1
    assert len(re.findall(r'src="data:image/png;base64,', html)) >= 6
    assert "http://" not in html.replace("http://www.w3.org", "")
    text = md.read_text()
    for t in TITLES:
        assert t in text, t
