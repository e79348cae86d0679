"""--host against what issue 46's audit (tests/audits/issue46-host-wheel.md)
found it failed on: host names IDNA cannot encode, ssh configs, keys and
known_hosts files asyncssh cannot read (or would read for ever), a
ProxyCommand left running, and a host whose account's shell sets -e or -x,
prints bytes that are no UTF-8, has a TMPDIR that starts with '-' or is
full, a `uname -m` that says nothing or two lines, a key that changed, one
session per connection, a passphrase-protected key and no agent. One real
OpenSSH server on loopback (tests/ssh_servers.py) for the module: each
case writes what its account's ~/.bashrc sources."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ctxbench_cmd
from ctxbench.core.errors import UserError
from ssh_servers import Fleet, keygen
from test_issue46_host import _procs
from test_fleet import engines_running

pytestmark = [pytest.mark.machine, pytest.mark.flow]


def _refused(*args, env=None) -> str:
    """A ctxbench command refused in one line, exit 2."""
    p = subprocess.run([*ctxbench_cmd(), *args], capture_output=True, text=True, timeout=60, env=env)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and lines[0].startswith("ctxbench: "), (p.returncode, p.stderr)
    assert "Error" not in lines[0], lines[0]  # no Python exception's name
    return lines[0]


# ---- names and files, checked before connecting -----------------------------

def test_host_names_idna_cannot_encode_are_not_host_names():  # A040, A044, A045
    from ctxbench.core.ssh import hosts
    for name in ("d" * 64 + ".invalid", "a..b", "\xdf" * 40):
        with pytest.raises(UserError, match="empty or longer than 63 characters"):
            hosts.from_spec(name)
    assert hosts.from_spec("büro.example").address == "büro.example"  # IDNA encodes it
    line = _refused("ring", "--quick", "--no-store", "--host", "a..b")
    assert "not a host" in line and "UnicodeError" not in line, line


def _check(tmp_path: Path, config: str, **env):
    from ctxbench.core.ssh import hosts, preflight
    (tmp_path / "config").write_text(config) if isinstance(config, str) else (tmp_path / "config").write_bytes(config)
    return preflight.check(hosts.from_spec("h0"), (str(tmp_path / "config"),))


def test_ssh_configs_asyncssh_cannot_read_name_the_file(tmp_path):  # A132, A135, A137
    cfg = str(tmp_path / "config")
    for text, said in ((b"Host h0\n  HostName \xff\xfe\xe9\n", f"ssh config '{cfg}': not UTF-8 text (byte 0xff"),
                       (f"Include {cfg}\nHost h0\n", f"ssh config '{cfg}': it Includes itself"),
                       ("Host h0\n  Port 70000\n", f"{cfg} line 2: Port 70000 is out of range (1 to 65535)")):
        with pytest.raises(UserError) as e:
            _check(tmp_path, text)
        assert said in str(e.value) and e.value.code == 2, str(e.value)


def test_key_and_known_hosts_files_asyncssh_would_read_for_ever_are_refused(tmp_path):  # A116, A117, A119, A120
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big"
    big.write_bytes(b"\0" * ((1 << 20) + 1))
    for line, said in ((f"IdentityFile {fifo}", f"IdentityFile '{fifo}': not a regular file (a FIFO)"),
                       ("IdentityFile /dev/zero", "IdentityFile '/dev/zero': not a regular file (a device)"),
                       (f"IdentityFile {tmp_path}", f"IdentityFile '{tmp_path}': not a regular file (a directory)"),
                       (f"IdentityFile {big}", f"IdentityFile '{big}': larger than any key"),
                       (f"UserKnownHostsFile {fifo}", f"UserKnownHostsFile '{fifo}': not a regular file (a FIFO)")):
        with pytest.raises(UserError) as e:
            _check(tmp_path, f"Host h0\n  {line}\n")
        assert said in str(e.value) and e.value.code == 2, str(e.value)
    # the command: one line before it connects, not a wait
    (tmp_path / "config").write_text(f"Host h0\n  HostName 127.0.0.1\n  IdentityFile {fifo}\n")
    t0 = time.monotonic()
    line = _refused("ring", "--quick", "--no-store", "--host", "h0", "--ssh-config", str(tmp_path / "config"))
    assert "a FIFO" in line and time.monotonic() - t0 < 30, line


def test_a_key_file_that_is_no_key_is_named(tmp_path):  # A118
    (tmp_path / "key").write_bytes(b"-----BEGIN OPENSSH PRIVATE KEY-----\n\x1b[31mnot a key\n")
    with pytest.raises(UserError) as e:
        _check(tmp_path, f"Host h0\n  IdentityFile {tmp_path / 'key'}\n")
    assert f"IdentityFile '{tmp_path / 'key'}': not a key ctxbench can read" in str(e.value), str(e.value)


def test_a_timed_out_read_in_the_loops_executor_does_not_hold_the_process():  # A116b
    """asyncssh reads files in the loop's executor: one that never returns
    (a FIFO nobody writes) must not keep the process from exiting once the
    command has given up on it."""
    code = ("import asyncio, threading, time\n"
            "from ctxbench.core.ssh.loop import Loop\n"
            "loop = Loop()\n"
            "threading.Thread(target=loop.run_forever, daemon=True).start()\n"
            "loop.call_soon_threadsafe(loop.run_in_executor, None, time.sleep, 60)\n"
            "time.sleep(0.2)\n")
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-c", code], timeout=30, check=True)
    assert time.monotonic() - t0 < 10


# ---- a ProxyCommand ends with the command -------------------------------------

@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_a_proxy_command_is_ended_with_the_command(tmp_path, how):  # A143, A144
    marker = f"sleep 986.{os.getpid()}{len(how)}"
    (tmp_path / "config").write_text(f"Host px\n  HostName 127.0.0.1\n  ProxyCommand {marker}\n")
    proc = subprocess.Popen([*ctxbench_cmd(), "ring", "--quick", "--no-store", "--host", "px", "--ssh-config",
                             str(tmp_path / "config")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while not _procs(marker) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _procs(marker), "the ProxyCommand never started"
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)  # the terminal's Ctrl-C: the command's process group
        else:
            proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and "interrupted" in err, (proc.returncode, err)
        deadline = time.monotonic() + 3
        while _procs(marker) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _procs(marker) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in _procs(marker):  # ours: the marker is this test's
            os.kill(pid, signal.SIGKILL)


# ---- a hostile host ------------------------------------------------------------

@pytest.fixture(scope="module")
def host():
    """One server; its account's ~/.bashrc sources $HOME/extra, which each
    case writes (and removes)."""
    f = Fleet(1)
    s = f.servers[0]
    home = s.dir / "home"
    home.mkdir()
    (home / ".bashrc").write_text('[ -f "$HOME/extra" ] && . "$HOME/extra"\n')
    s.config.write_text(s.config.read_text().replace("SetEnv TMPDIR=", f"SetEnv HOME={home} TMPDIR="))
    s.stop()
    s.start()
    f.home = home
    try:
        yield f
    finally:
        f.stop()


@pytest.fixture
def rc(host):
    """Writes what the account's start-up runs for this case."""
    def write(text: str | bytes) -> None:
        (host.home / "extra").write_bytes(text.encode() if isinstance(text, str) else text)
    yield write
    (host.home / "extra").unlink(missing_ok=True)


def _session(f: Fleet, config: Path | None = None):
    from ctxbench.core.ssh import engines, hosts, session
    return session.Session(hosts.from_spec("h0"), engines.default_dir(), (str(config or f.ssh_config),))


def _left(f: Fleet) -> list[str]:
    return [x for s in f.servers for x in s.left()] + engines_running(f.root)


def _open_fails(f: Fleet, config: Path | None = None) -> str:
    s = _session(f, config)
    try:
        with pytest.raises(UserError) as e:
            s.open()
    finally:
        s.close()
    return str(e.value)


def test_a_start_up_that_prints_bytes_that_are_no_utf8_leaves_no_false_warning(host, rc):  # A055, A055b
    rc(b"printf '\\377\\376\\n'; printf '\\377\\n' >&2\n")
    s = _session(host)
    try:
        s.open()
        assert host.servers[0].left()  # its directory, which the check finds there, read right
        assert s._call(s._left()) == f"{s.workdir} could not be removed"
    finally:
        left = s.close()
    assert left == "" and _left(host) == []


def test_errexit_and_xtrace_in_the_start_up_change_nothing(host, rc, capsys):  # A066, A068
    rc("set -ex\n")
    s = _session(host)
    try:
        s.open()
        done = s.run(["--version"], 30)
        failed = s.run(["no-such-command"], 30)  # a status that is not 0: the watcher's list still empties
    finally:
        left = s.close()
    assert done.status == 0 and done.stderr == "" and done.stdout.strip(), done  # xtrace is no word of the engine's
    assert failed.status != 0 and "+ " not in failed.stderr, failed
    said = capsys.readouterr().err.strip().splitlines()  # the start-up's chatter, said once, as the start-up's
    assert len(said) == 1 and "set -x" in said[0] and "set +" not in said[0], said
    assert left == "" and _left(host) == []


def test_a_tmpdir_that_starts_with_a_dash(host, rc):  # A085
    (host.home / "-rf").mkdir()
    rc('TMPDIR=-rf; export TMPDIR; cd "$HOME"\n')  # sshd starts in the account's home (/root)
    s = _session(host)
    try:
        s.open()
        assert s.workdir.startswith(f"{host.home}/-rf/ctxbench-host."), s.workdir
    finally:
        left = s.close()
    assert left == "" and list((host.home / "-rf").iterdir()) == []
    rc("TMPDIR=-none; export TMPDIR\n")  # not there: the line says where it tried
    line = _open_fails(host)
    assert "could not make a temporary directory there (in its TMPDIR" in line and "mktemp --help" not in line, line


def test_a_full_tmpdir_says_the_disk_is_full(host, rc, tmp_path):  # A092
    full = tmp_path / "full"
    full.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(full)], check=True)  # the engine is MBs
    try:
        rc(f"TMPDIR={full}; export TMPDIR\n")
        line = _open_fails(host)
        assert "the disk of its TMPDIR is full" in line and "No space left on device" in line, line
        assert list(full.iterdir()) == []
    finally:
        subprocess.run(["umount", "-l", str(full)], check=False)


def test_a_uname_that_prints_nothing_or_two_lines_is_said(host, rc, tmp_path):  # A103, A104
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for said, expect in (("", "its `uname -m` printed nothing"),
                         ("printf 'x86_64\\naarch64\\n'", "its `uname -m` printed not one word on one line")):
        (bin_ / "uname").write_text(f"#!/bin/sh\n[ \"$1\" = -m ] && {{ {said or ':'}; exit 0; }}\n"
                                    "exec /bin/uname \"$@\"\n")
        (bin_ / "uname").chmod(0o755)
        rc(f"PATH={bin_}:$PATH\n")
        line = _open_fails(host)
        assert expect in line and "temporary directory" not in line, line
    deadline = time.monotonic() + 5  # its watcher removes what it made once its input is closed
    while _left(host) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _left(host) == []


def test_a_host_key_that_changed_is_not_told_to_be_added(host, tmp_path):  # A112
    other = tmp_path / "other_host_key"
    keygen(other)
    known = tmp_path / "known_hosts"
    known.write_text(f"[127.0.0.1]:{host.servers[0].port} {Path(str(other) + '.pub').read_text()}")
    config = tmp_path / "config"
    config.write_text(host.ssh_config.read_text().replace(str(host.known_hosts), str(known)))
    line = _open_fails(host, config)
    assert "CHANGED" in line and "man-in-the-middle" in line and "add it to known_hosts" not in line, line


def test_a_passphrase_protected_key_without_an_agent_is_said(host, tmp_path, monkeypatch):  # A177
    key = tmp_path / "locked"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "secret", "-f", str(key)], check=True)
    config = tmp_path / "config"
    config.write_text(host.ssh_config.read_text().replace(str(host.key), str(key)))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    line = _open_fails(host, config)
    assert "passphrase-protected" in line and "agent" in line, line


def test_one_session_per_connection_is_said_and_nothing_is_falsely_left(host, capsys):  # A155
    s = host.servers[0]
    s.config.write_text(s.config.read_text() + "MaxSessions 1\n")
    s.stop()
    s.start()
    try:
        session = _session(host)
        try:
            with pytest.raises(UserError) as e:
                session.run(["--version"], 30)
        finally:
            left = session.close()
        assert "MaxSessions" in str(e.value) and "ChannelOpenError" not in str(e.value), str(e.value)
        assert left == "" and _left(host) == []
    finally:
        s.config.write_text(s.config.read_text().replace("MaxSessions 1\n", ""))
        s.stop()
        s.start()
        host.known_hosts.write_text(f"[127.0.0.1]:{s.port} {s.host_pub}\n")
