"""`ctxbench --version` names this front end's version and the engine it
starts, with how that engine was built (issue 35); an engine it cannot
ask is one line that says why, never a failure."""
from __future__ import annotations

import re


import ctxbench
from ctxbench.cli import main


def _version(capsys) -> list[str]:
    assert main(["--version"]) == 0
    return capsys.readouterr().out.splitlines()


def test_version_names_the_engine_and_its_build(capsys):
    # replayed: what the real engine answered to --version (tests/fixtures/engine/recordings)
    first, engine = _version(capsys)
    assert first == f"ctxbench {ctxbench.__version__}"
    assert re.fullmatch(r"engine: ctxbench-engine \S+ \((x86_64|aarch64|armv7[^,]*), [^,]+, (static|dynamic)"
                        r"(, [^,]+)*\) at (a recording|/\S+)", engine), engine


def test_an_engine_it_cannot_ask_is_said_in_one_line(capsys, monkeypatch, tmp_path):
    for k in ("CTXBENCH_ENGINE_REPLAY", "CTXBENCH_ENGINE_RECORD"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("CTXBENCH_ENGINE", str(tmp_path / "no\x1b[2Jengine"))
    first, engine = _version(capsys)
    assert first.startswith("ctxbench ")
    assert engine.startswith("engine: not available: CTXBENCH_ENGINE=") and "\\x1b[2J" in engine
    assert "\x1b" not in engine
