"""Arguments a user gets wrong in ordinary ways (issue 22 kind 7): an empty
list is refused in one line before anything is measured (it used to mean
"all" and measure everything), and no help text shows a doubled '%%'."""
import pytest

from conftest import ctxbench_cmd, own_engine  # noqa: F401  (the package is importable)

from ctxbench.cli import COMMANDS, main

EMPTY = [("run", "--ids"), ("sweep", "--sizes"), ("sweep", "--mechanism"), ("sweep", "--strides"),
         ("tasks", "--pair"), ("tasks", "--switches"), ("irq", "--task"), ("irq", "--rates"),
         ("ring", "--parties"), ("ring", "--footprint"), ("ring", "--kind"), ("ring", "--mechanism"),
         ("anatomy", "--rungs")]


@pytest.mark.parametrize("cmd,flag", EMPTY)
@pytest.mark.parametrize("value", ["", ",", " , "])
def test_an_empty_list_is_refused_before_measuring(cmd, flag, value, capsys, monkeypatch):
    own_engine(monkeypatch, "/nonexistent/ctxbench-engine")  # reaching the engine fails
    assert main([cmd, flag, value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ctxbench: ") and flag in err[0], err


@pytest.mark.parametrize("cmd", COMMANDS)
def test_help_shows_no_doubled_percent(cmd, capsys):
    try:
        code = main([cmd, "--help"])
    except SystemExit as e:  # argparse's help action exits
        code = e.code
    assert code == 0
    out = capsys.readouterr().out
    assert out.strip() and "%%" not in out
