
"""Resume (issue 4): a sweep killed halfway keeps what it measured, and the
same command continues it: the rounds already measured are kept as they
were, the pilot's missing rounds are measured, and the budget counts the
time the killed run spent."""
import json
import os
import signal
import subprocess
import time

import pytest
from conftest import ENGINE, ctxbench_cmd, run_cli

pytestmark = [pytest.mark.machine, pytest.mark.flow]  # rounds kept and resumed: no measured number is judged

ARGS = ["sweep", "--mechanism", "kernel/thread/futex", "--sizes", "1K..64K", "--strides", "0,8",
        "--groups", "3", "--iterations", "5", "--min-sample-us", "3000", "--no-counters",
        "--budget", "60"]
TOTAL = 7 * 2


def _saved(path):
    try:
        return json.loads(open(path).read())
    except (OSError, ValueError):
        return None


def test_killed_sweep_continues_keeping_its_rounds(tmp_path, engine_bin):
    out = str(tmp_path / "sw.json")
    env = dict(os.environ, CTXBENCH_ENGINE=str(ENGINE))
    proc = subprocess.Popen(ctxbench_cmd() + ARGS + ["-o", out], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    doc = None
    try:
        t_end = time.monotonic() + 120
        while time.monotonic() < t_end and proc.poll() is None:
            doc = _saved(out)
            if doc and doc["results"]:  # the first round is saved: the pilot is under way
                break
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)  # no chance to clean up: only the atomic saves count
    finally:
        proc.wait(timeout=30)
    doc = _saved(out)
    assert doc is not None, "nothing saved before the kill"
    first = {(r["params"]["size"], r["params"]["stride"]): r["samples"] for r in doc["results"]}
    assert 0 < len(first) and doc["sweep"]["complete"] is False

    p = run_cli(*ARGS, "-o", out, timeout=300)
    assert p.returncode == 0, p.stderr
    assert f"of {TOTAL} points have their 3 pilot rounds" in p.stderr
    final = json.loads(open(out).read())
    assert final["sweep"]["complete"] is True
    assert final["sweep"]["wall_s"] <= 60 + 10  # the budget spans both runs (10 s: start-up and figures slack)
    got = {(r["params"]["size"], r["params"]["stride"]): r for r in final["results"]}
    assert len(got) == TOTAL
    for k, samples in first.items():  # kept as measured: the earlier rounds are a prefix
        assert got[k]["samples"][:len(samples)] == samples
    for r in got.values():  # every point has its pilot rounds
        assert len(set(r["group"])) >= 3
    # a finished sweep whose budget is spent: running again measures nothing
    p = run_cli(*ARGS, "-o", out, timeout=120)
    assert p.returncode == 0
    again = json.loads(open(out).read())
    assert [r["samples"] for r in again["results"]] == [r["samples"] for r in final["results"]]
