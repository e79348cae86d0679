
"""ctxbench ring end to end on a tiny grid: results file, params, figure."""
import json

import pytest
from conftest import run_cli

pytestmark = pytest.mark.machine


def test_ring_command_small_grid(tmp_path):
    out = tmp_path / "ring.json"
    p = run_cli("ring", "--parties", "2,4", "--footprint", "0,4K", "--kind", "thread,process",
                "--mechanism", "pipe", "--quick", "-o", str(out), "--plot", str(tmp_path / "fig"), timeout=240)
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    assert doc["schema"] == "ctxbench/1" and doc["kind"] == "ring"
    pts = {(r["params"]["kind"], r["params"]["parties"], r["params"]["footprint"]) for r in doc["results"]}
    assert pts == {(k, n, f) for k in ("thread", "process") for n in (2, 4) for f in (0, 4096)}
    for r in doc["results"]:
        assert set(("parties", "footprint", "kind", "mechanism")) <= set(r["params"])
        assert r["verification"]["checked"]
    assert (tmp_path / "fig" / "ring.png").read_bytes()[:4] == b"\x89PNG"


def test_ring_bad_arguments_one_line(tmp_path):
    for args in (["--parties", "1"], ["--footprint", "lots"], ["--kind", "fiber"], ["--mechanism", "sem"]):
        p = run_cli("ring", *args, "-o", str(tmp_path / "x.json"))
        assert p.returncode == 2 and p.stderr.count("\n") == 1, (args, p.stderr)
        assert not (tmp_path / "x.json").exists()
