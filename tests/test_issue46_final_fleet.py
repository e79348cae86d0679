"""Issue 46's final fleet audit (tests/audits/issue46-final-fleet.md):
YAML and JSON inventories are checked whatever their name (N01, N02, N06,
N33), merge keys and deep nesting counted (N03, N04, N29), a range past
any size refused (N19); the fast way skips a host's start-up output and
takes a TMPDIR with a space (U01-U21); the host's end is one step in
every thread (V10, V12); --engines' ids are listed only from an ELF
engine, in a process group killed with it (Q03, V27, V28); the child way
offers the inventory's key alone (U17).

The unmarked tests need no SSH server; those marked machine run against
real OpenSSH servers (tests/ssh_servers.py)."""
from __future__ import annotations

import subprocess
import time

import pytest

from conftest import ctxbench_cmd

pytest.importorskip("asyncssh")
pytest.importorskip("ansible")

BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcdefgh", "bcdefghi")) + \
    "all:\n  hosts:\n    h0:\n  vars:\n    v: *i\n"
RANGE = "all:\n  hosts:\n    h[0:9999999]:\n"


def _refused(path, *words) -> str:
    from ctxbench.core.errors import UserError
    from ctxbench.fleet import inventory
    t = time.monotonic()
    with pytest.raises(UserError) as e:
        inventory.read(str(path))
    assert time.monotonic() - t < 5
    assert all(w in str(e.value) for w in words), str(e.value)
    return str(e.value)


@pytest.mark.parametrize("name", ["hosts", "inventory.ini", "inv.txt"])
def test_yaml_is_checked_whatever_the_files_name(tmp_path, name):
    """N01, N02, N33: ansible's yaml plugin reads a file with no extension
    (or any, by ANSIBLE_YAML_FILENAME_EXT): its checks ran only on .yml."""
    f = tmp_path / name
    f.write_text(BOMB)
    _refused(f, "aliases")
    f.write_text(RANGE)
    _refused(f, "more than 10000 hosts")


def test_json_pyyaml_cannot_read_is_counted(tmp_path):
    """N06: a key longer than PyYAML's 1024 characters: JSON to ansible."""
    f = tmp_path / "inv.json"
    f.write_text('{"%s": {"hosts": {"h1": null}}, "all": {"hosts": {"h[0:9999999]": null}}}' % ("g" * 1100))
    _refused(f, "more than 10000 hosts")


def test_merge_keys_are_followed(tmp_path):
    """N03, N04: `<<: *anchor` brings hosts (or a group's body) in."""
    f = tmp_path / "m.yml"
    f.write_text('all:\n  vars:\n    m: &m {"h[0:9999999]": {}}\n  hosts:\n    <<: *m\n')
    _refused(f, "more than 10000 hosts")
    f.write_text('all:\n  vars:\n    g: &g {hosts: {"h[0:9999999]": {}}}\n  children:\n    lab: {<<: *g}\n')
    _refused(f, "more than 10000 hosts")
    f.write_text("all:\n  vars:\n    base: &b {ansible_host: 127.0.0.1}\n  hosts:\n    h0: {<<: *b, ansible_port: 22}\n")
    from ctxbench.fleet import inventory
    assert [h.name for h in inventory.read(str(f))] == ["h0"]


def test_nesting_past_the_bound_is_refused_not_skipped(tmp_path):
    """N29: the count stopped at depth 100; ansible goes on."""
    text, pad = "all:\n", "  "
    for i in range(150):
        text += f"{pad}children:\n{pad}  g{i}:\n"
        pad += "    "
    text += f"{pad}hosts:\n{pad}  h[0:9]:\n"
    f = tmp_path / "deep.yml"
    f.write_text(text)
    _refused(f, "nested more than 100 deep")


def test_a_range_past_any_size_is_refused_in_one_line(tmp_path):
    """N19: len(range(...)) past sys.maxsize raised OverflowError."""
    f = tmp_path / "inv.ini"
    f.write_text("[lab]\nh[0:99999999999999999999]\n")
    _refused(f, "more than 10000 hosts")


def test_ini_inventories_still_read(tmp_path):
    from ctxbench.fleet import inventory
    f = tmp_path / "hosts"
    f.write_text("[lab]\nh1 ansible_host=127.0.0.1\nh[2:3]\n")
    assert sorted(h.name for h in inventory.read(str(f))) == ["h1", "h2", "h3"]


@pytest.mark.machine
@pytest.mark.flow
def test_the_fast_way_skips_a_start_ups_output_and_takes_a_tmpdir_with_a_space(tmp_path):
    """U01, U04, U10, U20, U21: a banner without a newline, 300 KB on
    stderr and a TMPDIR with a space: the host waited out --timeout."""
    from ssh_servers import Fleet
    lab = Fleet(1, chatter=True)
    s = lab.servers[0]
    try:
        spaced = s.tmp / "a b"
        (s.dir / "rc").write_text(f"mkdir -p '{spaced}'; export TMPDIR='{spaced}'\n"
                                  "printf 'Welcome, no newline'\nhead -c 300000 /dev/zero | tr '\\0' x >&2\n")
        t = time.monotonic()
        p = subprocess.run([*ctxbench_cmd(), "fleet", "h0", "--ssh-config", str(lab.ssh_config), "--no-store",
                            "--timeout", "60", "--", "env"], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and "Traceback" not in p.stderr, p.stdout + p.stderr
        assert p.stderr.count("start-up prints") == 1 and "Welcome, no newline" in p.stderr, p.stderr
        assert time.monotonic() - t < 30
        assert list(spaced.iterdir()) == []
    finally:
        lab.stop()


@pytest.mark.parametrize("sig", ["SIGINT", "SIGHUP"])
def test_a_hosts_end_is_one_step_whichever_thread_the_signal_lands_on(sig):
    """V10, V12: the step blocked the signals in the main thread only; the
    kernel gave them to an executor thread and KeyboardInterrupt fired
    inside it. Now it is answered after the step, once."""
    import signal
    import threading

    from ctxbench.fleet import command

    def interrupt(*_):
        raise KeyboardInterrupt

    number = getattr(signal, sig)
    before = signal.signal(number, interrupt)
    parked = threading.Event()
    other = threading.Thread(target=parked.wait, daemon=True)  # a thread that blocks no signal
    other.start()
    inside = after = False
    try:
        try:
            with command._one_step():
                signal.pthread_kill(other.ident, number)
                for _ in range(30):  # time for the other thread to take it; bytecodes where the handler runs
                    time.sleep(0.01)
                inside = True
        except KeyboardInterrupt:
            after = True
    finally:
        parked.set()
        other.join()
        signal.signal(number, before)
    assert inside and after


def test_known_ids_runs_no_file_that_is_no_engine(tmp_path):
    """Q03: a script at DIR/<arch>/ctxbench-engine was run here before the
    ELF check the hosts' copy makes."""
    import os

    from ctxbench.core.ssh import engines
    from ctxbench.fleet import command
    ran = tmp_path / "ran"
    script = tmp_path / engines.here() / "ctxbench-engine"
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\ntouch {ran}\necho '[]'\n")
    os.chmod(script, 0o755)
    assert command.known_ids(tmp_path) is None and not ran.exists()


def test_an_engine_listing_its_ids_is_killed_with_what_it_started(tmp_path, monkeypatch):
    """Q03, V27, V28: on a timeout (or Ctrl-C, SIGTERM) subprocess.run
    killed the engine alone; its children lived on."""
    import os
    import subprocess

    from ctxbench.fleet import command
    monkeypatch.setattr(command, "LIST_S", 0.5)
    pid = tmp_path / "pid"
    with pytest.raises(subprocess.TimeoutExpired):
        command._listed(["sh", "-c", f"sleep 300 & echo $! > {pid}; sleep 300", "sh"])
    child = int(pid.read_text())
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and os.path.exists(f"/proc/{child}") and \
            "Z" not in open(f"/proc/{child}/stat").read().split(")")[1][:3]:
        time.sleep(0.02)
    alive = os.path.exists(f"/proc/{child}") and "Z" not in open(f"/proc/{child}/stat").read().split(")")[1][:3]
    if alive:
        os.kill(child, 9)
    assert not alive


def test_the_child_way_offers_the_inventorys_key_first(tmp_path):
    """U17: the inventory key's config was read last, so the user's own
    IdentityFile for the host was offered first; a '%' in the key's path
    still reads as itself (B36)."""
    from asyncssh.config import SSHClientConfig

    from ctxbench.core.ssh.hosts import Host
    from ctxbench.fleet import child, job as jobs
    key = tmp_path / "k%h%d%%.key"
    key.write_text("")
    users = []
    for i in range(2):
        users.append(tmp_path / f"user{i}")
        users[-1].write_text(f"Host 127.0.0.1\n  IdentityFile /mine{i}\n  IdentitiesOnly no\n")
    a = child.argv(jobs.parse(["run", "--ids", "baseline/nop"]), Host("h", "127.0.0.1", key=str(key)),
                   tmp_path / "h.json", tuple(map(str, users)), tmp_path, "h")
    configs = [a[i + 1] for i, x in enumerate(a) if x == "--ssh-config"]
    cfg = SSHClientConfig.load(None, configs, False, False, False, "root", (), "127.0.0.1", ())
    assert cfg.get("IdentityFile")[0] == str(key) and cfg.get("IdentitiesOnly") is True


def test_an_engine_that_does_not_answer_on_a_host_is_ended_with_what_it_started(tmp_path, monkeypatch):
    """The final audit's re-check: an --engines file that is an ELF but hangs
    ran `--version` on each host with no bound, and it and its children
    stayed there. The host's lines that take the engine (run here by sh, as
    a host runs them) end it within the bound, its group with it, and
    remove the directory."""
    import os
    import shlex
    import shutil

    from ctxbench.core.ssh import engines
    monkeypatch.setattr(engines, "VERSION_S", 1)
    mark = f"{os.getpid() % 1000}.{time.time_ns() % 10**6}"
    fake = tmp_path / "fake-engine"
    fake.write_text(f"#!/bin/sh\nsleep 31{mark} &\nexec sleep 32{mark}\n")
    d = tmp_path / "d"
    script = f"d={shlex.quote(str(d))}; mkdir \"$d\"\n" + \
        engines.take_engine("T").replace("{{", "{").replace("}}", "}")
    p = subprocess.run(["sh", "-c", script], input=engines.payload(fake, "gzip" if shutil.which("gzip") else "plain"),
                       capture_output=True, timeout=30)
    assert p.returncode == 99 and b"did not answer --version in 1 s" in p.stderr, p.stderr
    assert not d.exists()
    time.sleep(0.2)
    from test_issue46_host import _procs
    assert _procs(mark) == [], "what the engine started outlived it"
