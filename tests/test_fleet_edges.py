"""The fleet keeps every host that finished (issue 33): each host's
document is written and recorded as that host ends, two hosts never share
a file, Ctrl-C keeps what had finished, a store that fails costs warnings
and not the hosts' files; names from an inventory or the command line
reach the terminal escaped; --limit means what Ansible would read, or is
refused; a store the fleet cannot use is refused before any host is
touched. The cases that measure run against real OpenSSH servers
(tests/ssh_servers.py); those refused before connecting need none."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ctrl_c, ctxbench_cmd, run_cli

pytest.importorskip("asyncssh")
RUN = ["run", "--quick", "--cpu", "0", "--groups", "2", "--iterations", "2"]
LONGER = ["run", "--quick", "--cpu", "0", "--groups", "12"]


def _inventory(tmp_path, hosts: dict[str, dict], key: str | None = None, name: str = "hosts.json") -> str:
    """A JSON inventory (ansible's yaml plugin reads it): every host on
    127.0.0.1 as root, each with its own variables."""
    inv = {"all": {"vars": {"ansible_host": "127.0.0.1", "ansible_user": "root",
                            **({"ansible_ssh_private_key_file": key} if key else {})},
                   "children": {"lab": {"hosts": hosts}}}}
    p = tmp_path / name
    p.write_text(json.dumps(inv))
    return str(p)


def _one_line(p, *words, code=2):
    lines = p.stderr.strip().splitlines()
    assert p.returncode == code and len(lines) == 1 and lines[0].startswith("ctxbench: "), (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr and all(w in lines[0] for w in words), lines[0]
    assert "connecting" not in p.stderr and "[WARNING]" not in p.stderr + p.stdout
    return lines[0]


# ---- refused before any host is touched (no SSH server needed) -------------------------

@pytest.mark.parametrize("limit, words", [
    ("", "empty pattern"),
    ("[", "not a host pattern"),
    ("~[", "not a host pattern"),
    (":", "not a host pattern"),
    ("~", "not a host pattern"),
    ("nomatch", "no host matches nomatch"),
    ("lab:&nothing", "no host matches"),
])
def test_a_limit_ansible_would_not_read_as_written_is_refused(tmp_path, limit, words):
    """The audit's --limit '[' and --limit '' measured every host; a limit
    that matched nothing printed ansible's own [WARNING] first."""
    inv = _inventory(tmp_path, {"h0": {"ansible_port": 1}, "h1": {"ansible_port": 1}})
    _one_line(run_cli("fleet", "--inventory", inv, "--limit", limit, "--no-store", "--", "env"), words)


def test_a_limit_without_an_inventory_is_refused_even_empty():
    _one_line(run_cli("fleet", "127.0.0.1:1", "--limit", "", "--no-store", "--", "env"), "--limit")


def test_a_yaml_inventory_s_error_is_in_the_yaml_parser_s_words(tmp_path):
    bad = tmp_path / "hosts.yml"
    bad.write_text("all:\n  hosts:\n    h0: {ansible_host: [1\n")
    line = _one_line(run_cli("fleet", "--inventory", str(bad), "--", "env"), "YAML")
    assert "Invalid host pattern" not in line
    ini = tmp_path / "hosts.ini"
    ini.write_text("[g]\nhost a=b c\n")
    assert "YAML" not in _one_line(run_cli("fleet", "--inventory", str(ini), "--", "env"), "inventory")


def test_a_missing_key_file_is_said_as_such_not_unreachable(tmp_path):
    inv = _inventory(tmp_path, {"h0": {"ansible_port": 1, "ansible_ssh_private_key_file": str(tmp_path / "no_key")}})
    p = run_cli("fleet", "--inventory", inv, "--no-store", "--", "env")
    row = next(line for line in p.stdout.splitlines() if line.startswith("h0"))
    assert p.returncode == 1 and "key file" in row and "no_key" in row and "unreachable" not in row, p.stdout


@pytest.mark.parametrize("store, words", [
    ("ftp://someone:hunter2@example.org/x", "is not a store"),
    ("", "empty name"),
    ("sqlite://", "in-memory"),
    ("/dev/null", "a device"),
])
def test_a_store_the_fleet_cannot_use_is_refused_before_connecting(tmp_path, store, words):
    line = _one_line(run_cli("fleet", "127.0.0.1:1", "--store", store, "-o", str(tmp_path / "out"), "--", "env"),
                     words)
    assert "hunter2" not in line


def test_no_host_file_and_no_figure_lands_on_the_store(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    store = out / "127.0.0.1_1.json"  # the file host 127.0.0.1:1's results would take
    from test_store_edges import fill, synthetic
    fill(str(store), [synthetic(1)])
    before = store.read_bytes()
    _one_line(run_cli("fleet", "127.0.0.1:1", "--store", str(store), "-o", str(out), "--", "env"), "results store")
    figs = tmp_path / "figs"
    figs.mkdir()
    shutil.copy(store, figs / "fleet.png")
    _one_line(run_cli("fleet", "127.0.0.1:1", "--store", str(figs / "fleet.png"), "--plot", str(figs), "--",
                      "run", "--quick"), "results store")
    assert store.read_bytes() == before == (figs / "fleet.png").read_bytes()


def test_host_names_reach_the_terminal_escaped(tmp_path):
    """Names from an inventory (an OSC title, a reset, a colour) in the
    final table, the progress lines and the failure line: escapes, never
    the raw bytes."""
    hostile = {"h\x1b]0;pwned\x07": {"ansible_port": 1}, "r\x1bc": {"ansible_port": 1},
               "c\x1b(0x": {"ansible_port": 1, "ansible_host": "127.0.0.1\x1b(0"}}
    p = run_cli("fleet", "--inventory", _inventory(tmp_path, hostile), "--no-store", "--", "env")
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert "\x1b" not in p.stdout and "\x1b" not in p.stderr and "\x07" not in p.stdout + p.stderr
    assert "h\\x1b]0;pwned\\x07" in p.stdout and "r\\x1bc" in p.stdout and "c\\x1b(0x" in p.stdout


# ---- against real SSH servers -------------------------------------------------------------

@pytest.fixture
def fleet_of():
    from ssh_servers import Fleet
    made = []

    def make(n: int, **kw):
        f = Fleet(n, **kw)
        made.append(f)
        return f
    yield make
    for f in made:
        f.stop()


def _fleet(f, *args) -> list[str]:
    return [*ctxbench_cmd(), "fleet", "--ssh-config", str(f.ssh_config), *args]


def _stored(store: Path) -> list[str]:
    """The hosts whose runs the store holds."""
    import zlib

    from sqlalchemy import create_engine, text
    with create_engine(f"sqlite:///{store}").connect() as c:
        return sorted(json.loads(zlib.decompress(d))["fleet"]["host"]
                      for d in c.execute(text("SELECT document FROM runs")).scalars())


@pytest.mark.machine
@pytest.mark.flow
def test_hosts_whose_names_meet_in_one_file_name_each_keep_their_file(fleet_of, tmp_path):
    """büro, bäro and B_RO (one file name, b_ro, on a file system that
    ignores case too): three files, each with its own host's run."""
    f = fleet_of(3)
    names = ["büro", "bäro", "B_RO"]
    inv = _inventory(tmp_path, {n: {"ansible_port": s.port} for n, s in zip(names, f.servers)}, str(f.key))
    store = tmp_path / "s.sqlite"
    p = subprocess.run(_fleet(f, "--inventory", inv, "--store", str(store), "-o", str(tmp_path / "out"), "--",
                              "env"), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    docs = [json.loads(x.read_text()) for x in (tmp_path / "out").iterdir()]
    assert sorted(d["fleet"]["host"] for d in docs) == sorted(names)
    assert _stored(store) == sorted(names)


@pytest.mark.machine
@pytest.mark.flow
@pytest.mark.parametrize("output", [True, False])
def test_ctrl_c_keeps_the_hosts_that_had_finished(fleet_of, tmp_path, output):
    """Two hosts one at a time: Ctrl-C while the second measures. The
    first host's run is in -o DIR (or the data directory) and in the
    store; the command says so, and ends with one line and 130."""
    f = fleet_of(2)
    store = tmp_path / "s.sqlite"
    data = tmp_path / "data"
    out = tmp_path / "out"
    proc = subprocess.Popen(_fleet(f, "h0", "h1", "--parallel", "1", "--store", str(store),
                                   *(["-o", str(out)] if output else []), "--", *LONGER),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=dict(os.environ, XDG_DATA_HOME=str(data)),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    from test_fleet import engines_running
    deadline = time.monotonic() + 120
    seen = False  # one look decides: a second may fall between two engine commands of the host
    while time.monotonic() < deadline and proc.poll() is None and not seen:
        seen = bool(engines_running(f.servers[1].dir))
        time.sleep(0.05)
    status, stdout, stderr = ctrl_c(proc)
    assert seen, "h1 was not seen measuring"
    assert status == 130 and stderr.strip().splitlines()[-1] == "ctxbench: interrupted", stderr[-2000:]
    assert "Traceback" not in stderr
    kept = list(out.iterdir()) if output else list((data / "ctxbench" / "runs").iterdir())
    assert [json.loads(k.read_text())["fleet"]["host"] for k in kept] == ["h0"], kept
    assert _stored(store) == ["h0"] and "recorded in the results store" in stdout
    assert all(s.left() == [] for s in f.servers)


@pytest.mark.machine
@pytest.mark.flow
def test_a_store_that_fails_costs_warnings_not_the_hosts_files(fleet_of, tmp_path):
    """A damaged SQLite store (pages after the header overwritten): every
    host's file is written, each host says its run was not recorded, no
    traceback. A PostgreSQL server already gone is found before any host
    is contacted: one line, exit 2, nothing measured."""
    from test_store_edges import damaged
    f = fleet_of(3)
    out = tmp_path / "out"
    p = subprocess.run(_fleet(f, "h0", "h1", "h2", "--store", damaged(tmp_path), "-o", str(out), "--", *RUN),
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stdout + p.stderr
    assert sorted(x.name for x in out.iterdir()) == ["h0.json", "h1.json", "h2.json"]
    warned = [line for line in p.stderr.splitlines() if "not recorded in the results store" in line]
    assert len(warned) == 3, p.stderr
    gone = tmp_path / "gone"
    p = subprocess.run(_fleet(f, "h0", "h1", "h2", "--store", _stopped_server_url(), "-o", str(gone), "--", *RUN),
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [p.stderr.strip()], p.stdout + p.stderr
    assert not gone.exists() or not list(gone.iterdir())


def _stopped_server_url() -> str:
    from postgres_server import Server
    srv = Server()
    url = srv.database("gone")
    srv.stop()
    return url


@pytest.mark.machine
@pytest.mark.flow
def test_hostile_names_of_real_hosts_reach_the_terminal_escaped(fleet_of, tmp_path):
    f = fleet_of(2)
    hostile = {"h\x1b]0;pwned\x07\x1bc": {"ansible_port": f.servers[0].port},
               "c\x1b(0x": {"ansible_port": f.servers[1].port}}
    p = subprocess.run(_fleet(f, "--inventory", _inventory(tmp_path, hostile, str(f.key)), "--no-store",
                              "-o", str(tmp_path / "out"), "--", "env"), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "\x1b" not in p.stdout + p.stderr and "\x07" not in p.stdout + p.stderr
    rows = [line for line in p.stdout.splitlines() if line.endswith("ok")]
    assert len(rows) == 2 and any(r.startswith("h\\x1b]0;pwned\\x07\\x1bc") for r in rows), p.stdout
    assert len(list((tmp_path / "out").iterdir())) == 2
