
"""ctxbench ring end to end on a tiny grid: results file, params, figure."""
import json

import pytest
from conftest import run_cli

pytestmark = [pytest.mark.machine, pytest.mark.flow]


def test_ring_command_small_grid(tmp_path):
    out = tmp_path / "ring.json"
    p = run_cli("ring", "--parties", "2,4", "--footprint", "0,4K", "--kind", "thread,process",
                "--mechanism", "pipe", "--quick", "-o", str(out), "--plot", str(tmp_path / "fig"), timeout=240)
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    assert doc["schema"] == "ctxbench/2" and "ring" in doc and "kind" not in doc
    rings = [r for r in doc["results"] if r["id"].startswith("ring/")]
    pts = {(r["params"]["kind"], r["params"]["parties"], r["params"]["footprint"]) for r in rings}
    assert pts == {(k, n, f) for k in ("thread", "process") for n in (2, 4) for f in (0, 4096)}
    # the ping-pong of each kind x mechanism, measured in the same rounds
    assert sorted(r["id"] for r in doc["results"] if not r["id"].startswith("ring/")) == [
        "kernel/process/pipe/same-cpu", "kernel/thread/pipe/same-cpu"]
    for r in rings:
        assert set(("parties", "footprint", "kind", "mechanism")) <= set(r["params"])
        assert r["verification"]["checked"]
        assert set(("estimate_ns", "ci95", "mde_ns", "ratio", "unit", "mde_ratio", "cycles")) <= set(r["above_pingpong"])
        assert len(r["settle"]["waited_ns"]) == r["params"]["groups"]
    sec = doc["ring"]
    assert sec["order"] == "interleaved by group"
    assert {(c["kind"], c["mechanism"]) for c in sec["n2_check"]} == {("thread", "pipe"), ("process", "pipe")}
    for c in sec["n2_check"]:
        assert set(("ratio", "ratio_ci95", "difference", "ok", "tolerance")) <= set(c)
        # the difference in ns, with its twin in core cycles and the unit its verdict uses
        assert set(("estimate_ns", "ci95", "se_ns", "mde_ns", "resolved", "below_mde", "unit", "mde_ratio")) \
            <= set(c["difference"])
    assert sec["settle"]["groups"] == len(doc["results"]) * doc["results"][0]["params"]["groups"]
    assert (tmp_path / "fig" / "ring.png").read_bytes()[:4] == b"\x89PNG"


def test_ring_bad_arguments_one_line(tmp_path):
    for args in (["--parties", "1"], ["--footprint", "lots"], ["--kind", "fiber"], ["--mechanism", "sem"]):
        p = run_cli("ring", *args, "-o", str(tmp_path / "x.json"))
        assert p.returncode == 2 and p.stderr.count("\n") == 1, (args, p.stderr)
        assert not (tmp_path / "x.json").exists()
