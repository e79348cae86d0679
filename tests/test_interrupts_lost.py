"""A Ctrl-C whose KeyboardInterrupt Python lost (core/interrupts.py):
the command ends at its next engine command, never runs on. In-process,
no engine: a check that raises comes before any transport is asked."""
from __future__ import annotations

import pytest

from ctxbench.core import engine, interrupts


@pytest.fixture
def lost_ctrl_c(monkeypatch, tmp_path):
    monkeypatch.setenv("CTXBENCH_ENGINE_REPLAY", str(tmp_path))  # nothing recorded: reaching it would say so
    try:
        interrupts._on_sigint(2, None)
    except KeyboardInterrupt:
        pass  # lost on the way, as it was in about 1 of 90 interrupted runs under load
    yield
    interrupts.forget()


def test_the_next_engine_command_ends_the_command(lost_ctrl_c):
    eng = engine.Engine()
    with pytest.raises(KeyboardInterrupt):
        eng.run_json(["list", "--json"])
    with pytest.raises(KeyboardInterrupt):
        eng.stream(["baseline/nop"], engine.EngineOptions(cpu=0), lambda h: None, lambda r: None)


def test_without_a_ctrl_c_nothing_is_raised():
    interrupts.check()  # a program or a test importing the package: nothing installed, nothing remembered
