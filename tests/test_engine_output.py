"""The engine's side of the output-path rule (engine/src/cli/output.c, the
same rule as core/writer.py): issue 22 kinds 1, 3, 4 and 7. Each run is a
timer id of 1 group x 1 sample (a few ms): these are output checks, not
measurements. Device nodes are only ever written inside a private mount
namespace with a tmpfs /dev (test_output_paths._private_dev)."""
import json
import os
import signal
import stat
import subprocess
import threading
import time

import pytest

from conftest import ENGINE
from test_output_paths import _private_dev

# the engine binary itself, run here; flow: only files, streams and statuses are judged
pytestmark = [pytest.mark.machine, pytest.mark.flow]

QUICK = ["run", "timer/rdtsc", "--groups", "1", "--iterations", "1", "--json"]


def engine(*args, timeout=60, **kw):
    return subprocess.run([str(ENGINE), *args], capture_output=True, text=True, timeout=timeout, **kw)


def one_engine_line(p) -> str:
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("ctxbench-engine: "), p.stderr
    assert "Traceback" not in p.stderr
    return lines[0]


@pytest.mark.parametrize("node", ["null", "full"])
def test_a_device_is_written_as_a_stream_never_replaced(tmp_path, node):
    p = _private_dev(f"{ENGINE} {' '.join(QUICK)} -o /dev/{node}; echo rc=$? >&2; "
                     f"test -c /dev/{node} && echo CHAR >&2", tmp_path)
    assert "CHAR" in p.stderr, p.stderr  # still the device node
    if node == "null":
        assert "rc=0" in p.stderr, p.stderr
    else:  # a write that fails is a failure, in one line
        assert "rc=1" in p.stderr and "No space left on device" in p.stderr, p.stderr


def test_dev_stdout_redirected_to_a_file_fills_it_and_keeps_the_link(tmp_path):
    p = _private_dev(f"{ENGINE} {' '.join(QUICK)} -o /dev/stdout > out.json; echo rc=$? >&2; "
                     "test -L /dev/stdout && echo LINK >&2", tmp_path)
    assert "rc=0" in p.stderr and "LINK" in p.stderr, p.stderr
    assert json.loads((tmp_path / "out.json").read_text())["results"][0]["id"] == "timer/rdtsc"


def test_dash_is_stdout(tmp_path):
    p = engine(*QUICK, "-o", "-", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["results"][0]["id"] == "timer/rdtsc"
    assert not (tmp_path / "-").exists()


def test_fifo_nobody_reads_is_refused_at_once(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    p = engine(*QUICK, "-o", str(fifo), timeout=30)
    assert p.returncode == 2 and "nobody reads" in one_engine_line(p)
    assert time.monotonic() - t0 < 20  # refused, not waited on (the bound is the timeout, not a timing target)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_fifo_with_a_reader_gets_the_document(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()), daemon=True)
    reader.start()
    time.sleep(0.2)  # let the reader open its end: otherwise the engine rightly refuses
    p = engine(*QUICK, "-o", str(fifo))
    reader.join(20)
    assert p.returncode == 0, p.stderr
    assert json.loads(got[0])["results"][0]["id"] == "timer/rdtsc"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_symlink_to_a_file_stays_a_link(tmp_path):
    (tmp_path / "real.json").write_text("old")
    os.symlink("real.json", tmp_path / "link.json")
    p = engine(*QUICK, "-o", str(tmp_path / "link.json"))
    assert p.returncode == 0, p.stderr
    assert os.path.islink(tmp_path / "link.json")
    assert json.loads((tmp_path / "real.json").read_text())["schema"] == "ctxbench/1"


@pytest.mark.parametrize("what", ["directory", "dangling"])
def test_directory_and_dangling_symlink_refused(tmp_path, what):
    target = tmp_path / "t"
    if what == "directory":
        target.mkdir()
    else:
        os.symlink("nowhere", target)
    p = engine(*QUICK, "-o", str(target))
    assert p.returncode == 2
    one_engine_line(p)
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("args", [["list", "--json"], ["env"], ["presets", "--json"], QUICK])
def test_stdout_that_cannot_be_written_fails(args):
    with open("/dev/full", "w") as full:
        p = subprocess.run([str(ENGINE), *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert p.returncode == 1, (args, p.stderr)
    assert "No space left on device" in one_engine_line(p)


@pytest.mark.parametrize("args", [["list"], ["env"], QUICK])
def test_closed_stdout_is_refused_not_written_into_a_file(tmp_path, args):
    p = subprocess.run([str(ENGINE), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       timeout=60, cwd=tmp_path, preexec_fn=lambda: os.close(1))
    assert p.returncode == 2, p.stderr
    assert "standard output is closed" in one_engine_line(p)


def test_closed_stdout_with_o_writes_the_file(tmp_path):
    out = tmp_path / "o.json"
    p = subprocess.run([str(ENGINE), *QUICK, "-o", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, timeout=60, preexec_fn=lambda: os.close(1))
    assert p.returncode == 0, p.stderr
    assert json.loads(out.read_text())["results"][0]["id"] == "timer/rdtsc"


@pytest.mark.parametrize("mode", ["--json", "--jsonl"])
@pytest.mark.parametrize("interleave", [[], ["--interleave"]])
def test_a_failed_id_keeps_the_others_and_is_recorded(tmp_path, mode, interleave):
    """One allowed CPU and a cross-CPU id: that id fails, the timer's
    result stays, the file names the failure, and the exit status is 1."""
    out = tmp_path / "o.json"
    args = ["run", "timer/rdtsc", "kernel/thread/pipe/cross-cpu", "--groups", "1", "--iterations", "1", mode,
            *interleave]
    if mode == "--json":
        args += ["-o", str(out)]
    p = subprocess.run(["taskset", "-c", str(min(os.sched_getaffinity(0))), str(ENGINE), *args],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1, p.stderr
    if mode == "--json":
        doc = json.loads(out.read_text())
        assert [r["id"] for r in doc["results"]] == ["timer/rdtsc"]
        assert [f["id"] for f in doc["failures"]] == ["kernel/thread/pipe/cross-cpu"]
        assert "cross-cpu" in doc["failures"][0]["error"]
    else:
        lines = [json.loads(ln) for ln in p.stdout.splitlines()]
        res = [m for m in lines if m["type"] == "result"]
        assert res[0]["result"]["id"] == "timer/rdtsc"
        assert res[1]["result"] is None and res[1]["id"] == "kernel/thread/pipe/cross-cpu" and res[1]["error"]


def test_escapes_in_an_id_are_shown_as_escapes():
    p = engine("run", "ti\x1b[31mmer")
    assert p.returncode == 2
    line = one_engine_line(p)
    assert "\x1b" not in line and "\\x1b[31m" in line


def test_temp_file_of_a_killed_engine_is_removed_at_the_next_run(tmp_path):
    out = tmp_path / "o.json"
    killed = subprocess.Popen([str(ENGINE), "run", "timer/rdtsc", "--groups", "10000", "--json", "-o", str(out)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tmp = tmp_path / f"o.json.tmp.{killed.pid}"
    deadline = time.monotonic() + 30
    while not tmp.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    assert tmp.exists()  # SIGKILL skips every cleanup
    live = tmp_path / f"o.json.tmp.{os.getpid()}"  # a live engine's file is not touched
    live.write_text("")
    p = engine(*QUICK, "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert not tmp.exists() and live.exists()
