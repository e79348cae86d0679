"""The store at its edges (issue 33): one rule decides and checks a store
before anything is measured or read (core/store/choice.py), every fault of
the database is one `ctxbench:` line naming the store with its password
masked (core/store/db.py), nothing a command writes can land on the store,
and a selection means the same on SQLite and PostgreSQL
(core/store/query.py). The store cases run on SQLite and a real
PostgreSQL server (tests/postgres_server.py); the damaged-store cases use a
file whose pages after the header are overwritten. None measures: where a
measuring command must refuse before measuring, its engine is a stub that
writes down every call (so a call is seen, and fails the test)."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import time

import pytest

from conftest import ctxbench_cmd, own_engine, own_engine_env

pytest.importorskip("sqlalchemy")
from sqlalchemy import select, text  # noqa: E402

from ctxbench.cli import main  # noqa: E402
from ctxbench.core.store import record  # noqa: E402
from ctxbench.core.store.db import Store  # noqa: E402
from ctxbench.core.store.tables import runs  # noqa: E402
from test_store import synthetic  # noqa: E402
from ctxbench.records import RECORDS

BACKENDS = ["sqlite", "postgresql"]
PAGE = 4096


# ---- helpers -------------------------------------------------------------------

def cli(capsys, *argv):
    """The command line in-process: (status, stdout, stderr). An exception
    that escapes main() (a traceback) fails the test by itself."""
    rc = main([str(a) for a in argv])
    got = capsys.readouterr()
    return rc, got.out, got.err


def one_line(capsys, *argv, code=2, words=()):
    rc, out, err = cli(capsys, *argv)
    lines = err.strip().splitlines()
    assert rc == code and len(lines) == 1 and lines[0].startswith("ctxbench: "), (rc, out, err)
    assert "Traceback" not in err and all(w in lines[0] for w in words), lines[0]
    return lines[0]


@pytest.fixture
def store_url(request, tmp_path):
    """A fresh, empty store name of each backend (the database exists, empty)."""
    if request.param == "sqlite":
        return str(tmp_path / "store.sqlite")
    return request.getfixturevalue("server").database(f"e{os.getpid()}_{abs(hash(str(tmp_path))) % 10**8}")


def fill(url: str, docs: list[dict], commit: str | None = None) -> list[int]:
    s = Store(url)
    with s.begin() as conn:
        return [record.add(conn, d, commit)[0] for d in docs]


def files(tmp_path, docs: list[dict], stem: str = "r") -> list[str]:
    out = []
    for i, d in enumerate(docs):
        p = tmp_path / f"{stem}{i}.json"
        p.write_text(json.dumps(d))
        out.append(str(p))
    return out


def damaged(tmp_path, n: int = 40) -> str:
    """A store of n runs whose pages after the first (the header's) are
    overwritten: SQLite opens it and fails on the first page it reads."""
    path = str(tmp_path / "damaged.sqlite")
    fill(path, [synthetic(k) for k in range(n)])
    size = os.path.getsize(path)
    assert size > 3 * PAGE
    with open(path, "r+b") as f:
        f.seek(2 * PAGE)
        f.write(b"\xa5" * (size - 2 * PAGE))
    return path


def stub_engine(tmp_path) -> tuple[str, str]:
    """An engine that writes down each call and fails: a command that
    refuses before measuring never calls it."""
    log = tmp_path / "engine-calls.log"
    stub = tmp_path / "stub-engine"
    stub.write_text(f"#!/bin/sh\necho \"$@\" >> {log}\nexit 3\n")
    stub.chmod(0o755)
    return str(stub), str(log)


def run_sub(*argv, env=None, timeout=120, **kw):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(ctxbench_cmd() + [str(a) for a in argv], capture_output=True, text=True, env=e,
                          timeout=timeout, **kw)


# ---- names: what a store can be ----------------------------------------------------

@pytest.mark.parametrize("name, words", [
    ("", "empty name"),
    ("   ", "empty name"),
    ("sqlite://", "in-memory"),
    ("sqlite:///:memory:", "in-memory"),
    ("sqlite:///x.sqlite?mode=memory&cache=shared", "in-memory"),
    ("ftp://u:hunter2@example.org/x", "is not a store"),
    ("mysql://u:hunter2@db/x", "is not a store"),
])
def test_a_name_that_is_no_store_is_one_line_and_makes_nothing(tmp_path, capsys, monkeypatch, name, words):
    monkeypatch.chdir(tmp_path)
    for argv in (["store", "add", files(tmp_path, [synthetic(1)])[0]], ["store", "info"],
                 ["history", "kernel/*"], ["compare", "--base", "host=a", "--new", "host=b"]):
        line = one_line(capsys, *argv, "--store", name, words=(words,))
        assert "hunter2" not in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r0.json"]


def test_a_reader_never_creates_a_store(tmp_path, capsys, monkeypatch):
    """history, store info and compare's selections on a name nothing was
    recorded in: one line, and no file (the audit's `history --store
    typo.sqlite` made an empty store)."""
    monkeypatch.chdir(tmp_path)
    for argv in (["history", "kernel/*"], ["store", "info"], ["compare", "--base", "host=a", "--new", "host=b"]):
        one_line(capsys, *argv, "--store", "typo.sqlite", words=("no store there",))
    monkeypatch.setenv("CTXBENCH_STORE", str(tmp_path / "env.sqlite"))
    one_line(capsys, "history", "kernel/*", words=("no store there",))
    assert list(tmp_path.iterdir()) == []


def test_the_default_store_is_made_only_by_a_command_that_writes(tmp_path, capsys, monkeypatch):
    data = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.delenv("CTXBENCH_STORE")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "conf"))
    one_line(capsys, "store", "info", words=("no store there",))
    one_line(capsys, "history", "kernel/*", words=("no store there",))
    assert not data.exists()
    rc, out, err = cli(capsys, "store", "add", files(tmp_path, [synthetic(1)])[0])
    assert rc == 0 and (data / "ctxbench" / "store.sqlite").is_file(), err


def test_an_in_memory_store_is_never_said_to_have_added(tmp_path, capsys):
    line = one_line(capsys, "store", "add", files(tmp_path, [synthetic(1)])[0], "--store", "sqlite://")
    assert "added" not in line


@pytest.mark.parametrize("what", ["full", "null", "zero"])
def test_a_device_is_refused_and_no_journal_is_left_beside_it(tmp_path, capsys, what):
    """A copy of /dev/full, /dev/null, /dev/zero (the same device numbers)
    in a directory of the test's own: SQLite would leave
    `<name>-journal` beside it, as the audit found in /dev."""
    if os.geteuid() != 0:
        pytest.skip("mknod needs root")
    dev = tmp_path / what
    os.mknod(dev, stat.S_IFCHR | 0o666, os.stat(f"/dev/{what}").st_rdev)
    doc = files(tmp_path, [synthetic(1)])[0]
    for argv in (["store", "add", doc], ["store", "info"], ["history", "kernel/*"]):
        one_line(capsys, *argv, "--store", dev, words=("a device",))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([what, "r0.json"])


def test_a_directory_fifo_socket_or_dangling_link_is_refused(tmp_path, capsys):
    import socket
    d = tmp_path / "adir"
    d.mkdir()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    link = tmp_path / "link.sqlite"
    link.symlink_to(tmp_path / "nowhere.sqlite")
    doc = files(tmp_path, [synthetic(1)])[0]
    try:
        for name, words in ((d, "a directory"), (fifo, "FIFO or socket"), (tmp_path / "sock", "FIFO or socket"),
                            (link, "symlink to nothing"), (tmp_path / "missing" / "x.sqlite", "does not exist")):
            one_line(capsys, "store", "add", doc, "--store", name, words=(words,))
            one_line(capsys, "history", "kernel/*", "--store", name,
                     words=("no store there" if "missing" in str(name) else words,))
    finally:
        sock.close()
    assert not (tmp_path / "nowhere.sqlite").exists() and not (tmp_path / "missing").exists()


def test_a_symlink_to_a_store_is_used_and_stays_a_link(tmp_path, capsys):
    real = tmp_path / "real.sqlite"
    fill(str(real), [synthetic(1)])
    link = tmp_path / "link.sqlite"
    link.symlink_to(real)
    rc, out, err = cli(capsys, "store", "add", files(tmp_path, [synthetic(2)])[0], "--store", link)
    assert rc == 0 and link.is_symlink(), err
    rc, out, err = cli(capsys, "store", "info", "--store", link)
    assert rc == 0 and "2 run(s)" in out


def test_the_config_file_s_tilde_and_relative_paths(tmp_path, capsys, monkeypatch):
    """store = "~/x.sqlite" is the home's, not a directory named `~`; a
    relative path is the config file's directory's, not the working
    directory's (a new store in every directory a command ran in)."""
    home, conf, work1, work2 = (tmp_path / n for n in ("home", "conf", "w1", "w2"))
    for d in (home, conf / "ctxbench", work1, work2):
        d.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(conf))
    monkeypatch.delenv("CTXBENCH_STORE")
    doc = files(tmp_path, [synthetic(3)])[0]
    (conf / "ctxbench" / "config.toml").write_text('store = "~/runs.sqlite"\n')
    monkeypatch.chdir(work1)
    assert cli(capsys, "store", "add", doc)[0] == 0
    assert (home / "runs.sqlite").is_file() and not (work1 / "~").exists()
    (conf / "ctxbench" / "config.toml").write_text('store = "stores/team.sqlite"\n')
    (conf / "ctxbench" / "stores").mkdir()
    for w in (work1, work2):
        monkeypatch.chdir(w)
        rc, out, err = cli(capsys, "store", "add", doc)
        assert rc == 0, err
    assert (conf / "ctxbench" / "stores" / "team.sqlite").is_file()
    assert not (work1 / "stores").exists() and not (work2 / "stores").exists()
    rc, out, err = cli(capsys, "store", "info")
    assert rc == 0 and "1 run(s)" in out
    monkeypatch.setenv("CTXBENCH_STORE", "~/env.sqlite")  # a tilde the shell never saw
    assert cli(capsys, "store", "add", doc)[0] == 0 and (home / "env.sqlite").is_file()


def test_store_off_from_the_environment_and_on_the_command_line(tmp_path, capsys, monkeypatch):
    """CTXBENCH_STORE=off stops measuring commands recording; a command
    about the store then reads the default one. `--store off` given to
    such a command names no store: refused, not read as a file."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    one_line(capsys, "store", "info", "--store", "off", words=("--store off",))
    one_line(capsys, "store", "info", words=("no store there",))  # the default store, which is not there


# ---- nothing a command writes lands on the store -------------------------------------

def test_history_output_onto_the_store_is_refused_and_the_store_is_intact(tmp_path, capsys):
    store = tmp_path / "v.sqlite"
    fill(str(store), [synthetic(k) for k in range(6)])
    before = store.read_bytes()
    link = tmp_path / "link.json"
    link.symlink_to(store)
    for out in (store, link, f"{store}-journal"):
        one_line(capsys, "history", "kernel/*", "--store", store, "-o", out, words=("results store",))
    fig = tmp_path / "figs"
    fig.mkdir()
    shutil.copy(store, fig / "history.png")
    one_line(capsys, "history", "kernel/*", "--store", fig / "history.png", "--plot", fig, words=("results store",))
    assert store.read_bytes() == before
    rc, out, err = cli(capsys, "store", "info", "--store", store)
    assert rc == 0 and "6 run(s)" in out


def test_compare_junit_onto_the_store_is_refused(tmp_path, capsys, monkeypatch):
    """--junit onto the store a selection reads, the one $CTXBENCH_STORE
    names, or the default one compare reads in passing (core clocks)."""
    store = tmp_path / "v.sqlite"
    a = [synthetic(k) for k in (0, 4)]
    b = [synthetic(k) for k in (1, 5)]
    fill(str(store), a + b)
    before = store.read_bytes()
    fa, fb = files(tmp_path, a, "a"), files(tmp_path, b, "b")
    one_line(capsys, "compare", "--base", "host=host0", "--new", "host=host1", "--store", store,
             "--fail-if-slower", "5%", "--junit", store, words=("results store",))
    monkeypatch.setenv("CTXBENCH_STORE", str(store))
    one_line(capsys, "compare", "--base", *fa, "--new", *fb, "--fail-if-slower", "5%", "--junit", store,
             words=("results store",))
    monkeypatch.delenv("CTXBENCH_STORE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    default = tmp_path / "data" / "ctxbench" / "store.sqlite"
    default.parent.mkdir(parents=True)
    shutil.copy(store, default)
    one_line(capsys, "compare", "--base", *fa, "--new", *fb, "--fail-if-slower", "5%", "--junit", default,
             words=("results store",))
    assert store.read_bytes() == before and default.read_bytes() == before


def test_a_measuring_command_refuses_a_store_it_cannot_use_before_measuring(tmp_path, capsys, monkeypatch):
    """`run`, `runtimes`, `noise` with a store they cannot use: refused in
    one line before the engine is called once (the audit's `--store
    ftp://...` measured everything, then warned and exited 0)."""
    stub, log = stub_engine(tmp_path)
    own_engine(monkeypatch, stub)
    store = tmp_path / "v.sqlite"
    fill(str(store), [synthetic(1)])
    d = tmp_path / "adir"
    d.mkdir()
    cases = [(["--store", "ftp://host/x"], "is not a store"), (["--store", ""], "empty name"),
             (["--store", "sqlite://"], "in-memory"), (["--store", d], "a directory"),
             (["--store", tmp_path / "no" / "x.sqlite"], "does not exist"),
             (["--store", store, "-o", store], "results store"),
             (["--store", store, "-o", f"{store}-wal"], "results store")]
    for command in (["run", "--quick"], ["runtimes", "--quick"], ["noise", "--seconds", "1"]):
        for extra, words in cases:
            argv = command + ([] if "-o" in extra else ["-o", tmp_path / "out.json"]) + extra
            one_line(capsys, *argv, words=(words,))
    assert not os.path.exists(log), open(log).read()
    assert not (tmp_path / "out.json").exists()
    with Store(str(store)).begin(write=False) as conn:
        assert conn.execute(text("SELECT count(*) FROM runs")).scalar_one() == 1


def test_a_read_only_store_is_refused_to_a_writer_before_measuring_and_read_by_a_reader(tmp_path):
    """The store's directory mounted read-only (a private mount namespace:
    root writes a file of mode 0444): `run` and `store add` are refused
    before anything is measured or read; history and store info read it."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("a read-only mount needs root and unshare(1)")
    ro = tmp_path / "ro"
    ro.mkdir()
    fill(str(ro / "v.sqlite"), [synthetic(k) for k in range(3)])
    stub, log = stub_engine(tmp_path)
    doc = files(tmp_path, [synthetic(7)])[0]
    cmd = " ".join(ctxbench_cmd())
    script = (f"mount --bind -o ro {ro} {ro} || exit 97; "
              f"{cmd} run --quick -o {tmp_path}/out.json --store {ro}/v.sqlite; echo rc=$?; "
              f"{cmd} store add {doc} --store {ro}/v.sqlite; echo rc=$?; "
              f"{cmd} store info --store {ro}/v.sqlite; echo rc=$?; "
              f"{cmd} history 'kernel/*' --store {ro}/v.sqlite --host host1; echo rc=$?")
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script], capture_output=True,
                       text=True, timeout=120, env=own_engine_env(stub))
    if p.returncode == 97:
        pytest.skip(f"no read-only bind mount here: {p.stderr[:200]}")
    assert p.stdout.count("rc=2") == 2 and p.stdout.count("rc=0") == 2, p.stdout + p.stderr
    errs = p.stderr.strip().splitlines()
    assert len(errs) == 2 and all("read-only" in e for e in errs) and "Traceback" not in p.stderr, p.stderr
    assert "3 run(s)" in p.stdout and "kernel/thread/pipe/same-cpu on host1" in p.stdout
    assert not os.path.exists(log) and sorted(os.listdir(ro)) == ["v.sqlite"]


# ---- damaged and foreign stores ---------------------------------------------------------

def test_a_damaged_store_is_one_line_for_every_command_that_reads_or_fills_it(tmp_path, capsys):
    path = damaged(tmp_path)
    doc = files(tmp_path, [synthetic(99)])[0]
    for argv in (["store", "info"], ["store", "add", doc], ["history", "kernel/*"],
                 ["history", "kernel/*", "--across", "host"],
                 ["compare", "--base", "host=host0", "--new", "host=host1"]):
        one_line(capsys, *argv, "--store", path, words=("damaged.sqlite", "damaged"))


def test_a_truncated_store_and_a_damaged_kept_document_are_one_line(tmp_path, capsys):
    path = tmp_path / "t.sqlite"
    fill(str(path), [synthetic(k) for k in range(30)])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    one_line(capsys, "history", "kernel/*", "--store", path)
    good = tmp_path / "g.sqlite"
    fill(str(good), [synthetic(k) for k in range(4)])
    with sqlite3.connect(good) as c:
        c.execute("UPDATE runs SET document = ? WHERE host = 'host1'", (b"not zlib at all",))
    line = one_line(capsys, "compare", "--base", "host=host0", "--new", "host=host1", "--store", good,
                    words=("damaged",))
    assert "run " in line


def test_kept_documents_are_shown_escaped(tmp_path, capsys):
    """A shared store holds what any client put there: a kernel, a host, a
    hostname in a kept document with terminal escapes (an OSC title, a
    reset, a colour) reach compare's "environment differences", history's
    rows and store info only as \\x1b escapes."""
    store = str(tmp_path / "v.sqlite")
    bad = []
    for k in range(4):
        d = synthetic(k)
        d["environment"]["hostname"] = "box\x1b]0;pwned\x07"
        d["environment"]["kernel"]["release"] = f"6.{k % 2}\x1bc\x1b[31m"
        d["environment"]["cpu"]["microcode"] = "0x1\x1b[2J"
        bad.append(d)
    fill(store, bad)
    rc, out, err = cli(capsys, "compare", "--base", "kernel=6.0*", "--new", "kernel=6.1*", "--store", store)
    assert rc == 0, err
    rc2, out2, err2 = cli(capsys, "history", "kernel/*", "--store", store, "--by", "microcode")
    rc3, out3, err3 = cli(capsys, "history", "kernel/*", "--store", store, "--across", "host")
    rc4, out4, _ = cli(capsys, "store", "info", "--store", store)
    for o in (out, err, out2, err2, out3, err3, out4):
        assert "\x1b" not in o and "\x07" not in o
    assert "kernel: 6.0" in out  # a kept document is read as a file is: its control characters replaced
    assert "box\\x1b]0;pwned\\x07" in out3 and "0x1\\x1b[2J" in out2 and "box\\x1b]0;pwned\\x07" in out4


# ---- PostgreSQL faults ------------------------------------------------------------------

def _psql(url: str, *statements: str) -> None:
    import psycopg
    with psycopg.connect(url, autocommit=True) as c:
        for s in statements:
            c.execute(s)


def test_a_role_without_insert_or_create_is_one_line(server, tmp_path, capsys):
    url = server.database(f"ro{os.getpid()}")
    fill(url, [synthetic(1)])
    _psql(url, "CREATE ROLE reader LOGIN", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
    as_reader = url.replace("//ctxbench@", "//reader@")
    doc = files(tmp_path, [synthetic(2)])[0]
    one_line(capsys, "store", "add", doc, "--store", as_reader, words=("permission denied",))
    rc, out, err = cli(capsys, "store", "info", "--store", as_reader)
    assert rc == 0 and "1 run(s)" in out, err
    empty = server.database(f"rc{os.getpid()}")
    _psql(empty, "CREATE ROLE nocreate LOGIN", "REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    one_line(capsys, "store", "add", doc, "--store", empty.replace("//ctxbench@", "//nocreate@"),
             words=("permission denied",))


@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_values_longer_than_a_column_are_kept_alike_on_both_backends(store_url, tmp_path, capsys):
    """A host name, kernel, id longer than PostgreSQL's columns (which
    SQLite does not enforce), a NUL and a lone surrogate: the run is added
    on both backends with the same rows (cut to the column), its document
    whole; a --commit longer than the column is refused before anything."""
    d = synthetic(5)
    d["environment"]["hostname"] = "h" * 300 + "\udc80"
    d["environment"]["kernel"]["release"] = "6." + "9" * 400
    d["results"][0]["id"] = "kernel/" + "x" * 700
    d["environment"]["cpu"]["model"] = "CPU\u0000 model"
    f = files(tmp_path, [d])[0]
    rc, out, err = cli(capsys, "store", "add", f, "--store", store_url)
    assert rc == 0 and "1 of 1" in out, err
    s = Store(store_url)
    with s.begin() as conn:
        row = conn.execute(select(runs.c.host, runs.c.kernel, runs.c.cpu_model)).one()
        keys = conn.execute(text("SELECT point_key FROM results ORDER BY id")).scalars().all()
        doc = record.document(conn, 1, RECORDS)
    assert row.host == "h" * 255 and len(row.kernel) == 255 and "\0" not in row.cpu_model
    assert len(keys[0]) == 512 and doc.results[0].id == d["results"][0]["id"]
    one_line(capsys, "store", "add", f, "--store", store_url, "--commit", "c" * 65, words=("--commit",))


@pytest.mark.slow  # a PostgreSQL server of its own, stopped mid-add
def test_a_server_stopped_mid_add_is_one_line_and_a_stopped_server_too(tmp_path, capsys):
    """A server of this test's own, stopped (immediate shutdown) while
    `store add` adds 400 files: one line, exit 2; then history on it."""
    from postgres_server import Server
    srv = Server()
    stopped = False
    try:
        url = srv.database("mid")
        fill(url, [synthetic(0)])
        docs = files(tmp_path, [synthetic(k) for k in range(1, 401)])
        proc = subprocess.Popen(ctxbench_cmd() + ["store", "add", *docs, "--store", url], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and not _adding(url):
            time.sleep(0.01)
        assert proc.poll() is None, "the add ended before it was seen adding"
        srv.stop()
        stopped = True
        out, err = proc.communicate(timeout=120)
        lines = err.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in err, (proc.returncode, err)
        assert lines[0].startswith("ctxbench: store postgresql://ctxbench@127.0.0.1:"), lines
        one_line(capsys, "history", "kernel/*", "--store", url, words=("store postgresql://",))
    finally:
        if not stopped:
            srv.stop()


def _adding(url: str) -> bool:
    """Another connection has a transaction open that has written rows."""
    import psycopg
    with psycopg.connect(url, connect_timeout=2, autocommit=True) as c:
        return c.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                         "AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL").fetchone()[0] > 0


def test_an_empty_database_is_no_store_to_a_reader_and_stays_empty(server, capsys):
    url = server.database(f"empty{os.getpid()}")
    for argv in (["store", "info"], ["history", "kernel/*"], ["compare", "--base", "host=a", "--new", "host=b"]):
        one_line(capsys, *argv, "--store", url, words=("no store there yet",))
    import psycopg
    with psycopg.connect(url) as c:
        assert c.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()[0] == 0
    one_line(capsys, "store", "info", "--store", url.rsplit("/", 1)[0] + "/no_such_database",
             words=("no_such_database",))


# ---- secrets -----------------------------------------------------------------------------

@pytest.mark.parametrize("password", ["hun@ter2secret", "se:cr@et/x", "p%40ss%3Aword"])
def test_a_password_is_never_printed_whatever_it_holds(server, capsys, password):
    """The user information ends at the last '@', so a password holding
    '@' (as typed, or percent-encoded) is neither cut into the host name
    nor printed; the server's answer names the role, not the password."""
    host = server.url.split("@", 1)[1].rsplit("/", 1)[0]
    for url in (f"postgresql://nobody:{password}@{host}/postgres",
                f"postgresql://nobody:{password}@127.0.0.1:1/postgres",
                f"postgresql://nobody@{host}/postgres?password={password}&sslmode=disable"):
        line = one_line(capsys, "store", "info", "--store", url)
        from urllib.parse import unquote
        for secret in {password, unquote(password)} | set(password.replace("@", " ").replace(":", " ").split()):
            if len(secret) >= 3:
                assert secret not in line, line
        assert "***" in line


def test_the_password_of_a_store_that_works_is_masked_where_it_is_named(server, tmp_path, capsys):
    url = server.database(f"pw{os.getpid()}")
    with_pw = url.replace("//ctxbench@", "//ctxbench:t0ps3cret@")  # trust authentication: any password
    rc, out, err = cli(capsys, "store", "add", files(tmp_path, [synthetic(1)])[0], "--store", with_pw)
    assert rc == 0 and "t0ps3cret" not in out + err and "ctxbench:***@" in out, out + err
    rc, out, err = cli(capsys, "store", "info", "--store", with_pw)
    assert rc == 0 and "t0ps3cret" not in out + err


# ---- selections: the same runs on both backends -----------------------------------------

SELECT_HOSTS = ["alpha", "ALPHA2", "host_1", "hostX1", "h%", "a/b", "a[1]", "q?"]


def selection_docs() -> list[dict]:
    docs = []
    times = ["2026-01-03T00:00:00", "2026-01-03T12:00:00", "2026-01-03T23:59:30", "2026-01-04T00:00:00"]
    kernels = ["6.1.0", "6.1_0", "6.10.0", "6.1%0"]
    for i, h in enumerate(SELECT_HOSTS):
        for j, t in enumerate(times):
            d = synthetic(i * 10 + j)
            d["environment"]["hostname"] = h
            d["environment"]["kernel"]["release"] = kernels[(i + j) % 4]
            d["run"]["started"] = t
            docs.append(d)
    return docs


SELECTIONS = [
    ("host=alpha*", {"alpha"}),
    ("host=ALPH*", {"ALPHA2"}),
    ("host=host_1", {"host_1"}),
    ("host=host_*", {"host_1"}),
    ("host=h%", {"h%"}),
    ("host=h%*", {"h%"}),
    ("host=*%*", {"h%"}),
    ("host=a/*", {"a/b"}),
    ("host=a[*", {"a[1]"}),
    ("host=q?*", {"q?"}),
    ("host=*1", {"host_1", "hostX1"}),
    ("host=*", set(SELECT_HOSTS)),
]


@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_selections_select_the_same_runs_on_both_backends(store_url):
    """`*` is the only wildcard; `_`, `%`, `/`, `?`, `[` match themselves;
    case counts; a date names its whole day, a time its minute."""
    from ctxbench.compare import sides
    docs = selection_docs()
    ids = fill(store_url, docs)
    host_of = dict(zip(ids, (d["environment"]["hostname"] for d in docs)))
    s = Store(store_url)
    with s.begin(write=False) as conn:
        for spec, want in SELECTIONS:
            assert {host_of[i] for i in sides.select_runs(conn, spec)} == want, spec
        kern = lambda spec: sorted(i for i in sides.select_runs(conn, spec))  # noqa: E731
        k_exact = {i for i, d in zip(ids, docs) if d["environment"]["kernel"]["release"] == "6.1_0"}
        assert set(kern("kernel=6.1_0")) == k_exact and set(kern("kernel=6.1_*")) == k_exact
        k_pct = {i for i, d in zip(ids, docs) if d["environment"]["kernel"]["release"] == "6.1%0"}
        assert set(kern("kernel=6.1%*")) == k_pct
        day = {i for i, d in zip(ids, docs) if d["run"]["started"].startswith("2026-01-03")}
        assert set(kern("until=2026-01-03")) == day
        assert set(kern("since=2026-01-03,until=2026-01-03")) == day
        assert set(kern("since=2026-01-04")) == set(ids) - day
        assert set(kern("until=2026-01-03T23:59")) == day
        assert set(kern("until=2026-01-03T23:59:00")) == day - {
            i for i, d in zip(ids, docs) if d["run"]["started"].endswith("23:59:30")}
        assert set(kern("until=9999-12-31")) == set(ids)


def test_history_filters_mean_the_same_on_both_backends(tmp_path, server, capsys):
    """history --host, --kernel, --until over the same runs in a SQLite
    file and a PostgreSQL database print the same series."""
    docs = selection_docs()
    urls = [str(tmp_path / "s.sqlite"), server.database(f"hf{os.getpid()}")]
    for u in urls:
        fill(u, docs)
    for filters in (["--host", "ALPH*"], ["--host", "host_*"], ["--kernel", "6.1_0"], ["--kernel", "6.1%*"],
                    ["--until", "2026-01-03"], ["--host", "a[*", "--since", "2026-01-03T12:00"]):
        got = []
        for u in urls:
            rc, out, err = cli(capsys, "history", "kernel/thread/pipe/same-cpu", "--store", u, *filters)
            got.append((rc, out.replace(u, "URL"), err.replace(u, "URL")))
        assert got[0] == got[1], filters
    rc, out, _ = cli(capsys, "history", "kernel/thread/pipe/same-cpu", "--store", urls[0], "--until", "2026-01-03",
                     "--host", "alpha")
    assert rc == 0 and "on alpha: 3 run(s)" in out
    one_line(capsys, "history", "kernel/*", "--store", urls[0], "--host", "ALPHA", words=("no run",))


def test_a_run_dated_with_a_zone_is_kept_as_the_same_instant_on_both_backends(tmp_path, server):
    from ctxbench.compare import sides
    d = synthetic(1)
    d["run"]["started"] = "2026-01-03T10:00:00+00:00"
    urls = [str(tmp_path / "z.sqlite"), server.database(f"tz{os.getpid()}")]
    got = []
    for u in urls:
        fill(u, [d])
        with Store(u).begin(write=False) as conn:
            got.append((conn.execute(select(runs.c.started)).scalar_one(),
                        sides.select_runs(conn, "since=2026-01-03T10:00:00+00:00,until=2026-01-03T10:00:00+00:00")))
    assert got[0] == got[1] and got[0][1] == [1], got


# ---- smaller ----------------------------------------------------------------------------

def test_store_without_an_action_is_a_ctxbench_line(capsys):
    line = one_line(capsys, "store", words=("say add or info",))
    assert line.startswith("ctxbench: store: ")


def test_a_store_read_in_passing_costs_compare_nothing(tmp_path, capsys, monkeypatch):
    """compare with files only reads the store in passing (core clocks): a
    damaged store there costs nothing, and is not written."""
    path = damaged(tmp_path)
    before = open(path, "rb").read()
    a, b = files(tmp_path, [synthetic(0)], "a"), files(tmp_path, [synthetic(1)], "b")
    monkeypatch.setenv("CTXBENCH_STORE", path)
    rc, out, err = cli(capsys, "compare", *a, *b)
    assert rc == 0 and "Traceback" not in err and open(path, "rb").read() == before


@pytest.mark.slow  # a figure of many panels
def test_history_plot_over_many_series_draws_a_bounded_figure_and_says_so(tmp_path, capsys):
    """`history '*' --plot` over 40 series (one panel each): the figure
    holds the first MAX_PANELS, and the command says which (the audit's
    hundreds of panels ran a minute without a word, for a figure too tall
    to read)."""
    import copy

    from ctxbench.history import command as history
    MAX_PANELS = getattr(history, "MAX_PANELS", 24)
    url = str(tmp_path / "many.sqlite")
    docs = []
    for k in range(6):
        d = synthetic(k)
        d["environment"]["hostname"] = "one"
        one = d["results"][0]
        d["results"] = [dict(copy.deepcopy(one), id=f"kernel/x{j}/pipe/same-cpu") for j in range(40)]
        docs.append(d)
    fill(url, docs)
    rc, out, err = cli(capsys, "history", "*", "--store", url, "--plot", tmp_path / "figs")
    assert rc == 0, err
    assert f"the first {MAX_PANELS} of 40 series" in out
    svg = (tmp_path / "figs" / "history.svg").read_text()
    assert svg.count('<g id="axes_') == MAX_PANELS


def test_no_command_writes_over_the_store(tmp_path, capsys, monkeypatch):
    """The output rule (core/writer.py) knows the store too: `report -o`
    onto the store $CTXBENCH_STORE names, or onto the default one, is
    refused like any input (a command that never opens the store can
    still be told to write over it)."""
    from conftest import FIXTURES
    store = tmp_path / "v.sqlite"
    fill(str(store), [synthetic(1)])
    before = store.read_bytes()
    monkeypatch.setenv("CTXBENCH_STORE", str(store))
    one_line(capsys, "report", FIXTURES / "ring_base.json", "-o", store, words=("results store",))
    monkeypatch.delenv("CTXBENCH_STORE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "data" / "ctxbench").mkdir(parents=True)
    shutil.copy(store, tmp_path / "data" / "ctxbench" / "store.sqlite")
    one_line(capsys, "report", FIXTURES / "ring_base.json", "--markdown", tmp_path / "data" / "ctxbench" /
             "store.sqlite", words=("results store",))
    assert store.read_bytes() == before == (tmp_path / "data" / "ctxbench" / "store.sqlite").read_bytes()
