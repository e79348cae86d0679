"""ctxbench fleet (issue 26) against real OpenSSH servers on loopback ports
(tests/ssh_servers.py): eight hosts measured at once land eight runs in
the store; a host stopped before the run, one whose engine is killed
during it, one whose disk is full and one refusing the key each cost only
their own row, with the reason, and leave nothing behind on any server;
Ctrl-C here removes what every host had; an aarch64 host gets the aarch64
engine; bad hosts, inventories and commands are one line."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ENGINE, ROOT, ctrl_c, ctxbench_cmd, run_cli
from ssh_servers import Fleet
from test_no_orphans import descendants

pytestmark = [pytest.mark.machine, pytest.mark.flow]
pytest.importorskip("asyncssh")
RUN = ["run", "--quick", "--cpu", "0", "--groups", "2", "--iterations", "2"]
LONGER = ["run", "--quick", "--cpu", "0", "--groups", "12"]  # a few seconds of measuring: long enough to be seen and stopped


@pytest.fixture
def fleet_of(request):
    made = []

    def make(n: int, **kw) -> Fleet:
        f = Fleet(n, **kw)
        made.append(f)
        return f
    yield make
    for f in made:
        f.stop()


def fleet_cmd(f: Fleet, *args) -> list[str]:
    return [*ctxbench_cmd(), "fleet", "--ssh-config", str(f.ssh_config), *args]


def engines_running(root: Path) -> list[str]:
    """Engines started from a directory under the servers' root."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                cwd = os.readlink(d / "cwd")
            except OSError:
                continue
            if "ctxbench-engine" in cmd and (str(root) in cwd or str(root) in cmd):
                out.append(f"{d.name} {cmd[:100]}")
    return out


def rows(out: str, f: Fleet) -> dict[str, str]:
    names = {s.name for s in f.servers}
    return {line.split()[0]: line for line in out.splitlines() if line.split()[:1] and line.split()[0] in names}


def stored_runs(store: Path) -> int:
    from sqlalchemy import create_engine, text
    with create_engine(f"sqlite:///{store}").connect() as c:
        return c.execute(text("SELECT count(*) FROM runs")).scalar_one()


def test_eight_hosts_at_once_give_eight_runs_in_the_store(fleet_of, tmp_path):
    f = fleet_of(8)
    store = tmp_path / "store.sqlite"
    p = subprocess.run(fleet_cmd(f, *[s.name for s in f.servers], "--parallel", "8", "--store", str(store),
                                 "-o", str(tmp_path / "out"), "--plot", str(tmp_path / "fig"), "--", *RUN),
                       capture_output=True, text=True, timeout=600, env=dict(os.environ, CTXBENCH_ENGINE=str(ENGINE)))
    assert p.returncode == 0, p.stdout + p.stderr
    got = rows(p.stdout, f)
    assert len(got) == 8 and all(r.endswith("ok") for r in got.values()), p.stdout
    assert stored_runs(store) == 8
    docs = [json.loads((tmp_path / "out" / f"{s.name}.json").read_text()) for s in f.servers]
    assert sorted(d["fleet"]["host"] for d in docs) == sorted(s.name for s in f.servers)
    assert all(d["results"] and all("summary" in r for r in d["results"]) for d in docs)  # analysed here
    assert all(s.left() == [] for s in f.servers) and not engines_running(f.root)
    assert (tmp_path / "fig" / "fleet.png").stat().st_size > 0 and "figure: " in p.stdout


def _kill_sshd(server) -> bool:
    """SIGKILL every sshd process of `server` (its listener and the
    connection's), leaving the shell and engine they started: a server
    killed while it measures."""
    killed = False
    for pid in sorted(descendants(server.proc.pid) | {server.proc.pid}):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "sshd":
                os.kill(pid, signal.SIGKILL)
                killed = True
        except OSError:
            pass
    return killed


def test_a_failed_host_costs_only_its_row_and_leaves_nothing(fleet_of, tmp_path):
    """h1 stopped before the run, h2 refusing the key, h3 with a full disk,
    h4's engine killed while it measures, h5's SSH server killed while its
    engine measures (the connection drops: the remote watcher ends the
    engine); h0, h6, h7, h8 measured."""
    f = fleet_of(9)
    s = f.servers
    s[1].stop()
    f.refuse_key(s[2])
    s[3].fill_disk()
    store = tmp_path / "store.sqlite"
    proc = subprocess.Popen(fleet_cmd(f, *[x.name for x in s], "--parallel", "9", "--store", str(store), "--",
                                      *LONGER),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        killed, dropped = None, False
        deadline = time.monotonic() + 120
        while not (killed and dropped) and time.monotonic() < deadline and proc.poll() is None:
            for line in engines_running(s[4].dir) if not killed else []:
                pid = int(line.split()[0])
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:  # one that ended between the listing and the kill (a short engine
                    continue                # call before the run, on a loaded machine): the run's is looked for
                killed = pid
            if not dropped and engines_running(s[5].dir):
                dropped = _kill_sshd(s[5])
            time.sleep(0.01)
        out, err = proc.communicate(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert killed and dropped, "h4's engine or h5's server was never seen measuring"
    assert proc.returncode == 1, out + err
    got = rows(out, f)
    assert "connection refused" in got["h1"], got["h1"]
    assert "refused the key" in got["h2"], got["h2"]
    assert "No space left" in got["h3"], got["h3"]
    assert "killed (SIGKILL)" in got["h4"], got["h4"]
    assert "connection lost" in got["h5"], got["h5"]
    assert all(got[x.name].endswith("ok") for x in (s[0], s[6], s[7], s[8])), out
    assert stored_runs(store) == 4
    deadline = time.monotonic() + 20  # h5's watcher ends its engine once it sees the connection gone
    while time.monotonic() < deadline and (engines_running(f.root) or any(x.left() for x in s)):
        time.sleep(0.1)
    assert all(x.left() == [] for x in s), [(x.name, x.left()) for x in s]
    assert not engines_running(f.root)
    assert "5 of 9 host(s) failed" in err


def test_ctrl_c_here_removes_what_every_host_had(fleet_of, tmp_path):
    f = fleet_of(2)
    # SIGINT as a terminal leaves it: a test run in the background (a CI's `make test &`) inherits it ignored,
    # and a Python started so ignores Ctrl-C, as POSIX means a background job to
    proc = subprocess.Popen(fleet_cmd(f, "h0", "h1", "--no-store", "--", *LONGER),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    both = lambda: all(engines_running(s.dir) for s in f.servers)  # noqa: E731
    while time.monotonic() < deadline and proc.poll() is None and not both():
        time.sleep(0.05)
    seen = both()
    status, out, err = ctrl_c(proc)
    assert seen, "the engines were not seen measuring on both hosts"
    assert status == 130, err[-2000:]
    assert err.strip().splitlines()[-1] == "ctxbench: interrupted" and "Traceback" not in err
    assert all(s.left() == [] for s in f.servers) and not engines_running(f.root)


def test_a_front_end_killed_leaves_nothing_running_there(fleet_of):
    """SIGKILL here: no clean-up runs on this side, the connection drops, and
    the host's watcher kills the engine and removes the directory."""
    f = fleet_of(1)
    proc = subprocess.Popen(fleet_cmd(f, "h0", "--no-store", "--", *LONGER), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not engines_running(f.servers[0].dir):
            time.sleep(0.05)
        assert engines_running(f.servers[0].dir), "the engine was not seen measuring"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and (engines_running(f.root) or f.servers[0].left()):
        time.sleep(0.1)
    assert not engines_running(f.root) and f.servers[0].left() == []


def test_an_aarch64_host_gets_the_aarch64_engine(fleet_of, tmp_path):
    """h1 says aarch64 (`uname -m`) and runs aarch64 binaries under
    qemu-user (a user namespace's own binfmt_misc): it is given the aarch64
    engine, whose environment record comes back; h0 gets x86_64's."""
    if not (ROOT / "build" / "aarch64" / "ctxbench-engine").exists():
        pytest.skip("no aarch64 engine: make engine-aarch64 (make test builds it)")
    f = fleet_of(2, arch={1: "aarch64"})
    p = subprocess.run(fleet_cmd(f, "h0", "h1", "--no-store", "-o", str(tmp_path), "--", "env"),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    arch = {h: json.loads((tmp_path / f"{h}.json").read_text())["tool"]["build"]["arch"] for h in ("h0", "h1")}
    assert arch == {"h0": "x86_64", "h1": "aarch64"}


def test_a_host_without_an_engine_costs_its_row(fleet_of, tmp_path):
    """h1 says riscv64 (no engine is built for it); with --engines naming a
    directory without x86_64's, h0 says which make target builds it. Each
    leaves nothing behind."""
    f = fleet_of(2, arch={1: "riscv64"})
    p = subprocess.run(fleet_cmd(f, "h0", "h1", "--no-store", "--", "env"), capture_output=True, text=True,
                       timeout=120)
    got = rows(p.stdout, f)
    assert p.returncode == 1 and got["h0"].endswith("ok"), p.stdout
    assert "no engine for architecture 'riscv64'" in got["h1"], got["h1"]
    empty = tmp_path / "engines"
    empty.mkdir()
    q = subprocess.run(fleet_cmd(f, "h0", "--engines", str(empty), "--no-store", "--", "env"),
                       capture_output=True, text=True, timeout=120)
    assert q.returncode == 1 and "make engine-x86_64" in rows(q.stdout, f)["h0"], q.stdout
    assert all(s.left() == [] for s in f.servers) and not engines_running(f.root)


def test_an_inventory_with_groups_and_host_variables(fleet_of, tmp_path):
    f = fleet_of(3)
    inv = tmp_path / "hosts.ini"
    inv.write_text("[lab]\n" + "".join(
        f"{s.name} ansible_host=127.0.0.1 ansible_port={s.port} ansible_user=root\n" for s in f.servers[:2])
        + f"\n[far]\n{f.servers[2].name} ansible_host=127.0.0.1 ansible_port={f.servers[2].port}\n"
        + f"\n[all:vars]\nansible_ssh_private_key_file={f.key}\n")
    p = subprocess.run(fleet_cmd(f, "--inventory", str(inv), "--limit", "lab", "--no-store", "--", "env"),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert set(rows(p.stdout, f)) == {"h0", "h1"}


def test_an_unknown_host_key_is_refused(fleet_of, tmp_path):
    f = fleet_of(1)
    f.known_hosts.write_text("")
    p = subprocess.run(fleet_cmd(f, "h0", "--no-store", "--", "env"), capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "host key not verified" in rows(p.stdout, f)["h0"], p.stdout


@pytest.mark.parametrize("args, words", [
    (["--", "env"], "name the hosts"),
    (["h0"], "give the command to run after --"),
    (["h0", "--", "runtimes"], "runtimes cannot run on a fleet"),
    (["h0", "--", "history"], "is not a measuring command"),
    (["h0", "--", "run", "--bogus"], "unrecognized arguments: --bogus"),
    (["bad host!", "--", "env"], "is not a host"),
    (["--inventory", "/nonexistent.ini", "--", "env"], "no such file"),
    (["h0", "--limit", "x", "--", "env"], "--limit selects from an --inventory"),
    (["h0", "h0", "--", "env"], "named twice"),
])
def test_bad_fleet_arguments_are_one_line(args, words):
    p = run_cli("fleet", *args)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and words in p.stderr, p.stderr


def test_an_inventory_ansible_cannot_read_is_one_line(tmp_path):
    bad = tmp_path / "inv.ini"
    bad.write_text("[g]\nhost a=b c\n")
    p = run_cli("fleet", "--inventory", str(bad), "--", "env")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "inventory" in p.stderr, p.stderr
