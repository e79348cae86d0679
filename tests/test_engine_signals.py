"""The engine, interrupted, leaves nothing behind: its output goes to
FILE.tmp.<pid> until it is complete, and the signal handler removes that
file before it exits (atexit handlers do not run past _exit)."""
import signal
import subprocess
import time

import pytest

from conftest import ENGINE

# the engine binary itself, interrupted; flow: only its files and status are judged
pytestmark = [pytest.mark.machine, pytest.mark.flow]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_interrupted_engine_removes_its_temp_file(engine_bin, tmp_path, sig):
    out = tmp_path / "x.json"
    # long enough to be interrupted in the middle: 10^4 groups of one id
    p = subprocess.Popen([str(ENGINE), "run", "baseline/nop", "--groups", "10000", "--warmup-ms", "0", "--json",
                          "-o", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while not list(tmp_path.glob("x.json.tmp.*")) and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.02)
        assert list(tmp_path.glob("x.json.tmp.*")), "the engine never opened its output"
        p.send_signal(sig)
        rc = p.wait(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert rc == 128 + sig
    assert list(tmp_path.iterdir()) == []  # neither the temp file nor a results file
