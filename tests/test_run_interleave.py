
"""Interleaved runs (ctxbench run's order): group g of every id, then g+1.
Each id still gets all its groups and the known answer; the engine's
progress lines show the order; the summary's CI resamples groups."""
import json

import pytest
from conftest import ENGINE, assert_intervals_rederived, run_cli, run_engine

from ctxbench.stats.summary import summarize

pytestmark = pytest.mark.machine

IDS = ["test/busywait/200", "test/busywait/2000", "test/busywait/20000"]


def test_engine_interleaves_groups_and_reports_progress():
    p = run_engine("run", *IDS, "--groups", "6", "--iterations", "2", "--min-sample-us", "200",
                   "--warmup-ms", "0", "--interleave", "--jsonl")
    assert p.returncode == 0, p.stderr
    lines = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    prog = [l for l in lines if l["type"] == "progress"]
    res = [l["result"] for l in lines if l["type"] == "result"]
    # one line per id prepared, then one per (group, id): every round
    # measures every id once, in an order that changes from round to round
    # (fixed seeds: the same orders in every run)
    G = 6
    assert [l["done"] for l in prog] == list(range(1, len(IDS) * (G + 1) + 1))
    assert all(l["total"] == len(IDS) * (G + 1) for l in prog)
    assert [l["group"] for l in prog[:3]] == [-1, -1, -1]
    rounds = [[l["id"] for l in prog[3 + 3 * g:6 + 3 * g]] for g in range(G)]
    assert [l["group"] for l in prog[3:]] == [g for g in range(G) for _ in IDS]
    assert all(sorted(r) == sorted(IDS) for r in rounds)
    assert len({tuple(r) for r in rounds}) > 1
    again = run_engine("run", *IDS, "--groups", str(G), "--iterations", "1", "--min-sample-us", "100",
                       "--warmup-ms", "0", "--interleave", "--jsonl")
    prog2 = [json.loads(l) for l in again.stdout.splitlines() if '"progress"' in l]
    assert [l["id"] for l in prog2] == [l["id"] for l in prog]
    # results come after every progress line, in the order asked
    assert lines.index(next(l for l in lines if l["type"] == "result")) > lines.index(prog[-1])
    assert [r["id"] for r in res] == IDS
    for r in res:
        assert r["group"] == [g for g in range(6) for _ in range(2)]


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
        if not s["n"]:  # every sample met other load (a busy machine): said so, and no number made of them
            assert s["median"] is None and r["verification"]["dropped"] == len(r["samples"]), (r["id"], s)
            assert any(w["code"] == "dropped" for w in r["warnings"]), r["warnings"]
            continue
        # The harness's known answer (the hidden test/busywait/<d> ids: the
        # switch is a calibrated busy wait of d ns): d within 5%, plus 20 ns:
        # each wait ends at a deadline found by reading the clock, so it can
        # overrun by one clock read (<= 20 ns for a vDSO read, in a VM too),
        # which is 10% of d = 200 ns
        assert abs(s["median"] - d) <= 0.05 * d + 20, f"{r['id']}: injected {d} ns, measured {s['median']} ns"
        drop = set(r["verification"]["dropped_samples"])
        kept_groups = {g for i, g in enumerate(r["group"]) if i not in drop and r["samples"][i] is not None}
        # the groups the kept samples span (a group whose samples all met other load is gone from them)
        assert s["groups"] == len(kept_groups) and kept_groups <= set(range(6))
        # groups resampled where there are two to resample (a task on the measured CPU can leave one)
        assert s["ci95_resampled"] == ("groups" if len(kept_groups) >= 2 else "samples"), (r["id"], s)
        # the drift over the run widens the rounds' interval (model.apply_drift), never narrows it
        kept = [(x, g) for i, (x, g) in enumerate(zip(r["samples"], r["group"])) if i not in drop and x is not None]
        within = summarize([x for x, _ in kept], [g for _, g in kept])["ci95"]
        assert s["ci95"][0] <= within[0] and s["ci95"][1] >= within[1], (r["id"], s["ci95"], within)
        assert "drift_rel_sd" in s, s
    assert_intervals_rederived(out)


@pytest.mark.parametrize("quick", [["--quick"], ["--preset", "quick"]])
def test_run_suite_and_run_share_the_engines_presets(tmp_path, monkeypatch, quick):
    """A board's run-suite file is measured like the laptop's ctxbench run:
    both take their counts from the engine's one preset table (--quick is
    --preset quick)."""
    from ctxbench.core import engine
    monkeypatch.setenv("CTXBENCH_ENGINE", str(ENGINE))
    presets = engine.Engine().presets()
    assert set(presets) == {"quick", "default", "full"}
    out = tmp_path / "suite.json"
    p = run_engine("run-suite", *quick, "--warmup-ms", "0", "--json", "-o", str(out))
    assert p.returncode == 0, p.stderr
    q = presets["quick"]
    for r in json.loads(out.read_text())["results"]:
        assert (r["params"]["groups"], r["params"]["iterations"]) == (q["groups"], q["iterations"]), r["id"]
    # and ctxbench run --quick records the same counts in its engine_args
    out2 = tmp_path / "run.json"
    p = run_cli("run", "--quick", "--ids", "baseline/nop", "-o", str(out2), timeout=120)
    assert p.returncode == 0, p.stderr
    args = json.loads(out2.read_text())["run"]["engine_args"]
    for flag, key in (("--groups", "groups"), ("--iterations", "iterations"), ("--min-sample-us", "min_sample_us")):
        assert args[args.index(flag) + 1] == str(q[key]), (flag, args)


def test_presets_text_and_json_are_one_table():
    """'presets' prints the table 'presets --json' gives the front end."""
    table = json.loads(run_engine("presets", "--json").stdout)
    lines = run_engine("presets").stdout.splitlines()
    for name, c in table.items():
        row = [line.split() for line in lines if line.split()[:1] == [name]]
        assert row == [[name, str(c["groups"]), "x", str(c["iterations"]), "of", ">=", str(c["min_sample_us"]),
                        "us"]], (name, lines)


@pytest.mark.parametrize("args,needle", [
    (["run-suite", "--preset", "huge"], "--preset"),
    (["run-suite", "--preset"], "--preset"),
    (["presets", "extra"], "unexpected argument"),
])
def test_bad_preset_arguments_give_one_line(args, needle):
    p = run_engine(*args)
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert p.returncode == 2 and len(lines) == 1 and needle in lines[0], p.stderr
