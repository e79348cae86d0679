"""Issue 46: the fleet's and --host's edges from a hostile audit. YAML
inventories (ansible-core's tagged strings) reach the results file as
plain values; an executable inventory is never run; a port outside
1..65535, a host name with shell metacharacters, an ssh config that is
not a regular file, a bad option of the command after -- (abbreviated
or --help) are refused before any host is touched; a key path with
quotes, # or a newline never changes the ssh config a child reads; a
fleet killed with SIGKILL leaves no child running and nothing behind.

The unmarked tests need no SSH server; those marked machine run against
real OpenSSH servers (tests/ssh_servers.py)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, ctxbench_cmd, run_cli

pytest.importorskip("asyncssh")
pytest.importorskip("ansible")

DOCS = ROOT / "docs" / "fleet.md"
HOSTS = ["epyc-1", "rpi4", "xeon-1"]  # the docs' example inventory's hosts


def _docs_inventory(fmt: str) -> str:
    """The inventory docs/fleet.md shows in this format (```ini, ```yaml)."""
    found = re.findall(rf"```{fmt}\n(.*?)```", DOCS.read_text(), re.S)
    assert len(found) == 1, f"docs/fleet.md shows no single {fmt} inventory"
    return found[0]


def _one_line(p, *words, code=2) -> str:
    lines = p.stderr.strip().splitlines()
    assert p.returncode == code and len(lines) == 1 and lines[0].startswith("ctxbench: "), (p.returncode, p.stderr,
                                                                                           p.stdout[-500:])
    assert "Traceback" not in p.stderr and all(w in lines[0] for w in words), lines[0]
    assert "connecting" not in p.stderr
    return lines[0]


# ---- 1. inventories give plain Python values -----------------------------------------------

@pytest.mark.parametrize("fmt, ext", [("ini", "ini"), ("yaml", "yml")])
def test_the_docs_inventories_give_plain_values_that_a_document_takes(tmp_path, fmt, ext):
    """ansible-core 2.19's YAML parser gives tagged strings: the host's
    name reached msgspec in the fleet's record and writing failed with a
    TypeError. Every value read is a plain str/int/tuple, and a document
    with the fleet's record of the host is written."""
    import msgspec

    from ctxbench.core import writer
    from ctxbench.core.ssh import hosts
    from ctxbench.fleet import job as jobs
    inv = tmp_path / f"hosts.{ext}"
    inv.write_text(_docs_inventory(fmt))
    got = hosts.from_inventory(str(inv))
    assert sorted(h.name for h in got) == HOSTS
    by = {h.name: h for h in got}
    assert (by["epyc-1"].address, by["epyc-1"].cpu, by["epyc-1"].groups) == ("10.0.0.12", 7, ("lab",))
    assert (by["rpi4"].user, by["rpi4"].groups) == ("pi", ("boards",))
    assert all(h.key == os.path.expanduser("~/.ssh/bench") for h in got)
    for h in got:
        for v in (h.name, h.address, h.port, h.user, h.key, h.cpu, h.groups, *h.groups):
            assert type(v) in (str, int, tuple, type(None)), (h.name, type(v))
        fleet = {"host": h.name, "address": h.address, "arch": "x86_64", "groups": list(h.groups), "cpu": h.cpu,
                 "command": ["env"], "timings_s": {}, "started": None}
        msgspec.json.encode(fleet)
        raw = (ROOT / "tests" / "fixtures" / "noise-small.json").read_bytes()
        out = tmp_path / f"{h.name}.json"
        writer.write_results(str(out), jobs.document(jobs.Job("env", argv=("env",)), raw, fleet))
        assert json.loads(out.read_text())["fleet"]["host"] == h.name


# ---- 2. an executable inventory is never run -----------------------------------------------

def test_an_executable_inventory_is_not_run(tmp_path):
    marker = tmp_path / "RAN"
    inv = tmp_path / "inventory"
    inv.write_text(f"#!/bin/sh\ntouch {marker}\n"
                   "echo '{\"all\": {\"hosts\": [\"h\"]}, \"_meta\": {\"hostvars\": {\"h\": "
                   "{\"ansible_host\": \"127.0.0.1\", \"ansible_port\": 1}}}}'\n")
    inv.chmod(0o755)
    p = run_cli("fleet", "--inventory", str(inv), "--no-store", "--timeout", "10", "--", "env")
    assert not marker.exists(), "the inventory was run as a program"
    _one_line(p, "inventory")


# ---- 3. ports outside 1..65535 -------------------------------------------------------------

@pytest.mark.parametrize("port", ["0", "65536", "-1"])
def test_an_inventory_port_out_of_range_is_one_line_naming_the_host(tmp_path, port):
    """ansible_port=0 was taken as no port: the fleet connected to 22."""
    inv = tmp_path / "hosts.ini"
    inv.write_text(f"[lab]\nbox-7 ansible_host=127.0.0.1 ansible_port={port}\n")
    p = run_cli("fleet", "--inventory", str(inv), "--no-store", "--timeout", "10", "--", "env")
    _one_line(p, "box-7", "port", port)


# ---- 4. host names -----------------------------------------------------------------------

REFUSED = ["x;touch$IFS/tmp/PWN", "x$(id)", "x`id`", "x|y", "x&y", "x>y", "x<y", "x'y", 'x"y', "x\\y", "x(y)",
           "x{y}", "x*", "x?y", "-oProxyCommand=sh", "h\x1b[31m", "h\u202eevil", "u;id@host", "u$IFS@host",
           "%h", "x\x00y", "[::1;x]:22", "host:22;x"]
ALLOWED = [("web1", "web1", None, None), ("web-1.example.org", "web-1.example.org", None, None),
           ("root@10.0.0.7:2222", "10.0.0.7", 2222, "root"), ("[::1]:2222", "::1", 2222, None),
           ("ci.bot@[fe80::1%eth0]:22", "fe80::1%eth0", 22, "ci.bot"), ("lab_h0", "lab_h0", None, None),
           ("Deploy-Bot_2@h0", "h0", None, "Deploy-Bot_2")]


@pytest.mark.parametrize("spec", REFUSED)
def test_a_host_spec_with_shell_or_control_characters_is_refused(spec):
    from ctxbench.core.errors import UserError
    from ctxbench.core.ssh import hosts
    with pytest.raises(UserError) as e:
        hosts.from_spec(spec)
    said = str(e.value)
    assert "\n" not in said and "\x1b" not in said and "\u202e" not in said and "\x00" not in said, said


@pytest.mark.parametrize("spec, address, port, user", ALLOWED)
def test_what_host_names_addresses_and_users_need_is_allowed(spec, address, port, user):
    from ctxbench.core.ssh import hosts
    h = hosts.from_spec(spec)
    assert (h.address, h.port, h.user) == (address, port, user)


def _proxy_config(tmp_path) -> Path:
    """An ssh config whose ProxyCommand puts %h into sh -c (the audit's)."""
    cfg = tmp_path / "ssh_config"
    cfg.write_text('Host *\n  ProxyCommand sh -c "exec nc %h 22"\n  ConnectTimeout 5\n')
    return cfg


def test_a_host_with_a_shell_command_in_its_name_runs_nothing(tmp_path):
    """--host 'x;touch$IFS/FILE' under a ProxyCommand with %h in sh -c made
    FILE; the same through the fleet's HOST."""
    marker = tmp_path / "PWN"
    spec = f"x;touch$IFS{marker}"
    cfg = _proxy_config(tmp_path)
    p = subprocess.run([*ctxbench_cmd(), "ring", "--quick", "--host", spec, "--ssh-config", str(cfg), "--no-store",
                        "-o", str(tmp_path / "r.json")], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert not marker.exists(), "the host name ran a command"
    _one_line(p, "argument --host", "x;touch$IFS")
    q = subprocess.run([*ctxbench_cmd(), "fleet", spec, "--ssh-config", str(cfg), "--no-store", "--timeout", "10",
                        "--", "env"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert not marker.exists(), "the fleet's host name ran a command"
    _one_line(q, "x;touch$IFS")


def test_an_inventory_host_with_a_shell_command_in_its_address_runs_nothing(tmp_path):
    """Not contacted: its row says why, its name escaped; the other hosts
    go on."""
    marker = tmp_path / "PWN"
    inv = tmp_path / "hosts.json"
    inv.write_text(json.dumps({"all": {"hosts": {
        "evil\u202e": {"ansible_host": f"x;touch$IFS{marker}"},
        "bad-user": {"ansible_host": "127.0.0.1", "ansible_user": f"u;touch$IFS{marker}"},
        "fine": {"ansible_host": "127.0.0.1", "ansible_port": 1}}}}))
    cfg = _proxy_config(tmp_path)
    p = subprocess.run([*ctxbench_cmd(), "fleet", "--inventory", str(inv), "--ssh-config", str(cfg), "--no-store",
                        "--timeout", "10", "--", "env"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert not marker.exists(), "the inventory's address ran a command"
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert "\u202e" not in p.stdout + p.stderr
    rows = {line.split()[0]: line for line in p.stdout.splitlines() if line.split()[:1]}
    assert "not a host name" in rows["evil\\u202e"] and "ansible_host" in rows["evil\\u202e"], p.stdout
    assert "not a user name" in rows["bad-user"] and "ansible_user" in rows["bad-user"], p.stdout
    assert "FAILED" in rows["fine"] and "not a host" not in rows["fine"], p.stdout


# ---- 5. an ssh config that is not a regular file ---------------------------------------------

def test_an_ssh_config_that_is_a_fifo_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for argv in (["ring", "--quick", "--host", "h0", "--no-store", "-o", str(tmp_path / "r.json")],
                 ["fleet", "h0", "--no-store", "--", "env"]):
        p = subprocess.run([*ctxbench_cmd(), *argv[:1], "--ssh-config", str(fifo), *argv[1:]], capture_output=True,
                           text=True, timeout=60)
        _one_line(p, "--ssh-config", "not a regular file")


def test_config_files_never_opens_what_is_not_a_regular_file(tmp_path):
    from ctxbench.core.errors import UserError
    from ctxbench.core.ssh import hosts
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for bad in (str(fifo), str(tmp_path), "/dev/zero"):
        with pytest.raises(UserError, match="not a regular file"):
            hosts.config_files([bad])
    plain = tmp_path / "config"
    plain.write_text("")
    assert hosts.config_files([str(plain), "/dev/null"]) == (str(plain), "/dev/null")


# ---- 6. the command after -- checked first --------------------------------------------------

def test_the_command_s_own_options_are_checked_before_any_host():
    """--cpu -1 on the fast way reached the host (20 s waiting there)."""
    p = run_cli("fleet", "127.0.0.1:1", "--no-store", "--timeout", "10", "--", "run", "--quick", "--cpu", "-1")
    _one_line(p, "--cpu")


@pytest.mark.parametrize("flag", ["--help", "-h", "--he"])
def test_help_inside_a_fleet_command_is_one_line_and_no_help(flag):
    p = run_cli("fleet", "h0", "--no-store", "--", "run", "--ids", "baseline/nop", flag)
    assert p.stdout.strip() == "", p.stdout[:300]
    _one_line(p, "--help")
    q = run_cli("fleet", "h0", "--no-store", "--", "run", flag)
    assert q.stdout.strip() == "", q.stdout[:300]
    _one_line(q, "--help")


@pytest.mark.parametrize("given", [["--cp", "1"], ["--cp=1"], ["--cpu", "1"], ["--cpu=1"]])
def test_the_users_cpu_wins_over_the_inventory_s_abbreviated_or_not(tmp_path, given):
    """ctxbench_cpu=0 in the inventory and -- run ... --cp 1: the child
    was given --cpu 0 after --cp 1, and measured on CPU 0."""
    from ctxbench.cli import build_parser
    from ctxbench.core.ssh.hosts import Host
    from ctxbench.fleet import child, job as jobs
    parse = build_parser().parse_args
    j = jobs.parse(["run", "--ids", "baseline/nop", *given], check=parse)
    argv = child.argv(j, Host("h", "127.0.0.1", cpu=0), tmp_path / "h.json", (), tmp_path, "h")
    assert argv[1:3] == ["-m", "ctxbench"]
    assert parse(argv[3:]).cpu == 1, argv
    fast = jobs.parse(["run", "--quick", *given], check=parse)
    assert not fast.child and fast.engine_args(0)[-2:] == ["--cpu", "1"]


def test_an_inventory_cpu_is_passed_where_none_was_given(tmp_path):
    from ctxbench.cli import build_parser
    from ctxbench.core.ssh.hosts import Host
    from ctxbench.fleet import child, job as jobs
    parse = build_parser().parse_args
    j = jobs.parse(["run", "--ids", "baseline/nop"], check=parse)
    argv = child.argv(j, Host("h", "127.0.0.1", cpu=3), tmp_path / "h.json", (), tmp_path, "h")
    assert parse(argv[3:]).cpu == 3


# ---- 7. key paths in the child's ssh config ------------------------------------------------

KEY_NAMES = ['k"ey #1', "it's mine", "50%d", "a=b c", "none", "$HOME", "~x", "a\\b"]


@pytest.mark.parametrize("name", KEY_NAMES)
def test_a_key_path_reaches_the_child_s_ssh_config_as_it_is(tmp_path, name):
    """The config the child's asyncssh reads gives back the very path."""
    from asyncssh.config import SSHClientConfig

    from ctxbench.core.ssh.hosts import Host
    from ctxbench.fleet import child
    key = tmp_path / name
    key.write_text("")
    path = child.key_config(Host("h", "127.0.0.1", key=str(key)), tmp_path, "h")
    cfg = SSHClientConfig.load(None, [path], False, False, False, "root", (), "127.0.0.1", ())
    assert cfg.get("IdentityFile") == [str(key)], Path(path).read_text()
    assert cfg.get("IdentitiesOnly") is True and cfg.get("ProxyCommand") is None


def test_a_key_path_with_a_newline_adds_no_directive(tmp_path):
    """A newline in ansible_ssh_private_key_file added a ProxyCommand to
    the child's ssh config, which ran it."""
    from ssh_servers import keygen
    marker = tmp_path / "PWN"
    key = tmp_path / 'k"\n  ProxyCommand sh -c "touch PWN'
    key.write_text("")
    keygen(tmp_path / "k")  # the key the first line named: the connection goes on to the ProxyCommand
    inv = tmp_path / "hosts.json"
    inv.write_text(json.dumps({"all": {"hosts": {"h": {"ansible_host": "127.0.0.1", "ansible_port": 1,
                                                        "ansible_ssh_private_key_file": str(key)}}}}))
    p = subprocess.run([*ctxbench_cmd(), "fleet", "--inventory", str(inv), "--no-store", "--timeout", "30", "--",
                        "run", "--quick", "--ids", "baseline/nop"], capture_output=True, text=True, timeout=120,
                       cwd=tmp_path)
    assert not marker.exists(), "the key path added a directive that ran"
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    row = next(line for line in p.stdout.splitlines() if line.startswith("h "))
    assert "key file" in row and "\\x0a" in row, row


@pytest.mark.parametrize("name", ["k\nProxyCommand x", "k\rx", "${HOME}x"])
def test_a_key_path_an_ssh_config_cannot_hold_is_said(tmp_path, name):
    from ctxbench.fleet import child
    said = child.key_problem(str(tmp_path / name))
    assert said and "\n" not in said and "\r" not in said, said
    assert child.key_problem(str(tmp_path / 'k"ey #1')) is None


# ---- against real SSH servers ----------------------------------------------------------------

@pytest.fixture(scope="module")
def lab():
    from ssh_servers import Fleet
    f = Fleet(3)
    yield f
    f.stop()


def _lab_inventory(lab, fmt: str, tmp_path) -> Path:
    """The docs' inventory, its hosts moved onto the lab's servers."""
    text = _docs_inventory(fmt).replace("~/.ssh/bench", str(lab.key)).replace("ctxbench_cpu=7", "ctxbench_cpu=0") \
        .replace("ctxbench_cpu: 7", "ctxbench_cpu: 0").replace("ansible_user=pi", "").replace(", ansible_user: pi", "")
    for s, (old, new) in zip(lab.servers, [("10.0.0.11", "xeon"), ("10.0.0.12", "epyc"), ("10.0.1.4", "rpi")]):
        where = {"ini": f"127.0.0.1 ansible_port={s.port} ansible_user=root",
                 "yaml": f"127.0.0.1, ansible_port: {s.port}, ansible_user: root"}[fmt]
        text = text.replace(old, where)
    p = tmp_path / f"hosts.{ 'yml' if fmt == 'yaml' else 'ini'}"
    p.write_text(text)
    return p


def _lab_cmd(lab, *args) -> list[str]:
    return [*ctxbench_cmd(), "fleet", "--ssh-config", str(lab.ssh_config), *args]


@pytest.mark.machine
@pytest.mark.flow
@pytest.mark.parametrize("fmt", ["ini", "yaml"])
def test_the_docs_inventories_through_a_real_fleet(lab, tmp_path, fmt):
    """Both ways: env (one SSH command a host) and a command of its own
    (a process a host): every host's file written, no traceback."""
    from test_fleet import engines_running
    inv = _lab_inventory(lab, fmt, tmp_path)
    # the process-per-host way once, with the format that crashed (INI's values were always plain)
    ways = [["env"]] + ([["run", "--quick", "--ids", "baseline/nop", "--groups", "2", "--iterations", "2"]]
                        if fmt == "yaml" else [])
    for after in ways:
        out = tmp_path / after[0]
        p = subprocess.run(_lab_cmd(lab, "--inventory", str(inv), "--no-store", "-o", str(out), "--", *after),
                           capture_output=True, text=True, timeout=600)
        assert p.returncode == 0 and "Traceback" not in p.stderr, p.stdout + p.stderr
        docs = {x.name: json.loads(x.read_text()) for x in out.iterdir()}
        assert sorted(docs) == [f"{h}.json" for h in HOSTS], sorted(docs)
        assert docs["epyc-1.json"]["fleet"]["cpu"] == 0 and docs["epyc-1.json"]["fleet"]["groups"] == ["lab"]
    assert all(s.left() == [] for s in lab.servers) and not engines_running(lab.root)


@pytest.mark.machine
@pytest.mark.flow
def test_a_key_with_quotes_and_a_hash_in_its_path_is_used(lab, tmp_path):
    import shutil
    key = tmp_path / 'my "lab" key #1 it\'s 50%'
    shutil.copy(lab.key, key)
    key.chmod(0o600)
    inv = tmp_path / "hosts.json"
    inv.write_text(json.dumps({"all": {"hosts": {"h0": {
        "ansible_host": "127.0.0.1", "ansible_port": lab.servers[0].port, "ansible_user": "root",
        "ansible_ssh_private_key_file": str(key)}}}}))
    config = tmp_path / "ssh_config"  # the lab's known hosts, and no key but the inventory's
    config.write_text(f"Host 127.0.0.1\n  UserKnownHostsFile {lab.known_hosts}\n  IdentitiesOnly yes\n")
    p = subprocess.run([*ctxbench_cmd(), "fleet", "--ssh-config", str(config), "--inventory", str(inv),
                        "--no-store", "-o", str(tmp_path / "out"), "--", "run", "--quick", "--ids", "baseline/nop",
                        "--groups", "2", "--iterations", "2"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert [x.name for x in (tmp_path / "out").iterdir()] == ["h0.json"]


# ---- 8. a fleet killed with SIGKILL ---------------------------------------------------------

def _children_of_the_lab(lab) -> list[int]:
    """This lab's fleet children (ctxbench COMMAND --host ... --ssh-config
    <the lab's config>), wherever they were reparented."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"--host" in cmd and str(lab.ssh_config).encode() in cmd:
                out.append(int(d.name))
    return out


def _left_here(tmp: Path) -> list[str]:
    return sorted(x.name for x in tmp.iterdir() if x.name.startswith("ctxbench-fleet"))


@pytest.mark.machine
@pytest.mark.flow
def test_a_fleet_killed_outright_leaves_no_child_and_nothing_behind(lab, tmp_path):
    """The child way: SIGKILL to the fleet alone (not its group). Its
    children die with it, the hosts' watchers clean up there, and the
    directory it had here is removed by the next fleet that starts."""
    from test_fleet import engines_running
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    # measuring for tens of seconds: a child that outlived the fleet would still be measuring when looked for
    said = tmp_path / "stderr"
    with open(said, "wb") as err:
        proc = subprocess.Popen(_lab_cmd(lab, "h0", "h1", "--no-store", "-o", str(tmp_path / "out"), "--", "run",
                                         "--quick", "--ids", "kernel/thread/pipe/same-cpu", "--groups", "1000"),
                                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True, env=env)
    left: list[int] = []
    try:
        # both seen at once (an engine alone may be another test's, ending), and judged as seen: a child
        # runs several engine commands (list, env, the run), with none running between two of them
        deadline, seen = time.monotonic() + 120, (False, False)
        while time.monotonic() < deadline and proc.poll() is None and not all(seen):
            seen = (bool(engines_running(lab.root)), bool(_children_of_the_lab(lab)))
            time.sleep(0.05)
        assert proc.poll() is None, f"the fleet ended ({proc.returncode}) before it was seen: {said.read_text()}"
        assert seen[0], "no engine was seen measuring"
        assert seen[1], "no child was seen"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and _children_of_the_lab(lab):
            time.sleep(0.05)
        left = _children_of_the_lab(lab)
        assert left == [], "children outlived the fleet"
    finally:
        if proc.poll() is None:  # an assertion above failed: the fleet this test started goes too
            proc.kill()
            proc.wait()
        for pid in left:  # the ones this test's fleet started
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (engines_running(lab.root) or any(s.left() for s in lab.servers)):
        time.sleep(0.1)
    assert not engines_running(lab.root) and all(s.left() == [] for s in lab.servers)
    # the next fleet that starts removes what the killed one had here
    p = subprocess.run([*ctxbench_cmd(), "fleet", "127.0.0.1:1", "--no-store", "--", "env"], capture_output=True,
                       text=True, timeout=120, env=env)
    assert p.returncode == 1, p.stderr
    assert _left_here(tmp) == []


@pytest.mark.machine
@pytest.mark.flow
def test_a_fast_way_fleet_killed_outright_leaves_nothing_here(lab, tmp_path):
    from test_fleet import engines_running
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(_lab_cmd(lab, "h0", "--no-store", "--", "run", "--quick", "--cpu", "0", "--groups", "12"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                            env=dict(os.environ, TMPDIR=str(tmp)))
    try:
        deadline, seen = time.monotonic() + 120, False  # judged as seen: the host checks the engine before it runs it
        while time.monotonic() < deadline and not seen:
            seen = bool(engines_running(lab.servers[0].dir))
            time.sleep(0.05)
        assert seen, "no engine was seen measuring"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert _left_here(tmp) == []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (engines_running(lab.root) or lab.servers[0].left()):
        time.sleep(0.1)
    assert not engines_running(lab.root) and lab.servers[0].left() == []


def test_a_live_fleet_s_directory_is_not_removed_by_another(tmp_path, monkeypatch):
    """The clean-up at a fleet's start removes only the directories of
    fleets that are gone: one whose owner still runs stays."""
    from ctxbench.fleet import command
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    holder = subprocess.Popen([sys.executable, "-c", "import sys, tempfile; from pathlib import Path; "
                               "from ctxbench.fleet import command; f, lock = command.private_dir(); "
                               "print(f, flush=True); sys.stdin.read()"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, TMPDIR=str(tmp_path)))
    try:
        live = Path(holder.stdout.readline().strip())
        assert live.parent == tmp_path and live.is_dir()
        mine, lock = command.private_dir()
        assert live.is_dir() and mine.is_dir()
        command.release_dir(mine, lock)
        assert not mine.exists() and live.is_dir()
    finally:
        holder.stdin.close()
        holder.wait(30)
    mine, lock = command.private_dir()  # the holder ended without removing its directory: gone now
    assert not live.exists()
    command.release_dir(mine, lock)
    assert _left_here(tmp_path) == []
