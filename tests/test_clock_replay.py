"""The replayed clock (core/clock.py) refuses a file that is not a
recorded clock in one line: a variable pointing at the wrong file printed
a traceback (issue 47's review)."""
from __future__ import annotations

import gzip
import json

import pytest

from ctxbench.core.clock import Clock
from ctxbench.core.errors import UserError


# mtime=0: the gzip header holds no clock, so every pytest-xdist worker collects the same test ids
# (two workers collecting across a second's turn made `make test` fail before it ran a test)
@pytest.mark.parametrize("data", [b"hello", gzip.compress(b"not json", mtime=0), gzip.compress(b'{"a": 1}', mtime=0),
                                  gzip.compress(b'[1, "x"]', mtime=0), gzip.compress(b"[1, 2", mtime=0)[:-4]])
def test_a_file_that_is_not_a_recorded_clock_is_one_line(tmp_path, data):
    p = tmp_path / "clock.gz"
    p.write_bytes(data)
    with pytest.raises(UserError, match="CTXBENCH_CLOCK_REPLAY .*not a recorded clock"):
        Clock(replay=str(p)).now()


def test_a_recorded_clock_replays_in_order_then_runs_on(tmp_path):
    p = tmp_path / "clock.gz"
    p.write_bytes(gzip.compress(json.dumps([5.0, 7.5]).encode()))
    c = Clock(replay=str(p))
    assert [c.now(), c.now()] == [5.0, 7.5] and c.now() >= 7.5
    assert Clock(replay=str(tmp_path / "none")).now() > 0  # no file: time runs on
