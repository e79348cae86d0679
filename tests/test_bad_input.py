"""Bad input: one clear line, a non-zero exit, no traceback, no file."""
import os

import pytest

from conftest import run_cli, run_engine


def one_line_error(p):
    assert p.returncode != 0
    err = p.stderr.strip().splitlines()
    assert len(err) == 1, p.stderr
    assert "Traceback" not in p.stderr
    return err[0]


@pytest.mark.parametrize("args,needle", [
    (["run", "--ids", "kernel/nope"], "unknown id"),
    (["run", "--cpu", "99", "--ids", "baseline/nop"], "99"),
    (["run", "--groups", "-3", "--ids", "baseline/nop"], "groups"),
    (["run", "--groups", "0", "--ids", "baseline/nop"], "groups"),
    (["run", "--iterations", "abc"], "iterations"),
    (["run", "--iterations", "99999999999", "--ids", "baseline/nop"], "iterations"),
    (["run", "--bogus"], "unrecognized"),
    (["run", "--quick", "--full"], "not allowed"),
    (["nosuchcommand"], "invalid choice"),
])
def test_cli_bad_arguments(tmp_path, args, needle):
    out = tmp_path / "r.json"
    p = run_cli(*args, "-o", str(out)) if args[0] == "run" else run_cli(*args)
    line = one_line_error(p)
    assert needle in line, line
    assert not out.exists()
    assert not list(tmp_path.iterdir())


def test_unwritable_output(tmp_path):
    p = run_cli("run", "--ids", "baseline/nop", "-o", "/nonexistent-dir/x.json")
    assert "cannot write" in one_line_error(p)
    ro = tmp_path / "ro"
    ro.mkdir()
    os.chmod(ro, 0o500)
    try:
        if os.geteuid() != 0:  # root writes anywhere; the missing dir covers it
            p = run_cli("run", "--ids", "baseline/nop", "-o", str(ro / "x.json"))
            assert "cannot write" in one_line_error(p)
    finally:
        os.chmod(ro, 0o700)


@pytest.mark.parametrize("args,needle", [
    (["run", "nope/nope"], "unknown benchmark id"),
    (["run", "baseline/nop", "--cpu", "99"], "--cpu 99"),
    (["run", "baseline/nop", "--iterations", "-1"], "--iterations"),
    (["run", "baseline/nop", "--groups", "0"], "--groups"),
    (["run", "baseline/nop", "--n", "huge"], "--n"),
    (["run", "baseline/nop", "--stride", "12", "--size", "4K"], "--stride"),
    (["run", "baseline/nop", "--whatever"], "unknown option"),
    (["run"], "at least one"),
    (["frobnicate"], "unknown command"),
])
@pytest.mark.machine  # the engine binary itself
@pytest.mark.flow
def test_engine_bad_arguments(args, needle):
    line = one_line_error(run_engine(*args))
    assert needle in line, line


@pytest.mark.machine
@pytest.mark.flow
def test_engine_unwritable_output():
    line = one_line_error(run_engine("run", "baseline/nop", "--json", "-o", "/nonexistent-dir/x.json"))
    assert "cannot write" in line
