"""The engine's launcher of other programs (`ctxbench-engine exec` and
`which`, engine/src/cli/exec.c), which ctxbench peers launches every peer
through, here and on a --host. Invariants and known answers, no timing:
the CPUs it was given are the program's, the switches of its whole tree
are counted, a CPU kept busy for a known wall time shows at least that
busy time less the clock tick, and nothing the program starts outlives the
launch, however it ends."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from conftest import ENGINE

pytestmark = pytest.mark.machine

TICK_S = 1 / os.sysconf("SC_CLK_TCK")  # /proc/stat's unit: a busy time is known to within a tick at each end


def launch(*args: str, timeout: float = 60) -> dict:
    p = subprocess.run([str(ENGINE), "exec", *args], capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def running(tag: str) -> dict[str, str]:
    """Processes (not zombies) whose command line holds `tag`: pid -> command line."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
                with open(f"/proc/{d}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if tag in cmd and state != "Z" and cmd.split()[1:2] != ["exec"]:  # the engine's own line aside
                out[d] = cmd
    return out


def alive(tag: str) -> list[str]:
    """The command lines of running(tag)."""
    return list(running(tag).values())


def test_the_program_runs_on_its_cpus_and_the_launcher_leaves_them():
    cpus = sorted(os.sched_getaffinity(0))
    got = launch("--cpus", str(cpus[-1]), "--", "grep", "Cpus_allowed_list", "/proc/self/status")
    assert got["status"] == 0 and got["why"] is None
    assert got["output"].split() == ["Cpus_allowed_list:", str(cpus[-1])]
    assert got["cpus"] == [cpus[-1]]
    if len(cpus) > 1:
        assert cpus[-1] not in got["launcher_cpus"]


def test_the_switches_of_the_whole_tree_are_counted():
    # ten children that each sleep 10 ms: each blocks at least once (a voluntary switch), and the shell
    # waits for each (another); wait4 adds the reaped children's counts to the shell's
    got = launch("--", "sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.01; done")
    assert got["status"] == 0 and got["voluntary"] >= 20, got


def test_a_cpu_kept_busy_shows_that_busy_time():
    cpu = sorted(os.sched_getaffinity(0))[-1]
    # a loop that spins on its one CPU for 0.5 s of wall time: whatever CPU time it got (all of it here; less
    # beside other load or under a CPU quota) is part of that CPU's busy time, to within a tick at each end
    spin = "import time\nt = time.monotonic()\nwhile time.monotonic() - t < 0.5: pass\n"
    got = launch("--cpus", str(cpu), "--", "python3", "-c", spin)
    assert got["status"] == 0 and 0 < got["cpu_s"] <= got["wall_s"] + TICK_S
    assert got["cpu_busy_s"][0] >= got["cpu_s"] - 2 * TICK_S, got


def test_output_is_kept_whole_and_a_nul_does_not_cut_it():
    got = launch("--", "printf", r"a\0b\n\033[31mred\n")
    assert got["output"] == "a?b\n\x1b[31mred\n"


def test_bytes_that_are_not_utf8_come_back_replaced_and_the_record_is_utf8():
    p = subprocess.run([str(ENGINE), "exec", "--", "sh", "-c", r"printf 'caf\351 \377 ok \303\251'", "\udcff"],
                       capture_output=True, timeout=60)  # and an argument of one byte 0xff, not UTF-8
    got = json.loads(p.stdout.decode("utf-8"))  # strict: every byte of the record is UTF-8
    assert got["output"] == "caf\ufffd \ufffd ok \u00e9" and got["argv"][-1] == "\ufffd"


def test_a_program_that_closes_its_output_and_goes_on_is_waited_for():
    # the end of its output is not its end (coreutils close stdout before they exit: a race, once)
    got = launch("--", "sh", "-c", "exec >&- 2>&-; sleep 0.3; exit 3")
    assert got["status"] == 3 and got["why"] is None and got["wall_s"] >= 0.3


def test_what_leaves_the_group_is_killed_after_the_launch():
    # a session of its own (setsid) and a group of its own (setpgid): both outlive the program's group,
    # and both are orphans the engine adopts (its subreaper) and kills
    got = launch("--drain-ms", "100", "--", "sh", "-c",
                 "setsid sleep 306 > /dev/null 2>&1 < /dev/null & "
                 "python3 -c 'import os, time; os.setpgid(0, 0); time.sleep(30)  # 307' > /dev/null 2>&1 & "
                 "sleep 0.3; echo parent")
    assert got["status"] == 0 and got["output"] == "parent\n"
    assert alive("sleep 306") == alive("# 307") == []


def test_nothing_the_engine_holds_reaches_the_program():
    got = launch("--", "sh", "-c", "ls /proc/$$/fd")
    assert got["output"].split() == ["0", "1", "2"]


def test_a_program_that_cannot_start_says_why():
    got = launch("--", "/nonexistent/peer")
    assert got["status"] is None and got["why"].startswith("cannot start /nonexistent/peer: No such file")


def test_exit_status_and_signal_are_told_apart():
    assert launch("--", "sh", "-c", "exit 3")["status"] == 3
    assert launch("--", "sh", "-c", "kill -KILL $$")["status"] == -signal.SIGKILL


def test_a_hung_program_is_stopped_with_what_it_started():
    got = launch("--timeout-ms", "300", "--", "sh", "-c", "sleep 301 & sleep 302")
    assert got["why"].startswith("no answer within 0.3 s") and got["status"] == -signal.SIGKILL
    assert alive("sleep 301") == alive("sleep 302") == []


def test_a_descendant_holding_the_output_does_not_hold_the_launch():
    got = launch("--drain-ms", "100", "--", "sh", "-c", "sleep 303 & echo started")
    assert got["status"] == 0 and got["why"] is None and got["output"] == "started\n"
    assert got["wall_s"] < 60 and alive("sleep 303") == []  # killed with the group, not waited for


def test_a_flood_of_output_is_stopped_at_the_bound():
    got = launch("--max-output", "100000", "--", "yes")
    assert got["why"] == "printed more than 100000 bytes; stopped" and got["output"] == "y\n" * 50000


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_the_engine_stopped_mid_launch_leaves_nothing(sig):
    # and one that left the group: adopted by the engine once its shell is killed, and killed by its handler
    proc = subprocess.Popen([str(ENGINE), "exec", "--", "sh", "-c",
                             "setsid sleep 308 > /dev/null 2>&1 < /dev/null & sleep 304 & sleep 305"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 10
    while len(alive("sleep 305")) < 2 and time.monotonic() < end:  # the shell and its sleep
        time.sleep(0.02)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + sig and "children reaped" in err
    end = time.monotonic() + 5  # SIGKILL was sent by the handler; the process dies a moment after
    while (alive("sleep 304") or alive("sleep 305") or alive("sleep 308")) and time.monotonic() < end:
        time.sleep(0.02)
    assert alive("sleep 304") == alive("sleep 305") == alive("sleep 308") == []


@pytest.mark.parametrize("args, words", [
    (["--", ], "name the program after --"),
    (["--cpus", "1023", "--", "true"], "a CPU this process may not use"),
    (["--cpus", "x", "--", "true"], "--cpus needs CPU numbers"),
    (["--cpus", "0,,1", "--", "true"], "--cpus needs CPU numbers"),
    (["--timeout-ms", "0", "--", "true"], "--timeout-ms must be above 0"),
    (["--timeout-ms", "99999999999", "--", "true"], "--timeout-ms needs a whole number up to"),
    (["--bogus", "--", "true"], "unknown option '--bogus'"),
])
def test_bad_arguments_are_one_line(args, words):
    p = subprocess.run([str(ENGINE), "exec", *args], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1 and words in p.stderr, p.stderr


def test_which_finds_programs_on_path_and_says_null_for_the_rest(tmp_path):
    tool = tmp_path / "a-peer"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    (tmp_path / "not-executable").write_text("")
    env = dict(os.environ, PATH=f"{tmp_path}:/usr/bin:/bin")
    p = subprocess.run([str(ENGINE), "which", "a-peer", "not-executable", "sh", "no-such-tool", ""],
                       capture_output=True, text=True, env=env, timeout=30)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert got["a-peer"] == str(tool) and got["not-executable"] is None and got["no-such-tool"] is None
    assert got["sh"] in ("/usr/bin/sh", "/bin/sh") and got[""] is None
