"""How long `ctxbench export --store` takes on a store of 10^5 runs (issue 49:
under 30 s to Parquet). A benchmark, not a test: the time is this
machine's. The store is made at the newest schema and filled with SQL
directly (a document per run would take an hour to add): 100,000 runs of 40
hosts, 10 kernels and 3 mitigation states, each with 30 results whose
columns hold what a default run's hold (params, medians, intervals,
cycles, verdicts, a warning now and then). The time printed is the whole
command, Python's start-up and the imports included, best of --repeat.

    .venv/bin/python bench/export_speed.py               # 100,000 runs, about a minute to fill
    .venv/bin/python bench/export_speed.py --runs 10000 --keep /tmp/s.sqlite
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IDS = [f"kernel/{who}/{mech}/{where}" for who in ("thread", "process") for mech in ("pipe", "futex", "eventfd", "sem")
       for where in ("same-cpu", "cross-cpu")] + \
      [f"user/{k}/same-thread" for k in ("asm", "ucontext", "green", "green-yield")] + \
      [f"timer/{t}" for t in ("rdtsc", "clock_gettime", "monotonic_raw")] + \
      [f"baseline/{b}" for b in ("nop", "call", "syscall")] + [f"reference/cpu/{k}" for k in range(4)]
MITIGATIONS = [", ".join(f"{v}: {state}" for v in ("gather_data_sampling", "itlb_multihit", "l1tf", "mds", "meltdown",
                                                    "mmio_stale_data", "retbleed", "spec_rstack_overflow",
                                                    "spec_store_bypass", "spectre_v1", "spectre_v2", "srbds",
                                                    "tsx_async_abort"))
               for state in ("Not affected", "Mitigation: Retpolines; STIBP: disabled; RSB filling",
                             "Vulnerable")]


def _runs(k: int, rnd: random.Random) -> tuple:
    started = datetime.datetime(2025, 1, 1) + datetime.timedelta(minutes=7 * k)
    digest = hashlib.sha256(f"run {k}".encode()).hexdigest()
    doc = zlib.compress(b'{"schema": "ctxbench/2", "results": []}')
    return (k + 1, digest, "run", f"host{k % 40:02d}", "AMD EPYC 7B13 64-Core Processor", "0xa0011d1",
            f"6.{k % 10}.0-{k % 3}-amd64", MITIGATIONS[k % 3], "0.1.0", None, started, started, doc,
            "performance", k % 2 == 0, 2.45 + 0.1 * rnd.random(), "KVM" if k % 2 == 0 else None)


def _results(k: int, rnd: random.Random) -> list[tuple]:
    out = []
    for i, rid in enumerate(IDS):
        med = (1800.0 if rid.startswith("kernel/") else 20.0) * (1 + 0.05 * rnd.random())
        cross = rid.endswith("cross-cpu")
        out.append((k + 1, rid, rid, "ns", med, med * 0.98, med * 1.02, med * 0.05, i % 11 != 0, None,
                    None if cross else med * 2.5, None if cross else med * 2.45, None if cross else med * 2.55,
                    None if cross else med * 0.1, None if cross else "probe",
                    QUANTITY[rid.split("/")[0]], 30, 0.05 * rnd.random(), "ok" if i % 11 else "not verified",
                    "dropped;outliers" if i % 7 == 0 else None, None if cross else 2.5, None,
                    1, 8, 4, 1000, True, "SCHED_FIFO", "same-cpu", "pipe", "thread"))
    return out


QUANTITY = {"kernel": "switch", "user": "switch", "timer": "timer", "baseline": "baseline", "reference": "baseline"}
RUN_COLUMNS = ("id", "digest", "command", "host", "cpu_model", "microcode", "kernel", "mitigations",
               "ctxbench_version", "git_commit", "started", "added", "document", "governor", "vm", "core_ghz",
               "hypervisor")
RESULT_COLUMNS = ("run_id", "result_id", "point_key", "unit", "median", "ci_lo", "ci_hi", "mde", "ok",
                  "runtime_version", "cycles_median", "cycles_ci_lo", "cycles_ci_hi", "cycles_mde", "cycles_method",
                  "quantity", "n", "cv", "verdict", "warning_codes", "clock_ghz", "params_other", "param_cpu",
                  "param_groups", "param_iterations", "param_n", "param_pinned", "param_policy", "param_placement",
                  "param_mechanism", "param_kind")


def fill(path: str, runs: int) -> None:
    """A store at the newest schema (made by ctxbench itself), then its rows."""
    sys.path.insert(0, str(ROOT / "src"))
    from ctxbench.core.store.db import Store
    Store(path)  # the schema, by the migrations
    rnd = random.Random(49)
    con = sqlite3.connect(path)
    with con:
        for start in range(0, runs, 5000):
            ks = range(start, min(start + 5000, runs))
            con.executemany(f"INSERT INTO runs ({', '.join(RUN_COLUMNS)}) VALUES ({', '.join('?' * len(RUN_COLUMNS))})",
                            [_runs(k, rnd) for k in ks])
            con.executemany(f"INSERT INTO results ({', '.join(RESULT_COLUMNS)}) "
                            f"VALUES ({', '.join('?' * len(RESULT_COLUMNS))})",
                            [row for k in ks for row in _results(k, rnd)])
    con.close()


def time_export(path: str, repeat: int) -> None:
    exe = Path(sys.executable).parent / "ctxbench"
    with tempfile.TemporaryDirectory(prefix="ctxbench-export-") as d:
        out = os.path.join(d, "results.parquet")
        best = None
        for _ in range(repeat):
            t, cpu = time.monotonic(), _children_cpu()
            p = subprocess.run([str(exe), "export", "--store", path, "-o", out], capture_output=True, text=True)
            took = (time.monotonic() - t, _children_cpu() - cpu)
            if p.returncode != 0:
                sys.exit(p.stderr)
            best = took if best is None or took < best else best
        print(p.stdout.strip())
        print(f"ctxbench export --store to Parquet: best of {repeat}: {best[0]:.1f} s ({best[1]:.1f} s of CPU); "
              f"{os.path.getsize(out) / 1e6:.1f} MB; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def _children_cpu() -> float:
    """CPU seconds (user and system) of the children waited for so far."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", metavar="PATH", help="make (or reuse) the store here, and keep it")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctxbench-bench-") as d:
        path = a.keep or os.path.join(d, "big.sqlite")
        if not os.path.exists(path):
            t = time.monotonic()
            fill(path, a.runs)
            print(f"{a.runs} runs of {len(IDS)} results stored in {time.monotonic() - t:.0f} s")
        time_export(path, a.repeat)


if __name__ == "__main__":
    main()
