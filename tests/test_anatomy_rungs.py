"""The anatomy's rungs keep what they read back whatever else one engine run
measures: every kernel id on one CPU in one run (as a suite or a ladder
does), and each rung that runs still carries its obtained setting in
params (a rung the kernel refuses fails in one line, the rest run)."""
import json

import pytest
from conftest import run_engine

pytestmark = pytest.mark.machine

RUNG_SUFFIXES = ("/fpu", "/ibpb", "/ssbd", "/l1d-flush", "/cgroup-same", "/cgroup-split", "/profiled")
READ_BACK = {  # a rung's suffix -> the params it must carry when it ran
    "/fpu": ("vector_state",),
    "/ibpb": ("prctl", "prctl_state_a", "prctl_state_b"),
    "/ssbd": ("prctl", "prctl_state_a", "prctl_state_b"),
    "/l1d-flush": ("prctl", "prctl_state_a", "prctl_state_b"),
    "/cgroup-same": ("cgroups", "cgroup_version", "cgroup_a", "cgroup_b"),
    "/cgroup-split": ("cgroups", "cgroup_version", "cgroup_a", "cgroup_b"),
}


def test_every_rung_reads_back_in_a_run_of_every_same_cpu_kernel_id():
    listed = json.loads(run_engine("list", "--json").stdout)
    ids = [b["id"] for b in listed if b["id"].startswith("kernel/") and "cross-cpu" not in b["id"]]
    rungs = [i for i in ids if i.endswith(RUNG_SUFFIXES)]
    assert len(ids) - len(rungs) >= 8 and len(rungs) >= 12, ids  # enough configurations before the rungs
    p = run_engine("run", *ids, "--groups", "1", "--iterations", "1", "--min-sample-us", "100",
                   "--warmup-ms", "0", "--json")
    refused = [ln for ln in p.stderr.splitlines() if ln.startswith("ctxbench-engine: kernel/")]
    got = {r["id"]: r["params"] for r in json.loads(p.stdout)["results"]}
    for i in ids:
        if i not in got:  # refused here (a prctl, cgroups without root): one line naming it
            assert len([ln for ln in refused if ln.startswith(f"ctxbench-engine: {i}: ")]) == 1, p.stderr
    for i in rungs:
        if i in got:
            want = next((v for s, v in READ_BACK.items() if i.endswith(s)), ())
            assert all(k in got[i] for k in want), (i, got[i])
    assert any(i in got for i in rungs if i.endswith(("/fpu", "/ibpb", "/ssbd")))
