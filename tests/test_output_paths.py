"""The output-path rule (core/writer.py) and figure files (ui/figures.py):
issue 22, kinds 1 and 2. Nothing outside the named output is touched: a
device or FIFO is written as a stream or refused, never replaced; a
symlink stays a link; a figure never goes through a planted symlink nor
over the command's own inputs; every check comes before measuring.

Cases that would touch the real /dev (as root, the old code replaced
/dev/stdout) run in a private mount namespace with a tmpfs /dev."""
import json
import os
import re
import shutil
import stat
import subprocess
import threading

import pytest

from conftest import FIXTURES, ctxbench_cmd, own_engine, own_engine_env
from test_faults import one_line_error

from ctxbench.cli import main
from ctxbench.core import writer
from ctxbench.core.errors import UserError
from ctxbench.records import RECORDS

BASE = str(FIXTURES / "ring_base.json")
NO_ENGINE = {"CTXBENCH_ENGINE": "/nonexistent/ctxbench-engine"}  # a check that reaches the engine fails


def _cli(*args, timeout=60, **kw):
    return subprocess.run(ctxbench_cmd() + list(args), capture_output=True, text=True, timeout=timeout, **kw)


# ---- streams: -, /dev/stdout, devices, FIFOs ------------------------------------

def test_dash_writes_to_stdout_not_a_file_named_dash(tmp_path):
    p = _cli("report", BASE, "-o", "-", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("<!DOCTYPE html>")
    assert not (tmp_path / "-").exists()


def _private_dev(script: str, cwd) -> subprocess.CompletedProcess:
    """`script` (sh) with a tmpfs on /dev holding null, zero, full and the
    std links, in a private mount namespace: the real /dev is never at risk."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("a private mount namespace needs root and unshare(1)")
    setup = ("mount -t tmpfs tmpfs /dev && mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/zero c 1 5 "
             "&& mknod -m 666 /dev/full c 1 7 && ln -s /proc/self/fd /dev/fd "
             "&& ln -s /proc/self/fd/1 /dev/stdout && ln -s /proc/self/fd/2 /dev/stderr")
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", f"{setup} && {script}"],
                       capture_output=True, text=True, timeout=120, cwd=cwd)
    if p.returncode == 97 or "unshare failed" in p.stderr or "mount: " in p.stderr[:200]:
        pytest.skip(f"no private mount namespace here: {p.stderr.strip()[:200]}")
    return p


def test_dev_stdout_redirected_to_a_file_fills_the_file_and_keeps_the_link(tmp_path):
    cmd = " ".join(ctxbench_cmd())
    p = _private_dev(f"{cmd} report {BASE} -o /dev/stdout > out.html; echo rc=$? >&2; "
                     "test -L /dev/stdout && echo LINK >&2; ls -A /dev >&2", tmp_path)
    assert "rc=0" in p.stderr, p.stderr
    assert "LINK" in p.stderr, "the /dev/stdout link was replaced"
    assert (tmp_path / "out.html").read_text().startswith("<!DOCTYPE html>")
    assert ".ctxbench-" not in p.stderr, "a temporary file was left in /dev"


# one in make check, the others in make test (each a subprocess shell: under a minute for check)
@pytest.mark.parametrize("name", ["/dev/null", *(pytest.param(n, marks=pytest.mark.slow) for n in ("/dev/fd/1", "/dev/stderr"))])
def test_devices_and_fds_are_written_as_streams_never_replaced(tmp_path, name):
    cmd = " ".join(ctxbench_cmd())
    p = _private_dev(f"{cmd} report {BASE} -o {name} >out.txt 2>err.txt; echo rc=$?; "
                     "stat -c %F /dev/null; test -L /dev/stdout && test -L /dev/stderr && echo LINKS", tmp_path)
    assert "rc=0" in p.stdout, (p.stdout, (tmp_path / "err.txt").read_text())
    assert "character special file" in p.stdout and "LINKS" in p.stdout, p.stdout
    if name != "/dev/null":
        got = (tmp_path / ("err.txt" if name == "/dev/stderr" else "out.txt")).read_text()
        assert "<!DOCTYPE html>" in got


def _reader(fifo, got):
    with open(fifo, "rb") as f:
        got.append(f.read())


def test_fifo_with_a_reader_gets_the_document(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    t = threading.Thread(target=_reader, args=(fifo, got), daemon=True)
    t.start()
    p = _cli("report", BASE, "-o", str(fifo))
    t.join(10)
    assert p.returncode == 0, p.stderr
    assert got and got[0].startswith(b"<!DOCTYPE html>")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_fifo_nobody_reads_is_refused_at_once_before_measuring(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    p = _cli("run", "--ids", "timer/rdtsc", "-o", str(fifo), timeout=20, env=own_engine_env(NO_ENGINE["CTXBENCH_ENGINE"]))
    assert p.returncode == 2 and "nobody reads" in p.stderr, p.stderr
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


# ---- files and symlinks -----------------------------------------------------------

def test_symlink_to_a_file_stays_a_link(tmp_path, capsys):
    real = tmp_path / "real.html"
    real.write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(real)
    assert main(["report", BASE, "-o", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text().startswith("<!DOCTYPE html>")
    assert sorted(os.listdir(tmp_path)) == ["link.html", "real.html"]


def test_symlink_to_nothing_is_refused(tmp_path, capsys):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "nowhere" / "x.json")
    assert "symlink to nothing" in one_line_error(capsys, ["report", BASE, "-o", str(link)])
    assert link.is_symlink()


def test_directory_and_unwritable_place_refused_before_measuring(tmp_path, capsys, monkeypatch):
    own_engine(monkeypatch, NO_ENGINE["CTXBENCH_ENGINE"])  # reaching the engine is measuring
    assert "is a directory" in one_line_error(capsys, ["run", "--ids", "timer/rdtsc", "-o", str(tmp_path)])
    # /proc takes no new file; root passes os.access() there, so the place is tried
    assert "cannot create a file" in one_line_error(capsys, ["noise", "-o", "/proc/ctxbench.json"])
    # an empty name is no file: said at once, not once the run is over
    assert "an empty file name" in one_line_error(capsys, ["peers", "-o", ""])


@pytest.mark.parametrize("becomes", ["fifo", "symlink", "directory"])
def test_name_that_changes_while_measuring_is_not_replaced(tmp_path, monkeypatch, becomes):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "r.json"
    out = writer.check_writable(str(target))  # decided before measuring
    victim = tmp_path / "victim"
    victim.write_text("keep")
    {"fifo": lambda: os.mkfifo(target), "symlink": lambda: target.symlink_to(victim),
     "directory": lambda: target.mkdir()}[becomes]()
    with pytest.raises(UserError) as e:
        writer.write_results(out, RECORDS.read({"schema": "ctxbench/1", "results": [{"id": "x", "samples": [1.0]}]}))
    assert e.value.code == 1 and "kept in" in str(e.value)
    assert victim.read_text() == "keep"
    assert {"fifo": stat.S_ISFIFO, "symlink": stat.S_ISLNK, "directory": stat.S_ISDIR}[becomes](
        os.lstat(target).st_mode)
    assert [p for p in os.listdir(tmp_path) if p.startswith("ctxbench-unsaved-")]


def test_replaced_file_keeps_its_permissions(tmp_path):
    f = tmp_path / "r.html"
    f.write_text("old")
    f.chmod(0o600)
    writer.write_text(writer.check_writable(str(f)), "new")
    assert f.read_text() == "new" and stat.S_IMODE(os.stat(f).st_mode) == 0o600


def test_escapes_in_a_file_name_are_shown_as_escapes(tmp_path, capsys):
    bad = tmp_path / "e\x1b[31mvil"
    bad.mkdir()
    err = one_line_error(capsys, ["report", BASE, "-o", str(bad)])
    assert "\x1b" not in err and "\\x1b[31m" in err


# ---- figures ------------------------------------------------------------------------

def test_figure_never_follows_a_planted_symlink(tmp_path):
    import matplotlib.pyplot as plt

    from ctxbench.ui import figures
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    d = tmp_path / "figs"
    d.mkdir()
    (d / "ring.png").symlink_to(victim)
    fig, _ = plt.subplots()
    paths = figures.save(fig, str(d), "ring")
    assert victim.read_text() == "keep"
    assert all(os.path.isfile(p) and not os.path.islink(p) for p in paths)
    assert sorted(os.listdir(d)) == ["ring.png", "ring.svg"]


def test_markdown_figures_never_follow_a_planted_symlink(tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (tmp_path / "r-figures").mkdir()
    (tmp_path / "r-figures" / "figure-1-0.png").symlink_to(victim)
    assert main(["report", BASE, "-o", str(tmp_path / "r.html"), "--markdown", str(tmp_path / "r.md")]) == 0
    assert victim.read_text() == "keep"
    assert not (tmp_path / "r-figures" / "figure-1-0.png").is_symlink()


def test_report_never_writes_a_figure_over_its_own_input(tmp_path, capsys):
    d = tmp_path / "r-figures"
    d.mkdir()
    src = d / "figure-1-0.png"  # a results file that happens to bear a figure's name
    shutil.copy(BASE, src)
    before = src.read_bytes()
    err = one_line_error(capsys, ["report", str(src), "-o", str(tmp_path / "r.html"),
                                  "--markdown", str(tmp_path / "r.md")])
    assert "own files" in err
    assert src.read_bytes() == before
    assert not (tmp_path / "r.html").exists(), "the HTML was written before the figures were checked"


def test_report_never_writes_a_figure_over_its_own_html(tmp_path, capsys):
    html = tmp_path / "r-figures" / "figure-1-0.png"
    html.parent.mkdir()
    one_line_error(capsys, ["report", BASE, "-o", str(html), "--markdown", str(tmp_path / "r.md")])
    assert not html.exists() and not (tmp_path / "r.md").exists()


def test_markdown_figure_directory_that_is_a_file_stops_before_writing(tmp_path, capsys):
    (tmp_path / "r-figures").write_text("a file")
    err = one_line_error(capsys, ["report", BASE, "-o", str(tmp_path / "r.html"),
                                  "--markdown", str(tmp_path / "r.md")])
    assert "not a directory" in err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("command", ["ring", "noise", "tasks", "irq", "anatomy", "sweep"])
def test_plot_directory_under_a_file_is_refused_before_measuring(tmp_path, capsys, monkeypatch, command):
    own_engine(monkeypatch, NO_ENGINE["CTXBENCH_ENGINE"])
    (tmp_path / "file").write_text("x")
    err = one_line_error(capsys, [command, "--plot", str(tmp_path / "file" / "figs"),
                                  "-o", str(tmp_path / "r.json")], code=2)
    assert "not a directory" in err
    assert not (tmp_path / "r.json").exists()


def test_figures_after_measuring_fail_in_one_line_naming_the_kept_results(tmp_path):
    from ctxbench.lifecycle import Lifecycle
    life = Lifecycle("noise", str(tmp_path / "n.json"))
    (tmp_path / "figs").mkdir()
    (tmp_path / "figs" / "x.png").mkdir()  # a directory where a figure goes
    import matplotlib.pyplot as plt
    fig, _ = plt.subplots()
    with pytest.raises(UserError) as e:
        life.figures(str(tmp_path / "figs"), [("x", fig)])
    assert e.value.code == 1 and "results written to" in str(e.value) and "\n" not in str(e.value)
    assert os.path.isdir(tmp_path / "figs" / "x.png") and not os.path.exists(tmp_path / "figs" / "x.svg")


def test_every_error_line_shows_escapes_as_escapes(capsys):
    # cli.main escapes the whole line: argparse echoes arguments, commands echo ids
    err = one_line_error(capsys, ["report", BASE, "--no-such\x1b[2J\nflag"])
    assert "\x1b" not in err and "\\x1b[2J\\x0aflag" in err


def test_a_document_that_does_not_fit_the_model_is_kept_and_named_in_one_line(tmp_path, monkeypatch):
    """lifecycle.document makes the Document record; a section the model
    refuses (a writer's bug) costs the command one line naming its JSON
    path, and the measurement is kept in a fallback file, not lost."""
    from ctxbench.lifecycle import Lifecycle
    monkeypatch.chdir(tmp_path)
    life = Lifecycle("noise", str(tmp_path / "n.json"), store="off")
    header = {"tool": {"name": "ctxbench-engine"}, "environment": {"hostname": "h"}}
    doc = life.document(header, [], {"seconds": 1.5})
    assert doc.noise.seconds == 1.5 and doc.noise.started == life.started  # a record, with `started`
    with pytest.raises(UserError) as e:
        life.document(header, [], {"seconds": "one and a half"})
    line = str(e.value)
    assert e.value.code == 1 and "\n" not in line and "`$.noise.seconds`" in line
    kept = re.search(r"kept in '?([^' )]+)", line).group(1)
    assert json.loads(open(kept).read())["noise"]["seconds"] == "one and a half"
    assert not (tmp_path / "n.json").exists()


@pytest.mark.parametrize("name", ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"])
def test_standard_input_is_never_an_output(tmp_path, name):
    """Its link leads to the file the input comes from: writing there would
    replace that file (`-o /dev/stdin < precious.txt`). Every command's
    Output refuses it, before anything is measured."""
    with pytest.raises(UserError, match="standard input"):
        writer.check_writable(name)


def test_two_names_of_one_new_file_through_a_symlinked_directory_are_one(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert writer.same_file(str(tmp_path / "link/a.csv"), str(tmp_path / "real/a.csv"))
    assert not writer.same_file(str(tmp_path / "link/a.csv"), str(tmp_path / "real/b.csv"))


def test_a_staged_file_is_all_or_nothing(tmp_path):
    """Written piece by piece beside its name; nothing there until commit,
    nothing left of it after discard."""
    path = tmp_path / "out.bin"
    path.write_bytes(b"old")
    staged = writer.Staged(str(path))
    staged.file.write(b"new")
    assert path.read_bytes() == b"old"
    staged.discard()
    assert os.listdir(tmp_path) == ["out.bin"] and path.read_bytes() == b"old"
    staged = writer.Staged(str(path))
    staged.file.write(b"new")
    staged.commit()
    assert os.listdir(tmp_path) == ["out.bin"] and path.read_bytes() == b"new"
