"""Shared fixtures: where the engine and the test fixtures are."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "native"
ENGINE = BUILD / "ctxbench-engine"
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(scope="session", autouse=True)
def private_data_dir():
    """Runs kept without -o go to the data directory (core/datadir): the
    tests' own, never the user's ~/.local/share."""
    d = tempfile.mkdtemp(prefix="ctxbench-test-data-")
    # and no run is recorded in a results store unless a test asks
    # (tests/test_store_recording.py): opening one costs each command 0.4 s
    saved = {k: os.environ.get(k) for k in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "CTXBENCH_STORE")}
    os.environ.update(XDG_DATA_HOME=d, XDG_CONFIG_HOME=os.path.join(d, "config"), CTXBENCH_STORE="off")
    yield Path(d)
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def server():
    """A real PostgreSQL server for the session (tests/postgres_server.py),
    started on first use, stopped at the end."""
    from postgres_server import Server
    s = Server()
    yield s
    s.stop()


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


def ctrl_c(proc: subprocess.Popen, timeout: float = 60) -> tuple[int, str, str]:
    """Ctrl-C to a process started with start_new_session=True (SIGINT to
    its whole group, as a terminal sends it); (status, stdout, stderr) once
    it has ended. A process that outlives `timeout` is killed, group and all,
    and the wait's TimeoutExpired fails the test."""
    import signal
    try:
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, out, err


def run_engine(*args, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([str(ENGINE)] + list(args), capture_output=True, text=True, timeout=timeout)


def assert_intervals_rederived(path: Path) -> None:
    """Every result's interval in the file written is the one ctxbench's
    statistics give from the file's own raw samples (re-read and re-analysed,
    same fixed bootstrap seed), and is not collapsed onto the median: a
    summary made from other samples (the dropped ones, a stale batch) or an
    interval that lost its spread breaks it, where `lo <= median <= hi`
    holds by construction."""
    import json
    import math

    from ctxbench.core import reader

    written = json.loads(path.read_text())["results"]
    again = reader.load(str(path))["results"]
    assert [r["id"] for r in written] == [r["id"] for r in again]
    # no interval (null in the file, NaN once read) where other load left no sample to make one from
    same = lambda x, y: (x is None or math.isnan(x)) == (y is None or math.isnan(y)) and \
        (x is None or math.isnan(x) or math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-6))  # noqa: E731
    for w, a in zip(written, again):
        lo, hi = w["summary"]["ci95"]
        assert all(same(x, y) for x, y in zip((lo, hi), a["summary"]["ci95"])), (w["id"], (lo, hi), a["summary"]["ci95"])
        kept = [x for i, x in enumerate(w["samples"]) if i not in set(w["verification"]["dropped_samples"])]
        if len(set(kept)) > 1:
            assert hi > lo, (w["id"], lo, hi)
