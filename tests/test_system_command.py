"""`ctxbench system` end to end: its facts are this machine's (read here
from the kernel's own files, independently of the engine), the text and
the JSON say the same findings, and a machine with known faults (an
environment record with a powersave governor, no SCHED_FIFO, an isolated
CPU) is told so with the fix. A wrong fact, a lost finding or a hint
printed for an ok line fails here."""
import json
import os
import platform

import pytest

from conftest import run_cli

from ctxbench.system import command as system

pytestmark = pytest.mark.machine


def _lines(stdout: str) -> list[tuple[str, str, str]]:
    """(level, topic, text) per finding line; hint lines ('-> ...') skipped."""
    out = []
    for line in stdout.splitlines():
        if line.strip().startswith("->") or not line.strip():
            continue
        level, topic, text = line[:7].strip(), line[9:22].strip(), line[23:]
        out.append(({"WARNING": "warning"}.get(level, level), topic, text))
    return out


@pytest.fixture(scope="module")
def both():
    text = run_cli("system", timeout=60)
    js = run_cli("system", "--json", timeout=60)
    assert text.returncode == 0 and js.returncode == 0, text.stderr + js.stderr
    return text.stdout, json.loads(js.stdout)


def test_text_and_json_say_the_same_findings(both):
    stdout, doc = both
    assert _lines(stdout) == [(c["level"], c["topic"], c["what"]) for c in doc["checks"]], stdout


def test_facts_are_this_machines(both):
    stdout, doc = both
    env = doc["environment"]
    assert env["kernel"]["release"] == platform.release()
    with open("/sys/devices/system/cpu/online") as f:
        online = f.read().strip()
    assert env["cpu"]["online_list"] == online
    cs_file = "/sys/devices/system/clocksource/clocksource0/current_clocksource"
    if os.path.exists(cs_file):
        with open(cs_file) as f:
            assert f"clock source: {f.read().strip()}" in stdout or "clock source is" in stdout
    with open("/proc/cpuinfo") as f:
        in_vm = " hypervisor" in f.read()
    assert env["virtualization"]["is_vm"] == in_vm
    assert ("running in a virtual machine" in stdout) == in_vm
    assert f"Linux {platform.release()}" in stdout


def test_known_faults_are_reported_with_their_fix(capsys, both):
    _, doc = both
    env = json.loads(json.dumps(doc["environment"]))
    env["frequency"]["governors"] = {"0": "powersave", "1": "powersave"}
    env["process"]["sched_fifo_allowed"] = False
    env["process"]["sched_fifo_error"] = "Operation not permitted"
    env["kernel"]["isolated"] = "1"
    engine = type("Engine", (), {"environment": lambda self: {"environment": env, "tool": doc["tool"]},
                                 "remote": lambda self: None})()  # the command's engine context, its record given
    assert system.run(type("Args", (), {"json": False, "engine": engine})()) == 0
    out = capsys.readouterr().out
    assert "WARNING  governor      frequency governor is powersave, not performance" in out
    assert "-> sudo cpupower frequency-set -g performance" in out
    assert "WARNING  sched_fifo    SCHED_FIFO not available: Operation not permitted" in out
    assert "ok       isolation     isolated CPUs: 1" in out
    ok_topics = [t for level, t, _ in _lines(out) if level == "ok"]
    lines = out.splitlines()
    for i, line in enumerate(lines[:-1]):  # an ok finding carries no advice
        if line.startswith("ok ") and line[9:22].strip() in ok_topics:
            assert not lines[i + 1].strip().startswith("->"), (line, lines[i + 1])
