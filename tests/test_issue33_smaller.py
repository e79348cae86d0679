"""Issue 33's smaller items that live outside the store and the fleet: a
language runtime asked for alone and not installed is refused before
anything is measured (it measured the engine's reference rows and exited
0). The engine is a stub that leaves a file when called: it must not be."""
from __future__ import annotations

import os
import shutil
import sys



def test_runtimes_asked_for_alone_and_absent_is_refused_before_measuring(tmp_path):
    stub = tmp_path / "stub-engine"
    called = tmp_path / "ENGINE-WAS-CALLED"
    stub.write_text(f"#!/bin/sh\necho \"$@\" >> {called}\nexit 3\n")
    stub.chmod(0o755)
    bin_dir = tmp_path / "bin"  # a PATH with this Python and the shell's tools, and no go
    bin_dir.mkdir()
    for tool in ("sh", "env", "uname"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    env = {"PATH": f"{os.path.dirname(sys.executable)}:{bin_dir}", "CTXBENCH_ENGINE": str(stub)}
    p = _run(env, tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr, (p.returncode, p.stderr)
    assert p.stderr.strip().splitlines()[-1].startswith("ctxbench: runtimes: go asked for"), p.stderr
    assert not called.exists() and not (tmp_path / "out.json").exists()


def _run(env: dict, tmp_path):
    import subprocess

    from conftest import ctxbench_cmd
    return subprocess.run(ctxbench_cmd() + ["runtimes", "--runtime", "go", "--no-store", "-o",
                                            str(tmp_path / "out.json")],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, **env))
