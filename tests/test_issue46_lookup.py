"""Issue 46's audit (issue46-host-wheel.md, issue46-fleet.md, one note of
issue46-model-report-store-peers.md): which engine the front end runs, and
the command's first instants.

- B10, B11: `pip install --target D/src` into a directory that looks like a
  checkout (engine/src, a Makefile, a pyproject.toml, build/native) is an
  installed package: it runs its own engine, never D's build;
- B14, B26: CTXBENCH_ENGINE naming a directory is one line, no traceback;
- B21, B22: an installed package whose engine lost its exec bit says so; it
  never runs an engine from PATH (nor does a checkout);
- A160, A166, S04, S27, S28: SIGTERM and SIGHUP from the package's first
  instruction are an interruption (one line, exit 130);
- A148's note: an out-of-memory error is its one line, not a traceback;
- runtimes/harness.root() is decided by the package's location, as the engine's.

An installed package is simulated by copying src/ctxbench where pip would
put it, with a ctxbench-*.dist-info beside it, and running it with `python
-S` (the venv's editable-install finder would import this checkout's
package instead) and the venv's site-packages on PYTHONPATH."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, ctxbench_cmd, run_cli

from ctxbench import cli
from ctxbench.core import engine, locations
from ctxbench.core.errors import UserError
from ctxbench.core.ssh import engines
from ctxbench.runtimes import harness

ARCH = engines.here()


def _planted(path: Path, marker: Path) -> Path:
    """An engine that must never run: it leaves `marker` and says so."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ntouch '{marker}'\necho 'PLANTED ENGINE RAN' >&2\nexit 3\n")
    path.chmod(0o755)
    return path


def _own(path: Path) -> Path:
    """An engine that answers --version, naming itself "packaged"."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\necho '{\"name\": \"ctxbench-engine\", \"version\": \"packaged\", "
                    "\"build\": {\"arch\": \"x86_64\", \"static\": true}}'\n")
    path.chmod(0o755)
    return path


def _looks_like_a_checkout(d: Path) -> None:
    """Every marker of a checkout: engine/src, a Makefile and ctxbench's pyproject.toml."""
    (d / "engine" / "src").mkdir(parents=True, exist_ok=True)
    (d / "Makefile").write_text("all:\n")
    shutil.copy(ROOT / "pyproject.toml", d / "pyproject.toml")


def _pip_installed(site: Path) -> Path:
    """This package copied to site/ctxbench as pip installs it (the
    dist-info beside it; copy2 keeps the times, so the .pyc files stay
    valid): its package directory."""
    pkg = site / "ctxbench"
    shutil.copytree(ROOT / "src" / "ctxbench", pkg, ignore=shutil.ignore_patterns("engines"))
    info = site / "ctxbench-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ctxbench\nVersion: 0.1.0\n")
    (info / "RECORD").write_text("ctxbench/__init__.py,,\n")
    return pkg


def _run_installed(site: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in (os.environ if env is None else env).items() if not k.startswith("CTXBENCH_ENGINE")}
    env["PYTHONPATH"] = f"{site}{os.pathsep}{sysconfig.get_paths()['purelib']}"
    return subprocess.run([sys.executable, "-S", "-m", "ctxbench", *args], capture_output=True, text=True,
                          timeout=60, env=env)


@pytest.fixture
def lookup_env(monkeypatch, tmp_path):
    """No CTXBENCH_ENGINE, no replay, an empty PATH: the lookup alone decides."""
    for k in ("CTXBENCH_ENGINE", "CTXBENCH_ENGINE_REPLAY", "CTXBENCH_ENGINE_RECORD"):
        monkeypatch.delenv(k, raising=False)
    (tmp_path / "empty-path").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))
    if ARCH is None:
        pytest.skip("no engine architecture for this machine")


# ---- B10, B11: installed into a directory that looks like a checkout -------

def test_pip_install_target_into_a_checkout_look_alike_runs_its_own_engine(tmp_path):
    """B10: D holds engine/src, a Makefile, ctxbench's pyproject.toml and
    build/native/ctxbench-engine; the wheel is installed at D/src. The
    package is an installed distribution: its own engine answers --version,
    D's never runs."""
    if ARCH is None:
        pytest.skip("no engine architecture for this machine")
    d, marker = tmp_path / "D", tmp_path / "MARKER"
    _looks_like_a_checkout(d)
    _planted(d / "build" / "native" / "ctxbench-engine", marker)
    own = _own(_pip_installed(d / "src") / "engines" / ARCH / "ctxbench-engine")
    p = _run_installed(d / "src", "--version")
    assert p.returncode == 0 and f"packaged (x86_64, unknown compiler, static) at {own}" in p.stdout, p
    assert not marker.exists() and "PLANTED" not in p.stdout + p.stderr


def test_what_makes_a_checkout(tmp_path):
    """The package is src/ctxbench beside engine/src, a Makefile and a
    pyproject.toml of project ctxbench, and no installed distribution; the
    editable install this venv has (make run) is this checkout's."""
    _looks_like_a_checkout(tmp_path)
    pkg = tmp_path / "src" / "ctxbench"
    pkg.mkdir(parents=True)
    assert locations.checkout(pkg) == tmp_path
    info = tmp_path / "src" / "ctxbench-0.1.0.dist-info"
    info.mkdir()
    assert locations.checkout(pkg) is None  # pip install --target: installed
    info.rmdir()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "another"\n')
    assert locations.checkout(pkg) is None  # another project's src/ctxbench (a vendored copy)
    (tmp_path / "pyproject.toml").write_text('[project\nname = "ctxbench"\n')
    assert locations.checkout(pkg) is None  # unreadable: no checkout
    (tmp_path / "pyproject.toml").unlink()
    assert locations.checkout(pkg) is None
    assert locations.checkout() == ROOT.resolve()  # this venv's editable install


# ---- B14, B26: CTXBENCH_ENGINE names a directory --------------------------

def test_ctxbench_engine_naming_a_directory_is_one_line(tmp_path, monkeypatch):
    """B14: run --quick with CTXBENCH_ENGINE=/tmp was a PermissionError
    traceback (a directory passes os.access(X_OK)): one line, exit 2. B26:
    --version says the engine is not available, in its one line."""
    monkeypatch.setenv("CTXBENCH_ENGINE", str(tmp_path))
    monkeypatch.delenv("CTXBENCH_ENGINE_REPLAY", raising=False)
    p = run_cli("run", "--quick", "--no-store", "-o", tmp_path / "out.json", in_process=True)
    assert (p.returncode, p.stderr) == (2, f"ctxbench: CTXBENCH_ENGINE={tmp_path} is not an executable file\n"), p
    assert not (tmp_path / "out.json").exists()
    p = run_cli("--version", in_process=True)
    assert p.returncode == 0 and p.stderr == "", p
    assert p.stdout.splitlines()[1] == f"engine: not available: CTXBENCH_ENGINE={tmp_path} is not an executable file"


def test_an_engine_the_kernel_will_not_start_is_one_version_line(tmp_path, monkeypatch):
    """An executable file that is no program (no #!, no ELF): --version says
    it cannot be started, no traceback."""
    bad = tmp_path / "ctxbench-engine"
    bad.write_bytes(b"\x00\x01 not a program\n")
    bad.chmod(0o755)
    monkeypatch.setenv("CTXBENCH_ENGINE", str(bad))
    monkeypatch.delenv("CTXBENCH_ENGINE_REPLAY", raising=False)
    assert engine.Engine().build() == f"not available: the engine {bad} cannot be started: Exec format error"


# ---- B21, B22: its own engine only, never one on PATH ----------------------

def test_an_installed_package_whose_engine_lost_its_exec_bit_runs_none_from_path(tmp_path, monkeypatch, lookup_env):
    """B21, B22: the package's engines/<arch>/ctxbench-engine is not
    executable and PATH holds another engine: one line saying so and how to
    fix it; the engine on PATH never runs."""
    marker = tmp_path / "MARKER"
    _planted(tmp_path / "empty-path" / "ctxbench-engine", marker)
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    own = _own(site / "ctxbench" / "engines" / ARCH / "ctxbench-engine")
    own.chmod(0o644)
    (site / "ctxbench-0.1.0.dist-info").mkdir()
    monkeypatch.setattr(locations, "__file__", str(site / "ctxbench" / "core" / "locations.py"))
    why = f"this package's engine {own} is not an executable file: make it one (chmod +x) or reinstall ctxbench, " \
          "or set CTXBENCH_ENGINE"
    with pytest.raises(UserError) as e:
        engine.engine_path()
    assert e.value.why == why
    assert engine.Engine().build() == f"not available: {why}"  # --version
    p = run_cli("run", "--quick", "--no-store", "-o", tmp_path / "out.json", in_process=True)
    assert (p.returncode, p.stderr) == (2, f"ctxbench: {why}\n"), p
    assert not marker.exists()


def test_a_checkout_without_its_build_runs_none_from_path(tmp_path, monkeypatch, lookup_env):
    """The same rule for a checkout: no build/native engine is `make engine`,
    not the engine on PATH."""
    marker = tmp_path / "MARKER"
    _planted(tmp_path / "empty-path" / "ctxbench-engine", marker)
    _looks_like_a_checkout(tmp_path)
    (tmp_path / "src" / "ctxbench" / "core").mkdir(parents=True)
    monkeypatch.setattr(locations, "__file__", str(tmp_path / "src" / "ctxbench" / "core" / "locations.py"))
    with pytest.raises(UserError) as e:
        engine.engine_path()
    assert e.value.why == (f"ctxbench-engine not found: {tmp_path / 'build' / 'native' / 'ctxbench-engine'} "
                           "is not there: run 'make engine' or set CTXBENCH_ENGINE")
    assert not marker.exists()


# ---- runtimes/harness.root(): the same rule --------------------------------

def test_the_runtimes_root_is_the_package_s_checkout_not_one_above_it(tmp_path, monkeypatch):
    """A package installed in D/.venv, D holding a pyproject.toml and
    runtimes/: D's harnesses are not this package's (root() searched
    upward for them)."""
    monkeypatch.delenv("CTXBENCH_RUNTIMES_ROOT", raising=False)
    assert harness.root() == ROOT.resolve()  # this checkout (the editable install)
    _looks_like_a_checkout(tmp_path)
    (tmp_path / "runtimes").mkdir()
    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    _pip_installed(site)
    p = subprocess.run([sys.executable, "-S", "-c", "from ctxbench.runtimes import harness; print(harness.root())"],
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{sysconfig.get_paths()['purelib']}"})
    assert (p.returncode, p.stdout) == (0, f"{site / 'ctxbench'}\n"), p


# ---- A148's note: out of memory --------------------------------------------

def test_out_of_memory_is_one_line(monkeypatch, capsys):
    """`except MemoryError` came after `except Exception`, which caught it
    first and raised it again: a traceback, never the line."""
    def no_memory():
        raise MemoryError
    monkeypatch.setattr(cli, "build_parser", no_memory)
    assert cli.main(["--version"]) == 1
    assert capsys.readouterr().err == \
        "ctxbench: out of memory (try a machine with more memory, or fewer files at once)\n"


# ---- A160, A166, S04, S27, S28: SIGTERM and SIGHUP from the first instant ---

def _caught(pid: int) -> int:
    """The signals `pid` has a handler for (/proc's SigCgt mask); 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return next(int(ln.split()[1], 16) for ln in f if ln.startswith("SigCgt:"))
    except (OSError, StopIteration):
        return 0


@pytest.mark.slow  # signal timing: eight interpreters ended while they start
@pytest.mark.parametrize("sig, delay", [(signal.SIGTERM, d) for d in (0.0, 0.02, 0.05, 0.1, 0.2, 0.3)]
                         + [(signal.SIGHUP, d) for d in (0.0, 0.1)])
def test_sigterm_and_sighup_from_the_package_s_first_instruction(tmp_path, sig, delay):
    """From the moment ctxbench/__init__.py runs (seen here as SIGHUP being
    caught: it takes SIGTERM and SIGHUP in one statement), through the
    imports of the commands (a quarter of a second, where the audit's
    SIGTERM killed silently, -15) and into the command: one line, exit
    130, or exit 0 if the command had finished. Only Python's own start-up
    comes before (docs: ctxbench/__init__.py)."""
    out = tmp_path / "r.html"
    p = subprocess.Popen(ctxbench_cmd() + ["report", str(FIXTURES / "v1" / "run.json"), "-o", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL) for s in (signal.SIGHUP, signal.SIGTERM)])
    try:
        deadline = time.monotonic() + 10
        while not _caught(p.pid) & (1 << (signal.SIGHUP - 1)) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.0005)
        taken = bool(_caught(p.pid) & (1 << (signal.SIGHUP - 1)))
        time.sleep(delay)
        p.send_signal(sig)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert taken, "the command never took SIGHUP"
    assert (p.returncode, err) in ((130, "ctxbench: interrupted\n"), (0, "")), (delay, p.returncode, err[-2000:])
    assert p.returncode == 0 or not out.exists()


@pytest.mark.machine
@pytest.mark.flow
def test_sighup_to_the_fleet_s_group_is_an_interruption_that_leaves_nothing(tmp_path):
    """S28: a terminal closed (SIGHUP to the process group) while two hosts
    measure killed the fleet silently (-1) and left its temporary folder:
    an interruption, cleaned up here and on the hosts."""
    pytest.importorskip("asyncssh")
    from ssh_servers import Fleet
    from test_fleet import LONGER, engines_running, fleet_cmd
    f, tmp, proc = Fleet(2), tmp_path / "tmp", None
    tmp.mkdir()
    try:
        proc = subprocess.Popen(fleet_cmd(f, "h0", "h1", "--no-store", "--", *LONGER), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True,
                                env={**os.environ, "TMPDIR": str(tmp)})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and \
                not all(engines_running(s.dir) for s in f.servers):
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGHUP)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and err.strip().splitlines()[-1] == "ctxbench: interrupted", err[-2000:]
        assert list(tmp.iterdir()) == []
        assert all(s.left() == [] for s in f.servers) and not engines_running(f.root)
    finally:
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        f.stop()
