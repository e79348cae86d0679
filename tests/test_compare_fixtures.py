"""ctxbench compare on committed fixtures (no measurement)."""
import math

from conftest import FIXTURES, run_cli

from ctxbench.compare_stats import mann_whitney


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


def test_too_few_samples_warns():
    p = run_cli("compare", str(FIXTURES / "ring_base.json"), str(FIXTURES / "ring_unknown_kind.json"))
    # no common id: one clear line
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "no id" in p.stderr


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
