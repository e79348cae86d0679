
"""Resume (issue 4): a sweep killed halfway keeps what it measured, and the
same command measures only the missing points."""
import json
import os
import signal
import subprocess
import time

import pytest
from conftest import ENGINE, ctxbench_cmd, run_cli

pytestmark = pytest.mark.machine

ARGS = ["sweep", "--mechanism", "kernel/thread/futex", "--sizes", "1K..64K", "--strides", "0,8",
        "--groups", "3", "--iterations", "5", "--min-sample-us", "3000", "--no-plot", "--no-counters"]
TOTAL = 7 * 2


def _saved(path):
    try:
        return json.loads(open(path).read())
    except (OSError, ValueError):
        return None


def test_killed_sweep_resumes_with_missing_points_only(tmp_path, engine_bin):
    out = str(tmp_path / "sw.json")
    env = dict(os.environ, CTXBENCH_ENGINE=str(ENGINE))
    proc = subprocess.Popen(ctxbench_cmd() + ARGS + ["-o", out], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    doc = None
    try:
        t_end = time.monotonic() + 120
        while time.monotonic() < t_end and proc.poll() is None:
            doc = _saved(out)
            if doc and 3 <= len(doc["results"]) < TOTAL - 3:
                break
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)  # no chance to clean up: only the atomic saves count
    finally:
        proc.wait(timeout=30)
    doc = _saved(out)
    assert doc is not None, "nothing saved before the kill"
    first = {(r["params"]["size"], r["params"]["stride"]): r["samples"] for r in doc["results"]}
    assert 0 < len(first) < TOTAL and doc["sweep"]["complete"] is False

    p = run_cli(*ARGS, "-o", out, timeout=300)
    assert p.returncode == 0, p.stderr
    assert f"{len(first)} of {TOTAL} points already measured" in p.stderr
    assert f"0/{TOTAL - len(first)}" in p.stderr  # the progress counts only the missing points
    final = json.loads(open(out).read())
    assert final["sweep"]["complete"] is True
    got = {(r["params"]["size"], r["params"]["stride"]): r["samples"] for r in final["results"]}
    assert len(got) == TOTAL
    for k, samples in first.items():  # kept as measured, not measured again
        assert got[k] == samples
    # a complete file: running again measures nothing
    p = run_cli(*ARGS, "-o", out, timeout=120)
    assert p.returncode == 0 and f"{TOTAL} of {TOTAL} points already measured" in p.stderr
