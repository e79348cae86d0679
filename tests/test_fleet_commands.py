"""`ctxbench fleet -- COMMAND` for any measuring command with its own
options (issue 35), over 3 real OpenSSH servers on loopback
(tests/ssh_servers.py), one of them stopped: each command's two
results are kept in the store and in -o's directory, the stopped host's
row says why, the exit status is 1, the table shows the points the
command produced, each document's environment is its host's (a hostname of
its own), and nothing is left on any host. These are also `sweep` and
`tasks` through --host (tests/test_host.py has the other commands; `run`
with its own options on a fleet: tests/test_issue46_fleet.py).
Flow, not numbers."""
from __future__ import annotations

import json
import subprocess

import pytest

from conftest import ctxbench_cmd
from ssh_servers import Fleet
from test_fleet import engines_running, rows, stored_runs

pytestmark = [pytest.mark.machine, pytest.mark.flow]
pytest.importorskip("asyncssh")

COMMANDS = [
    # sweep's least budget (sweep/command.MIN_BUDGET_S) and 2 s more: under load a host's pilot may need 1 s
    # of the 1 s 10 leaves to measure, and refuses
    ("sweep", ["--quick", "--budget", "12"]),
    ("tasks", ["--quick", "--rounds", "2"]),
]


def test_any_command_on_a_fleet_with_a_host_down(tmp_path):
    # two hosts measure (each sweep fills its budget on the CPUs this machine has: a third cost CI 12 s of CPU)
    f = Fleet(3, hostnames={i: f"remote-{i}" for i in range(3)})  # each host's sessions have a name of their own
    try:
        f.servers[2].stop()
        names = [s.name for s in f.servers]
        store = tmp_path / "store.sqlite"
        for k, (command, options) in enumerate(COMMANDS):
            out = tmp_path / command
            p = subprocess.run([*ctxbench_cmd(), "fleet", *names, "--ssh-config", str(f.ssh_config), "--parallel",
                                "3", "--store", str(store), "-o", str(out), "--", command, *options],
                               capture_output=True, text=True, timeout=600)
            assert p.returncode == 1, p.stdout + p.stderr
            got = rows(p.stdout, f)
            assert all(got[n].endswith("ok") for n in names[:2]), p.stdout
            assert "connection refused" in got["h2"], got["h2"]
            assert stored_runs(store) == 2 * (k + 1)
            docs = [json.loads((out / f"{n}.json").read_text()) for n in names[:2]]
            for i, (n, d) in enumerate(zip(names[:2], docs)):
                assert d["fleet"]["host"] == n and d["fleet"]["command"] == [command, *options]
                assert d["environment"]["hostname"] == f"remote-{i}"  # measured there: the host's record
                assert d[command]["housekeeping"]["transport"] == "ssh" and d["results"]
            assert sorted(x.name for x in out.iterdir()) == [f"{n}.json" for n in names[:2]]
            head = next(line for line in p.stdout.splitlines() if line.startswith("host "))
            # the table's columns are the points the command produced (its first host's first ones)
            assert docs[0]["results"][0]["id"] in head, head
            assert all(d["fleet"]["arch"] == "x86_64" for d in docs)
            assert all(s.left() == [] for s in f.servers) and not engines_running(f.root)
    finally:
        f.stop()


def test_a_fleet_refuses_what_it_decides_and_a_bad_option_in_one_line(tmp_path):
    for after, says in ((["tasks", "-o", "x.json"], "-o is the fleet's to decide"),
                        (["ring", "--parties", "1"], "ring: argument --parties"),
                        (["runtimes"], "runtimes cannot run on a fleet"),
                        (["ring", "--sto", "x.sqlite"], "--store/--no-store is the fleet's to decide"),
                        (["report", "x.json"], "'report' is not a measuring command")):
        p = subprocess.run([*ctxbench_cmd(), "fleet", "h0", "--no-store", "--", *after], capture_output=True,
                           text=True, timeout=60)
        assert p.returncode == 2, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1 and says in p.stderr, p.stderr
