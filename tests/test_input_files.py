"""Input files that hang or exhaust memory (issue 22, kind 5): only
regular files are read, never waited on, and never beyond a size limit,
even when the file grows (or, like /proc's, says it is empty)."""
import os
import stat
import subprocess

import pytest

from conftest import FIXTURES, ctxbench_cmd
from test_faults import one_line_error

from ctxbench.core import reader
from ctxbench.core.errors import UserError
from ctxbench.records import RECORDS

BASE = str(FIXTURES / "ring_base.json")


def _cli(*args):
    # a memory limit: the old reader took /dev/zero until memory ran out
    cmd = " ".join(ctxbench_cmd() + [f"'{a}'" for a in args])
    return subprocess.run(["bash", "-c", f"ulimit -v 2000000; exec {cmd}"], capture_output=True, text=True,
                          timeout=30)


def _one_line(p, needle):
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr and p.stderr.count("\n") == 1 and needle in p.stderr, p.stderr


@pytest.mark.parametrize("command", ["report", "compare"])
def test_fifo_input_is_refused_not_waited_on(tmp_path, command):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    argv = ["report", str(fifo), "-o", str(tmp_path / "r.html")] if command == "report" else \
        ["compare", BASE, str(fifo)]
    _one_line(_cli(*argv), "a FIFO")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.parametrize("dev", ["/dev/zero", "/dev/null"])
def test_device_input_is_refused_without_reading_it(tmp_path, dev):
    if not os.path.exists(dev):
        pytest.skip(f"no {dev} here")
    _one_line(_cli("report", dev, "-o", str(tmp_path / "r.html")), "a device")


def test_size_limit_bounds_the_read_even_when_the_size_says_zero(monkeypatch):
    # /proc files say 0 bytes and hold more: the limit is what was read
    monkeypatch.setattr(reader, "MAX_FILE_BYTES", 16)
    with pytest.raises(UserError) as e:
        reader.load("/proc/self/maps", RECORDS)
    assert "larger than" in str(e.value)


def test_size_limit_refuses_a_large_file(tmp_path, capsys, monkeypatch):
    big = tmp_path / "big.json"
    big.write_bytes(open(BASE, "rb").read())
    monkeypatch.setattr(reader, "MAX_FILE_BYTES", os.path.getsize(big) - 1)
    assert "larger than" in one_line_error(capsys, ["report", str(big), "-o", str(tmp_path / "r.html")], code=2)
    monkeypatch.setattr(reader, "MAX_FILE_BYTES", os.path.getsize(big))
    assert reader.load(str(big), RECORDS).results  # exactly at the limit is read


def test_limit_lets_a_real_large_result_through():
    # a long sweep with its raw arrays reaches 200 MB: the limit must not refuse it
    assert reader.MAX_FILE_BYTES >= 200 << 20


def test_escapes_in_an_input_name_are_shown_as_escapes(tmp_path, capsys):
    bad = tmp_path / "e\x1b]0;title\x07.json"
    err = one_line_error(capsys, ["report", str(bad), "-o", str(tmp_path / "r.html")], code=2)
    assert "\x1b" not in err and "\x07" not in err and "\\x1b]0;title\\x07" in err
