"""The report opens in a real browser (Debian's chromium, headless, no
network) and every figure in it decodes."""
import re
import shutil
import subprocess

import pytest

from conftest import FIXTURES, run_cli

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--virtual-time-budget=10000"]
# After load, mark each image 1 (decoded, has a width) or 0 on <body>.
PROBE = ("<script>window.addEventListener('load',function(){var s='';"
         "for(var i=0;i<document.images.length;i++){var m=document.images[i];"
         "s+=(m.complete&&m.naturalWidth>0)?'1':'0';}"
         "document.body.setAttribute('data-figures',s||'none');});</script>")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (make deps installs it via mk/ring.mk)")
def test_report_renders_in_chromium(tmp_path):
    html = tmp_path / "report.html"
    # every kind of result: run, ring, sweep, tasks, irq, noise (+ a hostile file)
    files = ["ring_base.json", "ring_ring.json", "ring_hostile.json", "sweep-small.json", "tasks-small.json",
             "irq-small.json", "noise-small.json"]
    p = run_cli("report", *[str(FIXTURES / f) for f in files], "-o", str(html))
    assert p.returncode == 0, p.stderr
    probe = tmp_path / "probe.html"
    probe.write_text(html.read_text().replace("</body>", PROBE + "</body>"))
    c = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                        probe.as_uri()], capture_output=True, text=True, timeout=120)
    assert c.returncode == 0, c.stderr[-2000:]
    m = re.search(r'data-figures="([01none]+)"', c.stdout)
    assert m, c.stdout[:500] + c.stderr[-1000:]
    marks = m.group(1)
    assert marks != "none" and set(marks) == {"1"}, f"figures not loaded: {marks}"
    assert marks.count("1") == html.read_text().count("<img ")
