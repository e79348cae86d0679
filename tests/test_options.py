"""The shared option types: every measuring command refuses the same bad
value with the same one line and exit 2, before anything is measured (so
these run in-process, and fast: a command that started measuring would
need the engine)."""
import os

import pytest

from ctxbench.cli import main
from ctxbench.core.errors import UserError
from ctxbench.ui import options

MEASURING = ["run", "sweep", "tasks", "irq", "noise", "ring", "userbench"]
NOT_ALLOWED = max(os.sched_getaffinity(0)) + 1000


def refused(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ctxbench: ") and "\n" not in err, err
    return err


@pytest.mark.parametrize("command", MEASURING)
def test_cpu_not_allowed_is_refused_alike(capsys, command):
    err = refused(capsys, [command, "--cpu", str(NOT_ALLOWED)])
    assert "--cpu" in err and "not allowed for this process" in err


@pytest.mark.parametrize("command,flag", [("run", "--groups"), ("run", "--iterations"), ("ring", "--groups"),
                                          ("sweep", "--iterations"), ("userbench", "--groups"),
                                          ("tasks", "--rounds"), ("irq", "--rounds"), ("noise", "--seconds")])
@pytest.mark.parametrize("value", ["0", "-3", "100000000", "x"])
def test_counts_name_their_own_flag(capsys, command, flag, value):
    err = refused(capsys, [command, flag, value])
    assert flag in err and "integer" in err


@pytest.mark.parametrize("argv,needle", [
    (["ring", "--footprint", "4Q"], "not a size"),
    (["ring", "--footprint", "2G"], "larger than 1G"),
    (["ring", "--parties", "1"], "outside 2..1024"),
    (["ring", "--kind", "fiber"], "not one of"),
    (["tasks", "--switches", "5..1"], "ranges like"),
    (["irq", "--rates", "0"], "outside"),
    (["tasks", "--scale", "nan"], "--scale"),
    (["sweep", "--strides", "0,64", "--compare-stride", "7"], "not one of the strides"),
])
def test_bad_values_one_line(capsys, tmp_path, argv, needle):
    if argv[0] == "sweep":
        argv = argv + ["-o", str(tmp_path / "s.json")]
    assert needle in refused(capsys, argv)


def test_plot_onto_a_file_is_refused(capsys, tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    assert "not a directory" in refused(capsys, ["tasks", "--plot", str(f)])


@pytest.mark.parametrize("text,value", [("0", 0), ("4096", 4096), ("16K", 16384), ("64KiB", 65536),
                                        ("1.5M", 3 << 19), ("2GB", 2 << 30), ("1m", 1 << 20)])
def test_one_size_grammar(text, value):
    assert options.size(text) == value


@pytest.mark.parametrize("text", ["", "K", "1.3K", "-1", "1T", "0x10"])
def test_sizes_that_are_not(text):
    with pytest.raises(options.Bad):
        options.size(text)


def test_ranges_are_bounded():
    assert options.int_list("1..3,10", 1, 100) == [1, 2, 3, 10]
    with pytest.raises(options.Bad):
        options.int_list("1..99999999999", 1, 10**12)  # not a billion-element set


def test_kept_run_names_and_place(monkeypatch, tmp_path):
    import datetime
    from ctxbench.core import datadir
    t = datetime.datetime(2026, 1, 2, 3, 4, 5)
    pid = os.getpid()
    assert datadir.run_name("run", t) == f"ctxbench-20260102-030405-{pid}.json"
    assert datadir.run_name("ring", t) == f"ctxbench-ring-20260102-030405-{pid}.json"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert datadir.run_path("ring").startswith(str(tmp_path / "xdg" / "ctxbench" / "runs") + os.sep)
    monkeypatch.setenv("XDG_DATA_HOME", "relative/dir")  # invalid by the XDG spec: ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert datadir.base() == str(tmp_path / "home" / ".local" / "share" / "ctxbench")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "file"))
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(UserError) as e:
        datadir.run_path("noise")
    assert "-o FILE" in str(e.value) and "\n" not in str(e.value)
