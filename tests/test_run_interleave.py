"""Interleaved runs (ctxbench run's order): group g of every id, then g+1.
Each id still gets all its groups and the known answer; the engine's
progress lines show the order; the summary's CI resamples groups."""
import json

from conftest import run_cli, run_engine

IDS = ["test/busywait/200", "test/busywait/2000", "test/busywait/20000"]


def test_engine_interleaves_groups_and_reports_progress():
    p = run_engine("run", *IDS, "--groups", "3", "--iterations", "2", "--min-sample-us", "200",
                   "--warmup-ms", "0", "--interleave", "--jsonl")
    assert p.returncode == 0, p.stderr
    lines = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    prog = [l for l in lines if l["type"] == "progress"]
    res = [l["result"] for l in lines if l["type"] == "result"]
    # one line per id prepared, then one per (group, id); the start rotates by group
    assert [l["done"] for l in prog] == list(range(1, len(IDS) * 4 + 1))
    assert all(l["total"] == len(IDS) * 4 for l in prog)
    assert [l["group"] for l in prog[:3]] == [-1, -1, -1]
    assert [l["group"] for l in prog[3:]] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert [l["id"] for l in prog[3:6]] == IDS and [l["id"] for l in prog[6:9]] == IDS[1:] + IDS[:1]
    # results come after every progress line, in the order asked
    assert lines.index(next(l for l in lines if l["type"] == "result")) > lines.index(prog[-1])
    assert [r["id"] for r in res] == IDS
    for r in res:
        assert r["group"] == [0, 0, 1, 1, 2, 2]


def test_sequential_is_the_default_for_run():
    p = run_engine("run", *IDS[:2], "--groups", "2", "--iterations", "1", "--min-sample-us", "100",
                   "--warmup-ms", "0", "--jsonl")
    assert p.returncode == 0, p.stderr
    types = [json.loads(l)["type"] for l in p.stdout.splitlines() if l.strip()]
    assert types == ["header", "result", "result"]


def test_interleaved_run_recovers_known_answers(tmp_path):
    out = tmp_path / "ka.json"
    p = run_cli("run", "--ids", ",".join(IDS), "--groups", "6", "--iterations", "5", "-o", str(out))
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    assert doc["run"]["order"] == "interleaved by group"
    for r, d in zip(doc["results"], (200, 2000, 20000)):
        s = r["summary"]
        assert abs(s["median"] - d) <= 0.05 * d, f"{r['id']}: injected {d} ns, measured {s['median']} ns"
        assert s["groups"] == 6 and s["ci95_resampled"] == "groups"
        assert s["ci95"][0] <= s["median"] <= s["ci95"][1]
