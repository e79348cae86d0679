"""Benchmarks: comparisons of two measured numbers on this machine, run by
`make bench`, never by `make test`/`make check` (a loaded host may move them
past any fixed tolerance; a test keeps only what a real defect breaks). They
share the tests' helpers (tests/conftest.py), re-exported here."""
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("tests_conftest",
                                               Path(__file__).resolve().parents[1] / "tests" / "conftest.py")
_tests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_tests)
run_engine, run_cli = _tests.run_engine, _tests.run_cli
ctxbench_cmd = _tests.ctxbench_cmd
# what the tests' modules import from their conftest, for the benchmarks that
# reuse their measurements (bench/test_verdicts.py)
ROOT, BUILD, ENGINE, FIXTURES = _tests.ROOT, _tests.BUILD, _tests.ENGINE, _tests.FIXTURES
assert_intervals_rederived, ctrl_c = _tests.assert_intervals_rederived, _tests.ctrl_c
# tests/ on the path for the servers' helper (tests/ssh_servers.py)
import sys  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
