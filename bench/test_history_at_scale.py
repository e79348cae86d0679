"""`ctxbench history` on 100,000 stored runs (issue 25: it must answer in
under 2 s on SQLite). A benchmark, not a test: the time is this machine's.
The store is filled once per session (about a minute: each run is a small
document of 10 ids on 4 hosts), and the time printed is the whole
command, Python's start-up and the imports included."""
import subprocess
import time

import pytest

from conftest import _tests

RUNS = 100_000
IDS = [f"kernel/thread/pipe/same-cpu/{k}" for k in range(10)]


def _doc(k: int) -> dict:
    return {"schema": "ctxbench/1", "tool": {"name": "ctxbench-engine", "version": "0.1.0"},
            "environment": {"hostname": f"host{k % 4}", "cpu": {"model": "Test CPU"},
                            "kernel": {"release": f"6.{k % 20}"}, "mitigations": {}},
            "results": [{"id": i, "quantity": "switch", "unit": "ns", "params": {}, "samples": [1000.0 + k % 50],
                         "summary": {"median": 1000.0 + k % 50, "ci95": [990.0, 1010.0]}} for i in IDS],
            "run": {"started": f"20{20 + k // 20000:02d}-{1 + k // 2000 % 12:02d}-{1 + k % 28:02d}T{k % 24:02d}:00"}}


@pytest.fixture(scope="module")
def big_store(tmp_path_factory):
    from ctxbench.core.store import record
    from ctxbench.core.store.db import Store
    url = str(tmp_path_factory.mktemp("store") / "big.sqlite")
    s = Store(url)
    t = time.monotonic()
    for start in range(0, RUNS, 5000):
        with s.begin() as conn:
            for k in range(start, start + 5000):
                record.add(conn, _doc(k))
    print(f"\n{RUNS} runs stored in {time.monotonic() - t:.0f} s")
    return url


def test_history_of_one_id_over_100000_runs(big_store):
    # one host's runs on one kernel: 5000 of the 100,000 (the detector tests the last 500)
    cmd = _tests.ctxbench_cmd() + ["history", IDS[3], "--store", big_store, "--host", "host1", "--kernel", "6.1"]
    best = None
    for _ in range(3):
        t = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        took = time.monotonic() - t
        assert p.returncode == 0, p.stderr
        best = took if best is None else min(best, took)
    rows = sum(1 for line in p.stdout.splitlines() if line.startswith("  20"))
    print(f"history of one id on one host: {rows} runs of {RUNS} in the store, best of 3: {best:.2f} s")
    assert rows == RUNS // 20
    assert best < 2.0, f"{best:.2f} s"
