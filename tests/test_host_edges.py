"""--host at its edges (issue 35), against real OpenSSH servers on
loopback (tests/ssh_servers.py): a bad or unreachable host is one line;
Ctrl-C here, or the server killed mid-run, is one line and leaves nothing
running there; an aarch64 host under qemu-user gets the aarch64 engine.
The commands themselves: test_host.py."""
from __future__ import annotations

import json
import signal
import subprocess
import time

import pytest

from conftest import ENGINE, ctrl_c, ctxbench_cmd
from ssh_servers import Fleet
from test_fleet import _kill_sshd, engines_running
from test_host import NAME, left, on_host

pytestmark = [pytest.mark.machine, pytest.mark.flow]
pytest.importorskip("asyncssh")


@pytest.fixture(scope="module")
def host():
    f = Fleet(1, hostnames={0: NAME})
    yield f
    f.stop()


def test_bad_and_unreachable_hosts_are_one_line(host, tmp_path):
    bad = subprocess.run([*ctxbench_cmd(), "ring", "--quick", "--host", "a b@c:99999"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert "argument --host" in bad.stderr
    for args, says in ((["--host", "a", "--host", "b"], "given twice"),
                       (["--ssh-config", str(host.ssh_config)], "--ssh-config is for --host")):
        p = subprocess.run([*ctxbench_cmd(), "ring", "--quick", *args], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and p.stderr.strip().splitlines() == [p.stderr.strip()] and says in p.stderr, \
            p.stderr
    config = tmp_path / "config"
    config.write_text(f"Host gone\n  HostName 127.0.0.1\n  Port {_closed_port()}\n")
    gone = subprocess.run([*ctxbench_cmd(), "ring", "--quick", "--host", "gone", "--ssh-config", str(config),
                           "--no-store"], capture_output=True, text=True, timeout=60)
    assert gone.returncode == 1, gone.stderr
    assert gone.stderr.strip().splitlines()[-1].startswith("ctxbench: --host gone: ") and \
        "connection refused" in gone.stderr, gone.stderr


def _closed_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the block ends: nothing listens there


def _ctrl_c_default() -> None:
    """SIGINT as a terminal's command has it (an xdist worker ignores it,
    and a child inherits that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _until_measuring(f: Fleet, proc: subprocess.Popen) -> None:
    """Until an engine is seen running there (one look: a command runs
    several engine commands, and a second look may fall between two)."""
    deadline = time.monotonic() + 60
    seen = []
    while not seen and proc.poll() is None and time.monotonic() < deadline:
        seen = engines_running(f.root)
        time.sleep(0.02)
    assert seen, "the engine was never seen running on the host"


def test_ctrl_c_here_leaves_nothing_there(host, tmp_path):
    proc = subprocess.Popen(on_host(host, "tasks", "--quick", "-o", str(tmp_path / "t.json")),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_ctrl_c_default)
    _until_measuring(host, proc)
    status, _, err = ctrl_c(proc)
    assert status == 130 and err.strip().splitlines()[-1] == "ctxbench: interrupted", err
    time.sleep(0.2)
    assert left(host) == []


def test_a_server_killed_mid_run_is_one_line_and_leaves_nothing(tmp_path):
    f = Fleet(1)
    try:
        proc = subprocess.Popen(on_host(f, "tasks", "--quick", "-o", str(tmp_path / "t.json")),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            _until_measuring(f, proc)
            assert _kill_sshd(f.servers[0])
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
        assert proc.returncode == 1, err
        last = err.strip().splitlines()[-1]
        # while measuring, or while starting the next engine command of the run
        assert last.startswith("ctxbench: --host h0: the connection was lost") and " while " in last, err
        deadline = time.monotonic() + 10  # the host's watcher sees its input close, then cleans up
        while left(f) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert left(f) == []
    finally:
        f.stop()


def test_an_aarch64_host_gets_the_aarch64_engine(tmp_path):
    if not (ENGINE.parent.parent / "aarch64" / "ctxbench-engine").is_file():
        pytest.skip("no aarch64 engine built (make engine-aarch64)")
    f = Fleet(1, arch={0: "aarch64"})
    try:
        # one command: the engine copied is the host's either way (a sweep here took 13 s of make test under qemu)
        for command, args in (("ring", ["--quick", "--groups", "2"]),):
            out = tmp_path / f"{command}.json"
            p = subprocess.run(on_host(f, command, *args, "-o", str(out)), capture_output=True, text=True,
                               timeout=600)
            assert p.returncode == 0, p.stderr
            doc = json.loads(out.read_text())
            assert doc["environment"]["kernel"]["machine"] == "aarch64", doc["environment"]["kernel"]
            assert doc["tool"]["build"]["arch"] == "aarch64", doc["tool"]
        assert left(f) == []
    finally:
        f.stop()


def test_a_host_with_no_engine_built_for_it_is_one_line():
    f = Fleet(1, arch={0: "riscv64"})  # `uname -m` says riscv64 there: ctxbench builds no engine for it
    try:
        p = subprocess.run(on_host(f, "ring", "--quick"), capture_output=True, text=True, timeout=120)
        assert p.returncode == 1, p.stderr
        assert p.stderr.strip().splitlines() == ["ctxbench: --host h0: no engine for architecture 'riscv64' "
                                                 "(ctxbench builds x86_64, aarch64, armv7)"], p.stderr
        time.sleep(0.2)
        assert left(f) == []
    finally:
        f.stop()


def test_a_noexec_tmpdir_on_the_host_is_one_line_and_leaves_nothing():
    f = Fleet(1)
    try:
        s = f.servers[0]
        subprocess.run(["mount", "-t", "tmpfs", "-o", "noexec,size=64m", "tmpfs", str(s.tmp)], check=True)
        s.mounted = True  # unmounted by stop()
        p = subprocess.run(on_host(f, "ring", "--quick"), capture_output=True, text=True, timeout=120)
        assert p.returncode == 1, p.stderr
        last = p.stderr.strip().splitlines()[-1]
        assert last.startswith("ctxbench: --host h0: could not copy the engine there: the engine cannot run in ") \
            and "noexec" in last, p.stderr
        assert left(f) == []
    finally:
        f.stop()


def test_a_shell_that_speaks_before_each_command_is_no_trouble(tmp_path):
    """The account's shell start-up files print lines before every SSH
    command (a banner, a greeting): they are skipped, not read as the
    engine's."""
    f = Fleet(1, chatter=True)
    try:
        out = tmp_path / "ring.json"
        p = subprocess.run(on_host(f, "ring", "--quick", "--groups", "2", "-o", str(out)), capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        assert json.loads(out.read_text())["results"] and left(f) == []
    finally:
        f.stop()
