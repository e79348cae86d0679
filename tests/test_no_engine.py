"""`make check` starts no engine (docs/testing.md): unmarked tests get the
recorded engine, and CTXBENCH_ENGINE names a script that fails and notes
that it was started; conftest fails the session if anything started it.
Here: the refusal works, replayed commands start nothing, and the seam
records and replays faithfully (a fake engine, not the real one)."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import RECORD, REFUSE, ctxbench_cmd, own_engine, own_engine_env

from ctxbench.core import engine, transports
from ctxbench.core.errors import UserError

SMALL_RUN = ["run", "--quick", "--ids", "baseline/nop,kernel/thread/pipe/same-cpu"]  # as test_lifecycle_commands


def test_the_refusing_engine_fails_in_one_line_and_notes_it(tmp_path):
    log = tmp_path / "started"
    p = subprocess.run([str(REFUSE), "run", "x"], capture_output=True, text=True,
                       env=dict(os.environ, CTXBENCH_REFUSED_LOG=str(log)))
    assert p.returncode != 0 and p.stdout == ""
    assert len(p.stderr.splitlines()) == 1 and "refused" in p.stderr
    assert log.read_text() == "run x\n"


def test_a_command_sent_to_the_refusing_engine_fails_and_it_is_noted(tmp_path):
    log = tmp_path / "started"
    p = subprocess.run(ctxbench_cmd() + [*SMALL_RUN, "-o", str(tmp_path / "r.json")], capture_output=True,
                       text=True, timeout=120, env=dict(own_engine_env(REFUSE), CTXBENCH_REFUSED_LOG=str(log)))
    assert p.returncode != 0 and "refused: make check starts no engine" in p.stderr
    assert "Traceback" not in p.stderr and not (tmp_path / "r.json").exists()
    assert log.read_text().strip()


def test_a_replayed_command_starts_no_engine(tmp_path):
    """This test's own environment (conftest.engine_seam): replayed, the
    refusing engine named and never started."""
    if RECORD:
        pytest.skip("recording: the real engine answers (test_lifecycle_commands records this command)")
    assert os.environ["CTXBENCH_ENGINE"] == str(REFUSE) and os.environ["CTXBENCH_ENGINE_REPLAY"]
    log = tmp_path / "started"
    p = subprocess.run(ctxbench_cmd() + [*SMALL_RUN, "-o", str(tmp_path / "r.json")], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, CTXBENCH_REFUSED_LOG=str(log)))
    assert p.returncode == 0, p.stderr
    assert not log.exists()
    doc = json.loads((tmp_path / "r.json").read_text())
    assert [r["id"] for r in doc["results"]] == ["baseline/nop", "kernel/thread/pipe/same-cpu"]


def test_a_command_never_recorded_is_one_line_naming_it_and_how_to_record(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXBENCH_ENGINE_REPLAY", str(tmp_path))
    with pytest.raises(UserError) as e:
        engine.Engine().run_json(["env", "--cross-cpu", "7"])
    msg = str(e.value)
    assert "\n" not in msg and "'ctxbench-engine env --cross-cpu N'" in msg
    assert str(transports.recording_path(tmp_path, ["env", "--cross-cpu", "7"])) in msg and "make record-engine" in msg


def test_a_recording_is_found_whatever_cpu_it_names():
    """The measured CPU is always given (core/engine.Engine.stream) and
    left out of the key; the second CPU's number is N."""
    assert transports.key(["run", "x", "--cpu", "1", "--cross-cpu", "0"]) == ["run", "x", "--cross-cpu", "N"]
    assert transports.key(["run", "x", "--cpu", "1"]) == transports.key(["run", "x"])
    assert transports.recording_path(Path("."), ["probe", "--cpu", "3"]) == \
        transports.recording_path(Path("."), ["probe", "--cpu", "63"])
    assert transports.key(["run", "x", "--groups", "3"]) != transports.key(["run", "x", "--groups", "4"])


FAKE = r'''#!PYTHON
import json, os, sys
if sys.argv[1] == "env":
    print(json.dumps({"cpus": 2}))
    sys.exit(0)
count = sys.argv[0] + ".calls"  # this call's number: each answer differs
n = int(open(count).read()) + 1 if os.path.exists(count) else 1
open(count, "w").write(str(n))
print(json.dumps({"type": "header", "tool": {}, "environment": {}}), flush=True)
print(json.dumps({"type": "result", "result": {"id": "a", "n": n}}), flush=True)
print(json.dumps({"type": "result", "result": None, "id": "b", "error": "no such luck"}), flush=True)
print("ctxbench-engine: b: no such luck", file=sys.stderr)
sys.exit(1)
'''


def _stream(eng, cpu):
    got, failed = [], []
    eng.stream(["a", "b"], engine.EngineOptions(cpu=cpu), lambda h: got.append("header"), got.append,
               on_failure=lambda f, lines, status: failed.append((f, lines, status)) or set(lines))
    return got, failed


def test_what_is_recorded_is_replayed_alike(tmp_path, monkeypatch):
    """A fake engine recorded (CTXBENCH_ENGINE_RECORD), then replayed with
    no engine at all: the same lines, failures, stderr and status, the n-th
    call of the same arguments the n-th recorded answer."""
    fake = tmp_path / "fake-engine"
    fake.write_text(FAKE.replace("PYTHON", sys.executable))
    fake.chmod(0o755)
    rec = tmp_path / "rec"
    own_engine(monkeypatch, fake)
    monkeypatch.setenv("CTXBENCH_ENGINE_RECORD", str(rec))
    eng = engine.Engine()  # one command's context: it counts the calls of the same arguments
    live = [_stream(eng, 1), _stream(eng, 1), eng.run_json(["env"])]
    monkeypatch.delenv("CTXBENCH_ENGINE_RECORD")
    monkeypatch.setenv("CTXBENCH_ENGINE_REPLAY", str(rec))
    own = str(tmp_path / "not-there")
    monkeypatch.setenv("CTXBENCH_ENGINE", own)  # replayed: the engine is never looked for
    eng = engine.Engine()
    again = [_stream(eng, 0), _stream(eng, 0), eng.run_json(["env"])]
    assert again == live and live[0] != live[1]
    assert live[0][1] == [([{"position": 1, "id": "b", "error": "no such luck"}], ["b: no such luck"], 1)]
    assert sorted(p.name.split("-")[0] for p in rec.iterdir()) == ["env", "run"]


def test_the_clock_of_a_recorded_run_is_replayed_in_order(tmp_path, monkeypatch):
    """core/clock: a command that plans by elapsed time reads, replayed,
    the readings its recorded run read (each process of a test appends
    its own), then time runs on from the last; no file: the real clock."""
    from ctxbench.core.clock import Clock
    path = tmp_path / "clock.json.gz"
    one = Clock(record=str(path))  # a command's clock (core/engine.Engine.clock)
    first = [one.now(), one.now()]
    one.save()
    two = Clock(record=str(path))  # a second command of the same test
    second = [two.now()]
    two.save()
    replayed = Clock(replay=str(path))
    again = [replayed.now() for _ in range(3)]
    assert again == first + second
    later = replayed.now()
    assert later >= again[-1] and later - again[-1] < 60  # on from the last reading
    assert abs(Clock(replay=str(tmp_path / "none.json.gz")).now() - time.monotonic()) < 1
    monkeypatch.setenv("CTXBENCH_CLOCK_RECORD", str(path))
    assert Clock.from_environment().record == str(path)  # the environment when the command starts


@pytest.mark.parametrize("printed", ['{"a": 1}', "[1, 2, 3]"])
def test_another_programs_json_is_one_line_not_a_traceback(tmp_path, printed):
    """CTXBENCH_ENGINE naming a program that prints JSON of another shape:
    each engine document is checked for the shape its command gives."""
    fake = tmp_path / "engine.sh"
    fake.write_text(f"#!/bin/sh\necho '{printed}'\n")
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "CTXBENCH_ENGINE_REPLAY"}
    env["CTXBENCH_ENGINE"] = str(fake)
    for args in (["run", "--quick", "-o", str(tmp_path / "r.json")], ["system"]):
        p = subprocess.run(ctxbench_cmd() + args, capture_output=True, text=True, env=env, cwd=tmp_path,
                           timeout=60)
        assert p.returncode == 1 and "not a ctxbench engine" in p.stderr, (args, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr, p.stderr
