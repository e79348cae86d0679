"""The wheel (issue 35): `make wheel` builds one manylinux wheel carrying
the static engines for x86_64, aarch64 and armv7; installed into a fresh
virtual environment outside the checkout, with no compiler on PATH and
nothing of the checkout in sight, `ctxbench` finds its engine inside the
package, measures (`run --quick`) and runs a fleet over a real OpenSSH
server on loopback (tests/ssh_servers.py). Flow, not numbers."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT
from ssh_servers import Fleet

pytestmark = [pytest.mark.machine, pytest.mark.flow]
pytest.importorskip("asyncssh")
ENGINES = ("x86_64", "aarch64", "armv7")


def test_the_wheel_installs_and_runs_without_a_compiler_or_the_checkout(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("no make")
    made = subprocess.run(["make", "-s", "--no-print-directory", "wheel"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert made.returncode == 0, made.stdout + made.stderr
    wheels = sorted((ROOT / "dist").glob("ctxbench-*-py3-none-*manylinux*_x86_64.whl"))
    assert len(wheels) == 1, sorted((ROOT / "dist").iterdir())
    assert "consistent with the following platform tag" in made.stdout  # auditwheel show
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert all(f"ctxbench/engines/{a}/ctxbench-engine" in names for a in ENGINES), names
    tracked = subprocess.run(["git", "ls-files", "src/ctxbench"], cwd=ROOT, capture_output=True, text=True).stdout
    missing = [f for f in tracked.split() if f.removeprefix("src/") not in names]
    assert not missing, f"the wheel leaves out {missing}"

    venv = tmp_path / "venv"
    # without a pip of its own (copying one in is 3 s): this pip installs into it, as pipx's shared one does
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    pip = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                          "--no-compile", "--disable-pip-version-check", str(wheels[0])], capture_output=True,
                         text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr

    home = tmp_path / "home"
    home.mkdir()
    path = str(venv / "bin")  # no compiler, no make, nothing of the checkout
    assert shutil.which("cc", path=path) is None and shutil.which("gcc", path=path) is None
    env = {k: v for k, v in os.environ.items() if not k.startswith("CTXBENCH_")}
    env.update(PATH=path, HOME=str(home), XDG_DATA_HOME=str(home / "data"))
    ctxbench = str(venv / "bin" / "ctxbench")

    def run(*args):
        return subprocess.run([ctxbench, *args], cwd=home, env=env, capture_output=True, text=True, timeout=600)

    version = run("--version")
    assert version.returncode == 0 and str(venv) in version.stdout and "static" in version.stdout, version.stdout
    p = run("run", "--quick", "-o", "quick.json")
    assert p.returncode == 0, p.stderr
    doc = json.loads((home / "quick.json").read_text())
    assert doc["tool"]["build"]["static"] is True and doc["results"]

    f = Fleet(1)
    try:
        # run --ids: the way of a process per host (fleet/child.py), ctxbench started from the installed package
        p = run("fleet", "h0", "--ssh-config", str(f.ssh_config), "--no-store", "--", "run", "--quick", "--ids",
                "baseline/nop", "--groups", "2", "--iterations", "2")
        assert p.returncode == 0, p.stdout + p.stderr
        assert f.servers[0].left() == []
    finally:
        f.stop()
