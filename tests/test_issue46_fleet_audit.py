"""Issue 46's fleet audit (tests/audits/issue46-fleet.md): inventories
that are no regular file, too large, a BOM, ranges of millions of hosts,
a YAML "billion laughs", !vault values and escape sequences in host names
are one line before ansible reads them; a key path that is a directory
or holds '%'; what is decidable before any host (unknown ids, --cross-cpu
on the measured CPU, a store server not there, -o ''); a connection cut
before the engine arrived leaves no directory on the host; a host's end
(written, recorded, said) is one step Ctrl-C cannot split; asyncio's
lost-write warnings are not printed.

The unmarked tests need no SSH server; the one marked machine runs
against a real OpenSSH server (tests/ssh_servers.py)."""
from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ctxbench_cmd

pytest.importorskip("asyncssh")
pytest.importorskip("ansible")


def _hosts(path):
    """The hosts the fleet reads from an inventory (command._chosen_hosts)."""
    from ctxbench.fleet import command
    return command._chosen_hosts(argparse.Namespace(hosts=[], inventory=str(path), limit=None))


def _refused(path, *words) -> str:
    from ctxbench.core.errors import UserError
    t = time.monotonic()
    with pytest.raises(UserError) as e:
        _hosts(path)
    assert time.monotonic() - t < 5, "not refused before ansible's expansion"
    line = str(e.value)
    assert "\n" not in line and all(w in line for w in words), line
    return line


# ---- A18, A19, A21, A23: what the file is, before it is opened --------------------------------

def test_an_inventory_that_is_no_regular_file_says_what_it_is(tmp_path):
    fifo = tmp_path / "fifo.ini"
    os.mkfifo(fifo)
    (tmp_path / "dir.d").mkdir()
    _refused(fifo, "a FIFO")
    _refused(tmp_path / "dir.d", "a directory")
    _refused("/dev/zero", "a device")
    _refused(tmp_path / "none.ini", "no such file")


def test_a_huge_inventory_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big.ini"
    with open(big, "wb") as f:
        f.truncate(4 << 30)  # sparse: 4 GiB of NULs costs no disk
    _refused(big, "larger than")


# ---- A25: a byte order mark --------------------------------------------------------------------

def test_an_ini_inventory_with_a_bom_is_said_so(tmp_path):
    p = tmp_path / "bom.ini"
    p.write_bytes("\ufeff[lab]\nh0 ansible_host=127.0.0.1\n".encode())
    _refused(p, "byte order mark")


# ---- D34, C02: host ranges and '[' in names ------------------------------------------------------

@pytest.mark.parametrize("pattern", ["h[0:9]", "h[00:10:3]x", "h[a:f]-[1:3]", "[1:2].example", "h[b:B]",
                                     "10.0.[1:3].[0:5]", "h[5:1]", "db-[x:z]-[01:02]:22"])
def test_hosts_are_counted_as_ansible_expands_them(pattern):
    from ansible.parsing.utils.addresses import parse_address
    from ansible.plugins.inventory import expand_hostname_range

    from ctxbench.fleet import inventory
    plain = parse_address(pattern, allow_ranges=True)[0]
    assert inventory._hosts_of(pattern) == len(expand_hostname_range(plain))


def test_a_range_of_millions_of_hosts_is_refused_without_expanding_it(tmp_path):
    p = tmp_path / "range.ini"
    p.write_text("[lab]\nh[0:9999999]\n")
    _refused(p, "more than 10000 hosts")
    y = tmp_path / "range.yml"
    y.write_text("all:\n  children:\n    lab:\n      hosts:\n        'h[0:99]':\n        'g[0:9999]':\n")
    _refused(y, "more than 10000 hosts")
    p.write_text("[lab]\nh[0:99]\n[lab:vars]\nx=[1:99999999]\n")  # a value is no host
    assert len(_hosts(p)) == 100


def test_an_escape_sequence_in_a_yaml_host_name_is_said_escaped(tmp_path):
    p = tmp_path / "esc.yml"
    p.write_text('all:\n  hosts:\n    "a\\e[31mx": {ansible_host: 127.0.0.1}\n')
    line = _refused(p, "'a\\x1b[31mx'", "not a host name")
    assert "\x1b" not in line and "unpack" not in line


# ---- D31, B59: YAML aliases and vault values ------------------------------------------------------

def _laughs(levels: int) -> str:
    lines = ["all:", "  vars:", "    a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"    a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines + ["  hosts:", "    h: {ansible_host: 127.0.0.1}"]) + "\n"


def test_a_yaml_billion_laughs_is_refused_at_once(tmp_path):
    p = tmp_path / "laughs.yml"
    p.write_text(_laughs(9))
    _refused(p, "YAML aliases expand")
    p.write_text(_laughs(2))  # a few aliases are an inventory like another
    assert [h.name for h in _hosts(p)] == ["h"]
    (tmp_path / "group_vars").mkdir()  # ansible reads these beside the inventory too
    laughs = [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    (tmp_path / "group_vars" / "all.yml").write_text("\n".join(["a0: &a0 [lol, lol]"] + laughs) + "\n")
    _refused(p, "group_vars", "YAML aliases expand")


VAULT = "!vault |\n        $ANSIBLE_VAULT;1.1;AES256\n        6162636465\n"


def test_a_vault_value_is_one_line_not_a_traceback(tmp_path):
    p = tmp_path / "vault.yml"
    p.write_text(f"all:\n  hosts:\n    h:\n      ansible_user: {VAULT}")
    _refused(p, "vault-encrypted")
    ini = tmp_path / "inv.ini"
    ini.write_text("[lab]\nh ansible_host=127.0.0.1\n")
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "lab.yml").write_text("ansible_user: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6162\n")
    _refused(ini, "vault-encrypted")


def test_whatever_ansible_raises_is_one_line(tmp_path, monkeypatch):
    from ctxbench.core.ssh import hosts

    def boom(path, limit=None):
        raise ReferenceError("A required VaultSecretsContext context is not active.")
    monkeypatch.setattr(hosts, "from_inventory", boom)
    p = tmp_path / "inv.ini"
    p.write_text("h\n")
    _refused(p, "vault-encrypted")
    monkeypatch.setattr(hosts, "from_inventory", lambda path, limit=None: (_ for _ in ()).throw(ValueError("x\ny")))
    _refused(p, "ansible could not read it: x")


# ---- B31, B32, B36: key paths ---------------------------------------------------------------------

def test_a_key_path_that_is_a_directory_is_said_so(tmp_path):
    from ctxbench.core.ssh.hosts import Host
    from ctxbench.fleet import child, job as jobs
    from ctxbench.fleet.remote import Settings, key_file_problem
    (tmp_path / "adir").mkdir()
    assert "is a directory" in key_file_problem(str(tmp_path / "adir"))
    assert "does not exist" in key_file_problem(str(tmp_path / "none"))
    assert key_file_problem(__file__) is None
    h = Host("odd", "127.0.0.1", 1, key=str(tmp_path / "adir"))
    o = asyncio.run(child.on_host(h, jobs.parse(["run", "--ids", "baseline/nop"]), Settings(tmp_path, 5, ()),
                                  lambda *a: None, tmp_path, "odd"))
    assert not o.ok and "is a directory" in o.reason, o.reason


def test_a_key_path_with_percent_signs_is_the_file_used_after_other_configs(tmp_path):
    """asyncssh expands the % of every file read so far at the end of each
    file: a doubled % in a config read before the user's became a token."""
    from asyncssh.config import SSHClientConfig

    from ctxbench.core.ssh.hosts import Host
    from ctxbench.fleet import child, job as jobs
    key = tmp_path / "k%h%d%%.key"
    key.write_text("")
    user = tmp_path / "user_config"
    user.write_text("Host 127.0.0.1\n  User root\n")
    a = child.argv(jobs.parse(["run", "--ids", "baseline/nop"]), Host("h", "127.0.0.1", key=str(key)),
                   tmp_path / "h.json", (str(user),), tmp_path, "h")
    configs = [a[i + 1] for i, x in enumerate(a) if x == "--ssh-config"]
    cfg = SSHClientConfig.load(None, configs, False, False, False, "root", (), "127.0.0.1", ())
    assert cfg.get("IdentityFile") == [str(key)]


# ---- E52, E57, G12, H06: decided before any host ----------------------------------------------

def _one_line(*args) -> str:
    p = subprocess.run([*ctxbench_cmd(), "fleet", *args], capture_output=True, text=True, timeout=60)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and lines[0].startswith("ctxbench: "), (p.returncode, p.stderr)
    assert "connecting" not in p.stderr and "host(s) failed" not in p.stderr
    return lines[0]


def test_an_unknown_id_is_refused_before_any_host():
    from ctxbench.core.ssh import engines
    from ctxbench.fleet import command
    if command.known_ids(engines.default_dir()) is None:
        pytest.skip("the engines cannot be listed here (make engine-x86_64; qemu-user for the others)")
    assert "unknown id 'no/such/id'" in _one_line("127.0.0.1:1", "--no-store", "--", "run", "--ids", "no/such/id")


def test_an_id_of_another_architecture_is_known():
    from ctxbench.core.ssh import engines
    from ctxbench.fleet import command
    build = engines.default_dir()
    known = command.known_ids(build)
    if known is None or not (build / "aarch64" / "ctxbench-engine").is_file():
        pytest.skip("no aarch64 engine listed here")
    assert {"timer/cntvct", "timer/rdtsc"} <= known


def test_cross_cpu_on_the_measured_cpu_is_refused_before_any_host(tmp_path):
    line = _one_line("127.0.0.1:1", "--no-store", "--", "run", "--cpu", "1", "--cross-cpu", "1", "--ids",
                     "kernel/thread/pipe/cross-cpu")
    assert "--cross-cpu 1 is the measured CPU" in line
    inv = tmp_path / "inv.ini"
    inv.write_text("[lab]\nh0 ansible_host=127.0.0.1 ansible_port=1 ctxbench_cpu=1\n")
    line = _one_line("--inventory", str(inv), "--no-store", "--", "run", "--cross-cpu", "1", "--ids",
                     "kernel/thread/pipe/cross-cpu")
    assert "h0" in line and "ctxbench_cpu 1" in line


def test_a_store_server_not_there_is_refused_before_any_host():
    line = _one_line("127.0.0.1:1", "--store", "postgresql://nobody@127.0.0.1:1/db", "--", "env")
    assert "store postgresql://nobody@127.0.0.1:1/db" in line


def test_an_empty_output_directory_is_refused():
    assert "-o ''" in _one_line("127.0.0.1:1", "--no-store", "-o", "", "--", "env")


# ---- S03, S09, S36: a host's end is one step ---------------------------------------------------

def test_ctrl_c_while_a_host_is_written_waits_for_its_record(monkeypatch):
    """Ctrl-C between writing a host's file and recording it: both happen,
    and "done" is said, then the interruption."""
    from ctxbench.core.ssh.hosts import Host
    from ctxbench.fleet import command, job as jobs, remote

    async def measured(h, *a, **k):
        return remote.Outcome(h, ok=True)
    monkeypatch.setattr(remote, "on_host", measured)
    steps = []

    def finished(o):
        steps.append("written")
        signal.raise_signal(signal.SIGINT)  # as Ctrl-C lands here
        steps.append("recorded")
        return o, None

    class Interrupted(BaseException):
        """As the command's KeyboardInterrupt (core/interrupts), raised at any
        instruction; not KeyboardInterrupt itself, which out of asyncio.run
        leaves CPython 3.11's AST recursion count off for this worker's later
        tests ("AST constructor recursion depth mismatch")."""

    def sigint(signum, frame):
        raise Interrupted
    old = signal.signal(signal.SIGINT, sigint)
    try:
        with pytest.raises(Interrupted):
            asyncio.run(command._all([Host("h0", "127.0.0.1")], jobs.parse(["env"]), None, 1,
                                     lambda h, what: steps.append(what), finished, None, {"h0": "h0"}))
    finally:
        signal.signal(signal.SIGINT, old)
    assert steps == ["written", "recorded", "done"], steps


# ---- R01: asyncio's lost writes ----------------------------------------------------------------

def test_asyncio_s_lost_write_warnings_are_not_printed(caplog):
    from ctxbench.fleet import command
    log = logging.getLogger("asyncio")
    with command.quiet_lost_writes():
        for _ in range(13):
            log.warning("socket.send() raised exception.")
        log.warning("something else")
    assert [r.getMessage() for r in caplog.records] == ["something else"]


# ---- S02, S05, S29-S33, S45: a connection cut before the engine arrived ----------------------

@pytest.mark.machine
@pytest.mark.flow
def test_a_connection_cut_while_the_script_starts_leaves_no_directory():
    """The connection closed after mktemp ran on the host but before the
    engine arrived (Ctrl-C or SIGTERM while connecting): the directory
    stayed for good. The script's traps remove it."""
    import asyncssh

    from ssh_servers import Fleet

    from ctxbench.core.ssh import session
    lab = Fleet(1)
    s = lab.servers[0]
    try:
        async def cut(delay: float) -> None:
            conn = await asyncssh.connect("127.0.0.1", port=s.port, username="root", client_keys=[str(lab.key)],
                                          known_hosts=str(lab.known_hosts), config=[])
            script = session.WATCHER.format(prefix=session.PREFIX, mark=session.MARK.decode(),
                                            needed=" ".join(session.NEEDED))  # the fast way's too (fleet/remote.py)
            await conn.create_process(script, encoding=None)
            await asyncio.sleep(delay)
            conn.close()
            await conn.wait_closed()
        for delay in (0, 0.01, 0.03):
            asyncio.run(cut(delay))
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and s.left():
            time.sleep(0.05)
        assert s.left() == []
    finally:
        lab.stop()


# ---- the fast way reads what --host reads, checked first (core/ssh/preflight.py) ----------------

@pytest.mark.parametrize("way", [["env"], ["run", "--quick", "--ids", "baseline/nop"]])
def test_a_key_the_ssh_config_names_that_is_a_device_costs_its_row_at_once(tmp_path, way):
    """IdentityFile /dev/zero in the ssh config: asyncssh would read it until
    memory runs out; both ways, the host's row says what it is, before any
    connection."""
    config = tmp_path / "ssh_config"
    config.write_text("Host *\n  IdentityFile /dev/zero\n")
    t = time.monotonic()
    p = subprocess.run([*ctxbench_cmd(), "fleet", "127.0.0.1:1", "--ssh-config", str(config), "--no-store",
                        "--", *way], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stdout + p.stderr
    assert "/dev/zero" in p.stdout + p.stderr and "a device" in p.stdout + p.stderr, p.stdout + p.stderr
    assert time.monotonic() - t < 30


def test_the_fast_ways_script_is_immune_to_the_start_ups_set_e_and_a_tmpdir_starting_with_a_dash():
    from ctxbench.core.ssh import engines, session
    from ctxbench.core.ssh.hosts import Host
    from ctxbench.fleet import remote
    s = remote.session_for(Host("h0", "127.0.0.1"), remote.Settings(Path("."), 10.0, ()))
    assert isinstance(s, session.Session)  # the fast way runs its engine through --host's session
    assert session.WATCHER.startswith(engines.SETS + "\n") and "mktemp -d -- " in session.WATCHER
    assert session.ENGINE.startswith(engines.SETS)
