"""Shared fixtures: where the engine and the test fixtures are."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "native"
ENGINE = BUILD / "ctxbench-engine"
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(scope="session")
def engine_bin() -> Path:
    if not ENGINE.exists():
        pytest.fail("engine not built: run 'make engine' (make test does it)")
    return ENGINE


def ctxbench_cmd() -> list[str]:
    """The installed CLI, run the way a user runs it."""
    exe = Path(sys.executable).parent / "ctxbench"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "ctxbench"]


def run_cli(*args, timeout=300, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, CTXBENCH_ENGINE=str(ENGINE))
    return subprocess.run(ctxbench_cmd() + list(args), capture_output=True, text=True,
                          timeout=timeout, env=env, **kw)


def run_engine(*args, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([str(ENGINE)] + list(args), capture_output=True, text=True, timeout=timeout)
