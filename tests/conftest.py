"""Shared fixtures: where the engine and the test fixtures are.

No unmarked test starts an engine or a runtime harness (docs/testing.md):
each one runs with the recorded engine (CTXBENCH_ENGINE_REPLAY, the
recordings in tests/fixtures/engine/recordings), CTXBENCH_ENGINE naming
tests/fixtures/engine/refuse (it fails, and notes that it was started)
and the runtimes' harnesses the fake ones of tests/fixtures/runtimes-root.
A session that runs no `machine` test (`make check`) has ENGINE = refuse
too, and fails at its end if anything started it. Tests marked `machine`
get the real engine. With CTXBENCH_TEST_RECORD=1 (tools/record_engine.py)
unmarked tests run the real engine and record what it says."""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from ctxbench.records import RECORDS

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "native"
ENGINE = BUILD / "ctxbench-engine"
FIXTURES = ROOT / "tests" / "fixtures"
REAL_ENGINE = ENGINE
REFUSE = FIXTURES / "engine" / "refuse"
RECORDINGS = FIXTURES / "engine" / "recordings"
RUNTIMES_ROOT = FIXTURES / "runtimes-root"
RECORD = os.environ.get("CTXBENCH_TEST_RECORD") == "1"


def pytest_configure(config):
    """A session that selects no `machine` test may start no engine: ENGINE
    (imported by the test modules, after this) is the refusing one, and
    every start of it is noted in CTXBENCH_REFUSED_LOG (shared with the
    xdist workers through the environment)."""
    global ENGINE
    from _pytest.mark.expression import Expression
    expr = config.getoption("markexpr")
    if expr and not RECORD and not _may_select_machine(Expression.compile(expr)):
        ENGINE = REFUSE
    if "CTXBENCH_REFUSED_LOG" not in os.environ:
        fd, path = tempfile.mkstemp(prefix="ctxbench-refused-")
        os.close(fd)
        os.environ["CTXBENCH_REFUSED_LOG"] = path


def _may_select_machine(expr) -> bool:
    """Whether `-m expr` can select a `machine` test, whatever other
    markers it carries (make test's parallel step, "not machine or flow",
    selects the machine tests also marked flow)."""
    import itertools
    others = ("flow", "slow", "cross", "browser")
    return any(expr.evaluate(lambda name, on=set(on): name == "machine" or name in on)
               for k in range(len(others) + 1) for on in itertools.combinations(others, k))


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller checks, once
        return
    log = Path(os.environ.get("CTXBENCH_REFUSED_LOG", "/nonexistent"))
    started = log.read_text().splitlines() if log.is_file() else []
    log.unlink(missing_ok=True)
    if started:
        print(f"\nthe engine was started {len(started)} time(s) in tests that may not start it "
              f"(mark them machine, or replay a recording): " + "; ".join(started[:5]), file=sys.stderr)
        session.exitstatus = 1


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """A test that needs a real PostgreSQL server (the `server` fixture, by
    itself or through another fixture, as the issue-33 audit's world does;
    or a store parametrised "postgresql") is `slow`: `make test` runs it,
    `make check` keeps the SQLite twins."""
    for item in items:
        spec = getattr(item, "callspec", None)
        if "server" in getattr(item, "fixturenames", ()) or \
                (spec is not None and "postgresql" in [str(v) for v in spec.params.values()]):
            item.add_marker(pytest.mark.slow)
    # the files of longest tests first (a stable sort: the rest in their order): xdist hands out
    # whole files (--dist loadfile), and one of these left for last ran alone while the other
    # worker had finished (`make test`'s first step: 28 s of a wheel's install at its end)
    items.sort(key=lambda item: LONGEST_FIRST.index(item.path.name) if item.path.name in LONGEST_FIRST
               else len(LONGEST_FIRST))


# the files whose tests take longest (seconds of flow: documented commands run, fleets of SSH servers,
# Ansible against them, building and installing the wheel, an aarch64 host under qemu), longest first
# (measured on 2 vCPUs, 2026-11-29): with one file a worker (--dist loadfile), a long one met last
# would leave the other worker idle while it runs
LONGEST_FIRST = ("test_docs_commands.py", "test_ansible_collection.py", "test_audit_issue33.py",
                 "test_runtimes_harnesses.py", "test_fleet.py", "test_fleet_edges.py", "test_wheel.py",
                 "test_host_edges.py", "test_fleet_commands.py", "test_peers_command.py", "test_issue46_fleet.py",
                 "test_reanalysis_tasks_irq.py", "test_host.py", "test_issue46_host.py", "test_tasks_cli.py",
                 "test_sweep_resume.py")


@pytest.fixture(autouse=True)
def engine_seam(request, monkeypatch):
    """Unmarked tests: the recorded engine (or, while recording, the real
    one writing recordings), fake runtime harnesses. `machine` tests: the
    real engine and harnesses."""
    for k in ("CTXBENCH_ENGINE_REPLAY", "CTXBENCH_ENGINE_RECORD", "CTXBENCH_CLOCK_REPLAY", "CTXBENCH_CLOCK_RECORD"):
        monkeypatch.delenv(k, raising=False)
    if request.node.get_closest_marker("machine"):
        monkeypatch.setenv("CTXBENCH_ENGINE", str(REAL_ENGINE))
        return
    monkeypatch.setenv("CTXBENCH_RUNTIMES_ROOT", str(RUNTIMES_ROOT))
    monkeypatch.setenv("CTXBENCH_PYTHON", sys.executable)
    # the clock of commands that plan by elapsed time (core/clock.py), per test
    clock_file = RECORDINGS / f"clock-{hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:12]}.json.gz"
    if RECORD:
        monkeypatch.setenv("CTXBENCH_ENGINE", str(REAL_ENGINE))
        monkeypatch.setenv("CTXBENCH_ENGINE_RECORD", str(RECORDINGS))
        clock_file.unlink(missing_ok=True)  # this test's processes append their readings afresh
        monkeypatch.setenv("CTXBENCH_CLOCK_RECORD", str(clock_file))
    else:
        monkeypatch.setenv("CTXBENCH_ENGINE", str(REFUSE))
        monkeypatch.setenv("CTXBENCH_ENGINE_REPLAY", str(RECORDINGS))
        monkeypatch.setenv("CTXBENCH_CLOCK_REPLAY", str(clock_file))


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


def run_cli(*args, timeout=300, cwd=None, env=None, in_process=None, **kw) -> subprocess.CompletedProcess:
    """The CLI with this test's engine (conftest.engine_seam): its exit
    status, stdout and stderr. With the recorded engine (unmarked tests) it
    runs in this process (cli.main, the command line's own entry): no
    interpreter start and no imports again, a test of flow. Otherwise
    (`machine` tests, recording), with `in_process=False`, or with anything
    for a child process (stdin, input), it runs the installed command as a
    user does."""
    if in_process is None:
        in_process = bool(os.environ.get("CTXBENCH_ENGINE_REPLAY"))
    if kw or not in_process:
        return subprocess.run(ctxbench_cmd() + list(args), capture_output=True, text=True,
                              timeout=timeout, cwd=cwd, env=env, **kw)
    from contextlib import redirect_stderr, redirect_stdout
    from io import BytesIO, TextIOWrapper

    from ctxbench.cli import main
    out, err = (TextIOWrapper(BytesIO(), encoding="utf-8", write_through=True) for _ in range(2))
    here, saved = os.getcwd(), dict(os.environ)
    try:
        if cwd is not None:
            os.chdir(cwd)
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        with redirect_stdout(out), redirect_stderr(err):
            try:
                rc = main([str(a) for a in args])
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        os.chdir(here)
        os.environ.clear()
        os.environ.update(saved)
    return subprocess.CompletedProcess(list(args), rc, out.buffer.getvalue().decode("utf-8", "replace"),
                                       err.buffer.getvalue().decode("utf-8", "replace"))


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

    from ctxbench.core import reader, results
    from ctxbench.reanalyse.analysis import reanalysed  # the reader reads the file as written

    written = json.loads(path.read_text())["results"]
    again = results.plain(reanalysed(reader.load(str(path), RECORDS, analyse_old=False), str(path))[0].results)
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


def own_engine(monkeypatch, path) -> None:
    """This test's own engine (a fake, a stub, a path that is not there),
    run by the Local transport: nothing replayed in its place."""
    monkeypatch.setenv("CTXBENCH_ENGINE", str(path))
    monkeypatch.delenv("CTXBENCH_ENGINE_REPLAY", raising=False)
    monkeypatch.delenv("CTXBENCH_ENGINE_RECORD", raising=False)


def own_engine_env(path, env=None) -> dict:
    """own_engine for a child process: its environment."""
    out = {k: v for k, v in (os.environ if env is None else env).items()
           if k not in ("CTXBENCH_ENGINE_REPLAY", "CTXBENCH_ENGINE_RECORD")}
    out["CTXBENCH_ENGINE"] = str(path)
    return out
