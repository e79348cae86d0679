"""--host (issue 35): every measuring command's engine work on another host
over SSH, against a real OpenSSH server on loopback (tests/ssh_servers.py)
whose sessions have a hostname of their own (a UTS namespace), so a
document whose environment is the host's says so. Each command measures
there and leaves nothing behind; the host's CPUs are what --cpu is checked
against. These judge the flow, not a number; the edges (Ctrl-C, a killed
server, aarch64): test_host_edges.py."""
from __future__ import annotations

import json
import subprocess

import pytest

from conftest import ctxbench_cmd
from ssh_servers import Fleet
from test_fleet import engines_running

pytestmark = [pytest.mark.machine, pytest.mark.flow]
pytest.importorskip("asyncssh")
NAME = "ctxbench-remote"


@pytest.fixture(scope="module")
def host():
    f = Fleet(1, hostnames={0: NAME})
    yield f
    f.stop()


def on_host(f: Fleet, *args, server: str = "h0") -> list[str]:
    return [*ctxbench_cmd(), *args, "--host", server, "--ssh-config", str(f.ssh_config), "--no-store"]


def left(f: Fleet) -> list[str]:
    """What is left on the hosts: files in their TMPDIR, engines running."""
    return [x for s in f.servers for x in s.left()] + engines_running(f.root)


# sweep, tasks and run through --host, each on three hosts with names of their own: the fleet's
# test (tests/test_fleet_commands.py), which runs them as `ctxbench COMMAND --host HOST`
COMMANDS = {
    "irq": ["--quick", "--rounds", "2"],
    "ring": ["--quick", "--groups", "2"],
    "noise": ["--quick"],
    "anatomy": ["--quick", "--groups", "2"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_measures_on_the_host(host, command, tmp_path):
    out = tmp_path / f"{command}.json"
    p = subprocess.run(on_host(host, command, *COMMANDS[command], "-o", str(out)), capture_output=True,
                       text=True, timeout=300)
    doc = json.loads(out.read_text()) if out.is_file() else {}
    # irq's status is its self-check's verdict (exit 1: it failed, which a loaded host can make it do)
    assert p.returncode == 0 or (command == "irq" and p.returncode == 1 and doc["irq"]["self_check_failed"]), \
        p.stderr
    assert doc["environment"]["hostname"] == NAME  # the host's record, not this machine's
    hk = doc[command]["housekeeping"]
    assert hk["engine_host"] == "h0" and hk["transport"] == "ssh" and not hk["shares_measured_cpu"]
    assert doc["results"] and all("summary" in r for r in doc["results"])  # analysed here
    if command == "anatomy":  # the profiled rung's kernel addresses named from the host's kallsyms
        prof = [r for r in doc["results"] if r.get("profile")]
        assert prof and all("naming_error" not in r["profile"] for r in prof), prof[:1]
    assert left(host) == []


def test_the_hosts_cpus_are_what_cpu_is_checked_against(host):
    p = subprocess.run(on_host(host, "tasks", "--quick", "--cpu", "4095"), capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines() == [
        p.stderr.strip().splitlines()[-1]] and "not allowed for the engine on h0" in p.stderr, p.stderr
    assert left(host) == []
