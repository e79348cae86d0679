"""ctxbench compare on committed fixtures (no measurement)."""
import json
import math

from conftest import FIXTURES, run_cli

from ctxbench.stats.rank import MIN_SAMPLES, mann_whitney


def _verdicts(out: str) -> list[str]:
    rows = [l for l in out.splitlines() if l.startswith(("kernel/", "user/", "ring/"))]
    return [r.split("  ")[-1].split("  (")[0].strip() for r in rows]


def test_same_distribution_is_no_significant_change():
    p = run_cli("compare", str(FIXTURES / "ring_base.json"), str(FIXTURES / "ring_same.json"))
    assert p.returncode == 0, p.stderr
    v = _verdicts(p.stdout)
    assert v and all(x == "no significant change" for x in v), p.stdout
    assert "geometric mean" in p.stdout


def test_shift_by_20_percent_is_slower():
    p = run_cli("compare", str(FIXTURES / "ring_base.json"), str(FIXTURES / "ring_slower.json"))
    assert p.returncode == 0, p.stderr
    v = _verdicts(p.stdout)
    assert v and all(x == "slower" for x in v), p.stdout
    # and the other way round
    p = run_cli("compare", str(FIXTURES / "ring_slower.json"), str(FIXTURES / "ring_base.json"))
    assert all(x == "faster" for x in _verdicts(p.stdout)), p.stdout


def test_groups_of_files_and_environment_differences():
    p = run_cli("compare", "--base", str(FIXTURES / "ring_base.json"), str(FIXTURES / "ring_same.json"),
                "--new", str(FIXTURES / "ring_hostile.json"))
    assert p.returncode == 0, p.stderr
    assert "environment differences" in p.stdout and "hostname" in p.stdout


def test_no_common_id_gives_one_line():
    p = run_cli("compare", str(FIXTURES / "ring_base.json"), str(FIXTURES / "ring_unknown_kind.json"))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "no id" in p.stderr


def test_too_few_samples_warns(tmp_path):
    """Fewer than MIN_SAMPLES samples on a side: every such row and one
    warning line say the verdict is weak (40 samples a side say nothing)."""
    doc = json.loads((FIXTURES / "ring_base.json").read_text())
    for r in doc["results"]:  # the first 6 samples of each id, with their groups and counts
        r["samples"], r["group"] = r["samples"][:6], r["group"][:6]
        r["verify"] = {k: v[:6] if isinstance(v, list) else v for k, v in r["verify"].items()}
    few = tmp_path / "few.json"
    few.write_text(json.dumps(doc))
    p = run_cli("compare", str(FIXTURES / "ring_base.json"), str(few))
    assert p.returncode == 0, p.stderr
    rows = [line for line in p.stdout.splitlines() if line.startswith(("kernel/", "user/", "ring/"))]
    assert len(rows) == len(doc["results"]) and all("(too few samples: 40 vs 6)" in r for r in rows), p.stdout
    assert f"warning: {len(rows)} id(s) have fewer than {MIN_SAMPLES} samples on a side" in p.stdout
    full = run_cli("compare", str(FIXTURES / "ring_base.json"), str(FIXTURES / "ring_same.json"))
    assert "too few samples" not in full.stdout and "samples on a side" not in full.stdout, full.stdout


def test_bad_files_give_one_line():
    for name in ("ring_corrupt.json", "ring_truncated.json", "ring_old_schema.json", "missing.json"):
        p = run_cli("compare", str(FIXTURES / "ring_base.json"), str(FIXTURES / name))
        assert p.returncode == 2, name
        assert p.stderr.count("\n") == 1 and p.stderr.startswith("ctxbench: "), p.stderr
        assert "Traceback" not in p.stderr
    p = run_cli("compare", str(FIXTURES / "ring_base.json"), str(FIXTURES / "ring_same.json"), "--threshold", "abc")
    assert p.returncode == 2 and p.stderr.count("\n") == 1


def test_mann_whitney_known_answer():
    # disjoint samples of 10: U = 0, z = (50 - 0.5) / sqrt(175), p = erfc(z / sqrt 2)
    u, p = mann_whitney(list(range(1, 11)), list(range(11, 21)))
    assert u == 0
    assert math.isclose(p, math.erfc((49.5 / math.sqrt(175)) / math.sqrt(2)), rel_tol=1e-12)
    # identical samples (all ties): no evidence of a difference
    u, p = mann_whitney([5.0] * 8, [5.0] * 8)
    assert p == 1.0
    # ties handled with average ranks: U of a + U of b = n1 * n2
    a, b = [1, 2, 2, 3, 5], [2, 3, 3, 4]
    ua, _ = mann_whitney(a, b)
    ub, _ = mann_whitney(b, a)
    assert ua + ub == len(a) * len(b)


def _grouped_doc(path, base_doc, medians_per_group, rng, per=10):
    import json
    import numpy as np
    r = dict(base_doc["results"][0])
    xs = np.concatenate([m + rng.normal(0, m * 0.002, per) for m in medians_per_group])
    r["samples"] = [float(x) for x in xs]
    r["group"] = [g for g in range(len(medians_per_group)) for _ in range(per)]
    r.pop("verify", None)
    doc = dict(base_doc)
    doc["results"] = [r]
    path.write_text(json.dumps(doc))
    return path


def test_u_test_runs_on_group_medians(tmp_path):
    """Two runs whose groups drift (as a VM's host does) but whose group
    medians come from one distribution: sample by sample the U test would
    call the 5% apart medians 'slower'; on group medians it does not."""
    import json
    import numpy as np
    rng = np.random.default_rng(11)
    base_doc = json.loads((FIXTURES / "ring_base.json").read_text())
    drift = [1000, 1150, 960, 1080, 1010, 1120, 990, 1060, 1040, 1100]
    a = _grouped_doc(tmp_path / "a.json", base_doc, drift, rng)
    b = _grouped_doc(tmp_path / "b.json", base_doc, [x * 1.07 for x in drift[::-1]][:5] + drift[5:], rng)
    samples_a = json.loads(a.read_text())["results"][0]["samples"]
    samples_b = json.loads(b.read_text())["results"][0]["samples"]
    assert mann_whitney(samples_a, samples_b)[1] < 0.05  # what a per-sample test would say
    p = run_cli("compare", str(a), str(b))
    assert p.returncode == 0, p.stderr
    assert _verdicts(p.stdout) == ["no significant change"], p.stdout
    assert "on per-group medians" in p.stdout and "fewer than 5 groups" not in p.stdout


def test_machine_speed_reference_is_reported_not_averaged(tmp_path):
    import json
    import numpy as np
    rng = np.random.default_rng(12)
    base_doc = json.loads((FIXTURES / "ring_base.json").read_text())
    files = []
    for name, scale in (("a", 1.0), ("b", 1.2)):
        _grouped_doc(tmp_path / f"{name}.json", base_doc, [1000.0] * 6, rng)
        doc = json.loads((tmp_path / f"{name}.json").read_text())
        ref = dict(doc["results"][0], id="reference/cpu", quantity="reference", params={})
        ref["samples"] = [3000.0 * scale] * len(ref["samples"])
        doc["results"].append(ref)
        (tmp_path / f"{name}.json").write_text(json.dumps(doc))
        files.append(str(tmp_path / f"{name}.json"))
    p = run_cli("compare", *files)
    assert p.returncode == 0, p.stderr
    assert "machine speed: reference/cpu (fixed CPU work) changed by +20.0%" in p.stdout
    assert "over 1 ids" in p.stdout  # the reference is not one of the compared switch ids


def test_point_keys_use_the_engines_parameter_names():
    # the engine writes rate_hz: two irq points at different rates must not
    # be pooled as one id; the adapted n of a run is not part of a point
    from ctxbench.core.model import Result

    def point_key(r):
        return Result(r).point_key
    a = {"id": "irq/crc", "params": {"task": "crc", "rate_hz": 100}}
    b = {"id": "irq/crc", "params": {"task": "crc", "rate_hz": 1000}}
    assert point_key(a) != point_key(b)
    r1 = {"id": "kernel/thread/pipe/same-cpu", "params": {"n": 1000}}
    r2 = {"id": "kernel/thread/pipe/same-cpu", "params": {"n": 1200}}
    assert point_key(r1) == point_key(r2)


def test_report_recognises_irq_points_by_rate_hz():
    # an irq point (irq/analysis.py) is told from other derived results by
    # the params the schema declares for it: task and rate_hz
    from ctxbench.irq.section import _is_irq
    assert _is_irq({"id": "irq/crc/rate=100", "params": {"task": "crc", "rate_hz": 100}, "parts": {}})

