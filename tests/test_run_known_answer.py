"""Known-answer test of the harness: a test-only mechanism whose switch is a
calibrated busy wait of d ns must come back as d within 5%."""
import json

import pytest

from conftest import run_cli


@pytest.mark.parametrize("d", [200, 2000, 20000])
def test_busywait_recovered(tmp_path, d):
    out = tmp_path / "ka.json"
    p = run_cli("run", "--ids", f"test/busywait/{d}", "--groups", "5", "--iterations", "6", "-o", str(out))
    assert p.returncode == 0, p.stderr
    r = json.loads(out.read_text())["results"][0]
    med = r["summary"]["median"]
    assert abs(med - d) <= 0.05 * d, f"injected {d} ns, measured {med} ns"
    lo, hi = r["summary"]["ci95"]
    assert lo <= med <= hi
