"""Runs every engine unit-test binary (engine/tests/test_*.c)."""
import subprocess

import pytest

from conftest import BUILD, ROOT

pytestmark = pytest.mark.machine

UNITS = sorted(p.stem for p in (ROOT / "engine" / "tests").glob("test_*.c"))
# engine/tests/check.h: a binary that cannot run here exits with this and says why
SKIPPED = 77


@pytest.mark.parametrize("name", UNITS)
def test_engine_unit(name):
    exe = BUILD / "tests" / name
    assert exe.exists(), f"{exe} not built (make unit-tests)"
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600)
    if p.returncode == SKIPPED:
        why = [line for line in p.stdout.splitlines() if line.startswith("skip: ")]
        assert why, f"exit {SKIPPED} without a 'skip: ' line saying why:\n{p.stdout}{p.stderr}"
        pytest.skip(why[-1][len("skip: "):])
    assert p.returncode == 0, p.stdout + p.stderr
