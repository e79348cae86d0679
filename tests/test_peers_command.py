"""ctxbench peers end to end, with the real engine (flow: no number is
judged against another measured one).

- Fake peers on PATH: one that answers in a known number (its converted
  row is that number over its op's hand-offs, through every layer), one
  that fails, one that prints what no parser knows, one missing: each
  costs one line, and every other row is kept.
- The real peers, as `make test` installs them, pinned, on a --host (real sshd on
  loopback): every row of a quick run, and nothing left there.
- Ctrl-C in a peer's launch: exit 130, and no peer process is left."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ctrl_c, ctxbench_cmd, run_cli

pytestmark = [pytest.mark.machine, pytest.mark.flow]

FAKE_PERF = """#!/bin/sh
# perf bench sched pipe -l COUNT: a known 6.000000 usecs/op, taking the time it claims (a peer whose number
# times its operations is longer than it ran is refused)
/usr/bin/sleep "$(/usr/bin/awk "BEGIN { print $5 * 6e-6 }")"
echo "# Running 'sched/pipe' benchmark:"
echo "# Executed $5 pipe operations between two processes"
echo
echo "     Total time: 0.100 [sec]"
echo
echo "       6.000000 usecs/op"
echo "         166666 ops/sec"
"""
# exit 130, as a shell killed by SIGINT would: a peer in a group of its own is not reached by the run's Ctrl-C,
# so this is its own failure, not an interruption of the run
FAKE_FAILING = "#!/bin/sh\necho 'stress-ng: error: [1] no such stressor' >&2\nexit 130\n"
FAKE_GARBAGE = "#!/bin/sh\nprintf 'sysbench 9.9 \\033[31mall new output\\033[0m\\n'\n"


def fake_path(tmp_path: Path) -> str:
    d = tmp_path / "bin"
    d.mkdir()
    for name, body in (("perf", FAKE_PERF), ("stress-ng", FAKE_FAILING), ("sysbench", FAKE_GARBAGE)):
        (d / name).write_text(body)
        (d / name).chmod(0o755)
    return str(d)  # nothing else: hackbench and lat_ctx are missing


def test_known_answer_failures_and_a_missing_peer_cost_their_rows_only(tmp_path):
    out = tmp_path / "peers.json"
    env = dict(os.environ, PATH=fake_path(tmp_path))
    p = run_cli("peers", "--quick", "--placement", "pinned", "--peer",
                "perf-sched-pipe/process,stress-ng-switch,sysbench-threads,hackbench", "-o", out, "--no-store",
                env=env, in_process=False, timeout=300)
    assert p.returncode == 1, p.stderr
    assert "Traceback" not in p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith(("note:", "ctxbench:"))]
    assert [ln for ln in lines if "hackbench" in ln] == [
        "note: hackbench: hackbench is not on PATH (Debian package rt-tests: make peers)"]
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("ctxbench: 2 of ") and "'peers/stress-ng-switch/pinned': exit status 130: stress-ng: error" \
        in last and "'peers/sysbench-threads/pinned': no 'total time' line in its output" in last
    assert "\x1b" not in p.stderr  # the garbage's escape is not printed raw
    doc = json.loads(out.read_text())
    rows = {r["id"]: r for r in doc["results"] if r["id"].startswith("peers/")}
    assert list(rows) == ["peers/perf-sched-pipe/process/pinned"]
    perf = rows["peers/perf-sched-pipe/process/pinned"]
    assert perf["samples"] == [3000.0] * len(perf["samples"])   # 6 µs per round trip: 3 µs per hand-off
    assert perf["params"]["version"] == "unknown" or perf["params"]["version"]
    assert perf["params"]["argv"][:5] == [str(Path(env["PATH"]) / "perf"), "bench", "sched", "pipe", "-l"]
    # the fake switches nothing: the row says so, and keeps its number
    assert [w["code"] for w in perf["warnings"]] == ["peer_switches"]
    assert {f["id"] for f in doc["failures"]} == {"peers/stress-ng-switch/pinned", "peers/sysbench-threads/pinned"}
    assert [a["peer"] for a in doc["peers"]["absent"]] == ["hackbench"]
    ids = {r["id"] for r in doc["results"]}
    assert {"kernel/process/pipe/same-cpu", "baseline/syscall-enosys"} <= ids  # ctxbench's side was measured
    r = run_cli("report", out, "-o", tmp_path / "r.html", in_process=False)
    assert r.returncode == 0, r.stderr


FAKE_PERF_LEAVING = FAKE_PERF.replace("#!/bin/sh\n", """#!/bin/sh
# a descendant that leaves the peer's process group and keeps its output open
setsid -f sh -c 'echo "$$" > "$MARK_DIR/pid.$$"; exec sleep 300'
""")


def test_a_descendant_that_keeps_the_output_open_does_not_hold_the_launch(tmp_path):
    """It kept each launch waiting for its output until the timeout: the
    output is read until the peer exits and a moment more. It left the
    group for a session of its own, which the group kill cannot reach; the
    engine, its subreaper, kills it after the launch."""
    d = tmp_path / "bin"
    d.mkdir()
    (d / "perf").write_text(FAKE_PERF_LEAVING)
    (d / "perf").chmod(0o755)
    marks = tmp_path / "marks"
    marks.mkdir()
    env = dict(os.environ, PATH=f"{d}:/usr/bin:/bin", MARK_DIR=str(marks))
    t0 = time.monotonic()
    try:
        p = run_cli("peers", "--peer", "perf-sched-pipe/process", "--placement", "pinned", "--rounds", "1",
                    "--launch-ms", "50", "--no-store", "-o", tmp_path / "x.json", env=env, in_process=False,
                    timeout=120)
        took = time.monotonic() - t0
        assert p.returncode == 0, p.stderr
        assert took < 25, f"{took:.0f} s: the launches waited for the escaped descendant's output"
        assert len(list(marks.iterdir())) == 3  # its --version, the pilot and one round
        assert not [f.name for f in marks.iterdir() if _runs(int(f.read_text()))]
    finally:
        for f in marks.iterdir():
            try:
                os.kill(int(f.read_text()), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass


def test_no_peer_here_is_one_line(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    p = run_cli("peers", "--quick", "--peer", "hackbench,lat_ctx", "-o", tmp_path / "x.json", "--no-store",
                env=dict(os.environ, PATH=str(empty)), in_process=False)
    assert p.returncode == 2 and p.stderr.strip().splitlines()[-1].startswith("ctxbench: peers: none of the peers")
    assert not (tmp_path / "x.json").exists()


@pytest.mark.skipif(not all(shutil.which(t) for t in ("perf", "stress-ng", "hackbench", "sysbench")),
                    reason="make peers installs them (make test does)")
def test_the_real_peers_give_every_row_on_a_host(tmp_path):
    """The real peers through --host (a real OpenSSH server on loopback
    whose sessions have a hostname of their own): found, asked their
    versions and launched by the host's engine; every pinned row of a quick
    run, the document the host's, and nothing left there."""
    pytest.importorskip("asyncssh")
    from ssh_servers import Fleet
    from test_fleet import engines_running
    f = Fleet(1, hostnames={0: "peers-host"})
    try:
        out = tmp_path / "peers.json"
        # pinned only: an unpinned launch prints what the same parser reads (the time the suite has is short)
        p = subprocess.run([*ctxbench_cmd(), "peers", "--quick", "--rounds", "1", "--launch-ms", "30", "--placement",
                            "pinned", "-o", str(out), "--no-store", "--host", "h0", "--ssh-config",
                            str(f.ssh_config)], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        doc = json.loads(out.read_text())
        assert doc["environment"]["hostname"] == "peers-host"  # measured there
        assert doc["peers"]["housekeeping"]["transport"] == "ssh"
        rows = {r["id"] for r in doc["results"] if r["id"].startswith("peers/")}
        expected = {f"peers/{peer}/{place}" for peer in ("perf-sched-pipe/process", "perf-sched-pipe/thread",
                                                         "stress-ng-switch", "stress-ng-context",
                                                         "sysbench-threads", "hackbench")
                    for place in ("pinned",)}
        expected.add("peers/ctx-clock/pinned")
        assert expected <= rows
        if "peers/lat_ctx/pinned" not in rows:  # no lmbench on the host: said as the host's
            assert "note: lat_ctx: lat_ctx is not on h0's PATH (an lmbench build on its PATH)" in p.stderr, p.stderr
        for r in doc["results"]:
            if r["id"].startswith("peers/"):
                assert r["params"]["version"] and r["params"]["argv"] and len(r["samples"]) == doc["peers"]["rounds"]
                assert all(x > 0 for x in r["samples"])
        assert "Same-CPU switch" in p.stdout
        clock = next(r for r in doc["results"] if r["id"] == "peers/ctx-clock/pinned")
        assert clock["params"]["version"].endswith("at --host h0")  # the host's engine, not this machine's
        assert f.servers[0].left() == [] and not engines_running(f.root)
    finally:
        f.stop()


def _runs(pid: int) -> bool:
    """Whether `pid` is a running process (not gone, not a zombie)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


FAKE_PERF_WITH_A_CHILD = "#!/bin/sh\n/usr/bin/sleep 347 &\n/usr/bin/sleep 348\n"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_ctxbench_alone_mid_launch_leaves_nothing(tmp_path, sig):
    """The signal reaches the front end only (kill PID, not the group): it
    stops the engine with SIGTERM, whose handler kills the peer's group
    (a SIGKILL, as subprocess.run gave, left the peer's child running)."""
    d = tmp_path / "bin"
    d.mkdir()
    (d / "perf").write_text(FAKE_PERF_WITH_A_CHILD)
    (d / "perf").chmod(0o755)
    proc = subprocess.Popen(ctxbench_cmd() + ["peers", "--peer", "perf-sched-pipe/process", "--placement", "pinned",
                                              "--rounds", "1", "--no-store", "-o", str(tmp_path / "x.json")],
                            env=dict(os.environ, PATH=f"{d}:/usr/bin:/bin"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def sleeps():
        return [p for p in Path("/proc").iterdir() if p.name.isdigit() and _runs(int(p.name))
                and b"sleep\x00" in _cmdline(p) and (b"347" in _cmdline(p) or b"348" in _cmdline(p))]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(sleeps()) < 2:
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip().splitlines()[-1] == "ctxbench: interrupted", err
    time.sleep(0.3)
    assert sleeps() == []


def _cmdline(p: Path) -> bytes:
    try:
        return (p / "cmdline").read_bytes()
    except OSError:
        return b""


def _peer_processes() -> list[str]:
    # the peers' programs only: other tests run engines beside this one (xdist), and the engine's own
    # clean-up on Ctrl-C is tests/test_lifecycle_commands.py's
    names = {"perf", "stress-ng", "hackbench", "sysbench"}
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                comm = (d / "comm").read_text().strip()
                state = (d / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state == "Z":  # dead, waiting for its parent (or init) to reap it: not a peer left running
                continue
            if comm in names or comm.startswith("stress-ng"):
                out.append(f"{d.name} {comm}")
    return out


@pytest.mark.skipif(not shutil.which("stress-ng"), reason="make peers installs stress-ng")
def test_ctrl_c_in_a_launch_leaves_no_peer(tmp_path):
    before = set(_peer_processes())
    proc = subprocess.Popen(ctxbench_cmd() + ["peers", "--peer", "stress-ng-switch", "--placement", "unpinned",
                                              "--rounds", "3", "--launch-ms", "3000", "-o", str(tmp_path / "x.json"),
                                              "--no-store"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any("stress-ng" in x for x in set(_peer_processes()) - before):
        time.sleep(0.05)
    time.sleep(0.3)
    rc, _, err = ctrl_c(proc)
    assert rc == 130 and "Traceback" not in err, err
    time.sleep(0.5)
    left = set(_peer_processes()) - before
    assert not left, left
    assert sys.executable  # (the test's own interpreter is not a peer)


def test_o_dash_keeps_standard_output_to_the_document(tmp_path):
    p = run_cli("peers", "--quick", "--peer", "ctx-clock", "-o", "-", "--no-store", in_process=False)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)  # the document alone: the table went to standard error
    assert doc["peers"]["rounds"] == 2 and "ctx-clock" in p.stderr
