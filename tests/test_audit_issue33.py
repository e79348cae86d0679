"""The fresh audit issue 33 asked for, kept as the list its tests were
drawn from: new cases (not the 47 the issue lists, which
tests/test_store_edges.py, test_fleet_edges.py, test_interrupts.py and
test_store_recording.py replay) over `store`, `history`, `compare` with
store selections, `fleet`, the measuring commands' --store, config.toml
and $CTXBENCH_STORE, tried as a hostile but realistic user would.

Each row of CASES, SELECTIONS, INTERRUPTS and FLEET_CASES is one case: an id, the kind
of failure it probes (the issue's kinds: 1 the store overwritten, 2 a
database error as a traceback, 3 fleet results lost, 4 raw escapes on the
terminal, 5 an unusable store found after measuring, 6 fleet's --limit,
7 store names and creation, 8 secrets, 9 selections that differ between
SQLite and PostgreSQL, 10 Ctrl-C), what was tried, and what must happen.
Every case is also held to what all share:

- no traceback; a refusal is one line `ctxbench: ...` and exit 2 (1 where
  a host or a write failed after work was done);
- no raw control character on the terminal (an ESC, a BEL);
- no password printed (every URL with one uses `hunter2pw`);
- no file changed but those the case may write, and no file made but
  those it may make (the store, its journal, a config's relative store,
  /dev-like devices: all checked by content);
- no engine called by a measuring command that refuses its store (the
  engine is a stub that leaves a file when it is called).

The audit, 2026-11-26, on this branch: 180 cases (148 in CASES, 15
selections each on SQLite and PostgreSQL, 12 Ctrl-C timings, 5 fleets of
real OpenSSH servers), no failure of kinds 1-10. It found, and this branch fixed: `history --across -o`
wrote nothing; `report -o` onto the store (a command that never opens one)
overwrote every run; a file without SQLite's header, or another program's
SQLite database, was found only after a measuring command had measured; a
selection naming a key twice let one silently win; Ctrl-C during the
interpreter's teardown killed the process without a word; the fleet made
its data directory before refusing its store."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import ctxbench_cmd

pytest.importorskip("sqlalchemy")
from ctxbench.cli import main  # noqa: E402
from ctxbench.core.store import record  # noqa: E402
from ctxbench.core.store.db import Store  # noqa: E402
from test_store import synthetic  # noqa: E402
from test_store_edges import damaged, fill, selection_docs  # noqa: E402

SECRET = "hunter2pw"


@dataclass(frozen=True)
class Case:
    id: str
    kind: int
    what: str
    argv: tuple
    rc: int
    words: tuple = ()
    env: tuple = ()               # (name, value) pairs; a value None removes the variable
    writes: tuple = ()            # files (relative to the case's directory) it may change
    makes: tuple = ()             # files or directories it may make
    config: str | None = None     # config.toml's text
    lines: int | None = 1         # lines on stderr for a refusal (None: not counted)
    stdout: tuple = ()            # words stdout must hold


def C(id, kind, what, argv, rc, words=(), **kw) -> Case:
    return Case(id, kind, what, tuple(argv), rc, tuple(words) if isinstance(words, (list, tuple)) else (words,),
                **{k: tuple(v) if isinstance(v, list) else v for k, v in kw.items()})


DOC = "r0.json"
SEL = ["--base", "host=host0", "--new", "host=host1"]
STUB = (("CTXBENCH_ENGINE", "{D}/stub-engine"), ("CTXBENCH_ENGINE_REPLAY", None))  # the stub, not a recording
PG_NEVER = "postgresql://someone:" + SECRET + "@127.0.0.1:1/none"

CASES = [
    # ---- 7: store names and creation --------------------------------------------------------------------
    C("N01", 7, "store add into a new file", ["store", "add", DOC, "--store", "{D}/new.sqlite"], 0, makes=["new.sqlite"]),
    C("N02", 7, "store add where the directory is missing", ["store", "add", DOC, "--store", "{D}/nodir/x.sqlite"], 2,
      "does not exist"),
    C("N03", 7, "sqlite://// absolute URL", ["store", "add", DOC, "--store", "sqlite:///{D}/u.sqlite"], 0, makes=["u.sqlite"]),
    C("N04", 7, "sqlite:/// relative URL", ["store", "add", DOC, "--store", "sqlite:///rel.sqlite"], 0, makes=["rel.sqlite"]),
    C("N05", 7, "sqlite:// with a host part", ["store", "add", DOC, "--store", "sqlite://somehost/x.sqlite"], 2, "sqlite URL"),
    C("N06", 7, "sqlite:///:memory:", ["store", "add", DOC, "--store", "sqlite:///:memory:"], 2, "in-memory"),
    C("N07", 7, "a sqlite URL with options", ["store", "add", DOC, "--store", "sqlite:///{D}/q.sqlite?mode=rwc"], 2,
      "options"),
    C("N08", 7, "--store of spaces to store info", ["store", "info", "--store", "   "], 2, "empty name"),
    C("N09", 7, "--store '' to history", ["history", "kernel/*", "--store", ""], 2, "empty name"),
    C("N10", 7, "--store '' to compare's selections", ["compare", *SEL, "--store", ""], 2, "empty name"),
    C("N11", 7, "the working directory as the store", ["store", "add", DOC, "--store", "."], 2, "a directory"),
    C("N12", 7, "a FIFO as the store", ["store", "add", DOC, "--store", "{D}/fifo"], 2, "FIFO"),
    C("N13", 7, "a socket as the store", ["store", "info", "--store", "{D}/sock"], 2, "socket"),
    C("N14", 7, "a dangling symlink as the store", ["store", "add", DOC, "--store", "{D}/dangling"], 2,
      "symlink to nothing"),
    C("N15", 7, "a symlink to the store", ["store", "add", "r5.json", "--store", "{D}/link.sqlite"], 0,
      writes=["store.sqlite"]),
    C("N16", 7, "an empty file to a reader", ["store", "info", "--store", "{D}/zero.sqlite"], 2, "empty file"),
    C("N17", 7, "an empty file to store add", ["store", "add", DOC, "--store", "{D}/zero.sqlite"], 0,
      writes=["zero.sqlite"]),
    C("N18", 7, "a text file to store info", ["store", "info", "--store", "{D}/notdb.sqlite"], 2, "not a SQLite"),
    C("N19", 7, "a text file to store add", ["store", "add", DOC, "--store", "{D}/notdb.sqlite"], 2, "not a SQLite"),
    C("N20", 7, "another program's SQLite database", ["history", "kernel/*", "--store", "{D}/foreign.sqlite"], 2,
      "not a ctxbench store"),
    C("N21", 7, "a store from a newer ctxbench, read", ["history", "kernel/*", "--store", "{D}/newer.sqlite"], 2,
      "newer ctxbench"),
    C("N22", 7, "a store from a newer ctxbench, added to", ["store", "add", DOC, "--store", "{D}/newer.sqlite"], 2,
      "newer ctxbench"),
    C("N23", 7, "$CTXBENCH_STORE names a missing file", ["store", "info"], 2, "no store there",
      env=[("CTXBENCH_STORE", "{D}/missing.sqlite")]),
    C("N24", 7, "$CTXBENCH_STORE with a ~ the shell never saw", ["store", "info"], 0,
      env=[("CTXBENCH_STORE", "~/s.sqlite")], stdout=["2 run(s)"]),
    C("N25", 7, "a relative store in config.toml", ["store", "add", DOC], 0, config='store = "rel/c.sqlite"\n',
      env=[("CTXBENCH_STORE", None)], makes=["conf/ctxbench/rel/c.sqlite"]),
    C("N26", 7, "~ in config.toml", ["store", "add", DOC], 0, config='store = "~/c2.sqlite"\n',
      env=[("CTXBENCH_STORE", None)], makes=["home/c2.sqlite"]),
    C("N27", 7, "an empty store in config.toml", ["store", "info"], 2, "config file", config='store = ""\n',
      env=[("CTXBENCH_STORE", None)]),
    C("N28", 7, "a number as the store in config.toml", ["store", "info"], 2, "config file", config="store = 3\n",
      env=[("CTXBENCH_STORE", None)]),
    C("N29", 7, "store = off and a reader: the default store, which is not there", ["store", "info"], 2,
      "no store there", config='store = "off"\n', env=[("CTXBENCH_STORE", None), ("XDG_DATA_HOME", "{D}/nodata")]),
    C("N30", 7, "config.toml that is not TOML", ["history", "kernel/*"], 2, "config file", config="store = [1\n",
      env=[("CTXBENCH_STORE", None)]),
    C("N31", 7, "ftp:// in config.toml", ["store", "info"], 2, ("is not a store", "config file"),
      config='store = "ftp://x/y"\n', env=[("CTXBENCH_STORE", None)]),
    C("N32", 7, "--store over a bad $CTXBENCH_STORE", ["store", "info", "--store", "{D}/store.sqlite"], 0,
      env=[("CTXBENCH_STORE", "ftp://bad/x")], stdout=["8 run(s)"]),
    C("N33", 7, "$CTXBENCH_STORE over config.toml", ["store", "info"], 0, config='store = "ftp://x/y"\n',
      env=[("CTXBENCH_STORE", "{D}/store.sqlite")], stdout=["8 run(s)"]),
    C("N34", 7, "--store off to a reader", ["store", "info", "--store", "off"], 2, "--store off"),
    C("N35", 7, "a relative XDG_DATA_HOME (invalid: the home's)", ["store", "info"], 2, "no store there",
      env=[("CTXBENCH_STORE", None), ("XDG_DATA_HOME", "data")]),
    C("N36", 7, "store add makes the default store", ["store", "add", DOC], 0,
      env=[("CTXBENCH_STORE", None), ("XDG_DATA_HOME", "{D}/fresh")], makes=["fresh"]),
    C("N37", 7, "a device as the store (a copy of /dev/null)", ["store", "add", DOC, "--store", "{D}/devnull"], 2,
      "a device"),
    C("N38", 7, "a device to a reader (a copy of /dev/zero)", ["history", "kernel/*", "--store", "{D}/devzero"], 2,
      "a device"),
    C("N39", 7, "the home directory as the store", ["history", "kernel/*", "--store", "~"], 2, "a directory"),
    C("N40", 7, "a trailing slash after a store (the file's name, normalised)",
      ["store", "info", "--store", "{D}/store.sqlite/"], 0, stdout=["8 run(s)"]),
    # ---- 1: nothing written over the store ---------------------------------------------------------------
    C("O01", 1, "history -o the store", ["history", "kernel/*", "--store", "{D}/store.sqlite", "-o",
                                          "{D}/store.sqlite"], 2, "results store"),
    C("O02", 1, "history -o the store's -wal", ["history", "kernel/*", "--store", "{D}/store.sqlite", "-o",
                                                 "{D}/store.sqlite-wal"], 2, "journal"),
    C("O03", 1, "history -o the store's -shm", ["history", "kernel/*", "--store", "{D}/store.sqlite", "-o",
                                                 "{D}/store.sqlite-shm"], 2, "journal"),
    C("O04", 1, "history -o a symlink to the store", ["history", "kernel/*", "--store", "{D}/store.sqlite", "-o",
                                                       "{D}/link.sqlite"], 2, "results store"),
    C("O05", 1, "history --plot where the figure is the store",
      ["history", "kernel/*", "--store", "{D}/plots/history.png", "--plot", "{D}/plots"], 2, "results store"),
    C("O06", 1, "compare --junit onto the store it selects from",
      ["compare", *SEL, "--store", "{D}/store.sqlite", "--fail-if-slower", "5%", "--junit", "{D}/store.sqlite"], 2,
      "results store"),
    C("O07", 1, "compare --junit onto the default store (files only)",
      ["compare", "r0.json", "r1.json", "--fail-if-slower", "5%", "--junit", "{D}/data/ctxbench/store.sqlite"], 2,
      "results store", env=[("CTXBENCH_STORE", None)]),
    C("O08", 1, "compare --junit onto $CTXBENCH_STORE's store",
      ["compare", "r0.json", "r1.json", "--fail-if-slower", "5%", "--junit", "{D}/store.sqlite"], 2,
      "results store", env=[("CTXBENCH_STORE", "{D}/store.sqlite")]),
    C("O09", 1, "report -o $CTXBENCH_STORE's store", ["report", DOC, "-o", "{D}/store.sqlite"], 2, "results store",
      env=[("CTXBENCH_STORE", "{D}/store.sqlite")]),
    C("O10", 1, "report --markdown onto the default store",
      ["report", DOC, "-o", "{D}/r.html", "--markdown", "{D}/data/ctxbench/store.sqlite"], 2, "results store",
      env=[("CTXBENCH_STORE", None)]),
    C("O11", 1, "the store given to store add as a results file",
      ["store", "add", "{D}/store.sqlite", "--store", "{D}/store.sqlite"], 2, "store.sqlite"),
    C("O12", 1, "run -o the store", ["run", "--quick", "--store", "{D}/store.sqlite", "-o", "{D}/store.sqlite"], 2,
      "results store", env=STUB),
    C("O13", 1, "run -o the store's journal",
      ["run", "--quick", "--store", "{D}/store.sqlite", "-o", "{D}/store.sqlite-journal"], 2, "journal", env=STUB),
    C("O14", 1, "fleet -o DIR where a host's file is the store",
      ["fleet", "127.0.0.1:1", "--store", "{D}/fo/127.0.0.1_1.json", "-o", "{D}/fo", "--", "env"], 2,
      "results store"),
    C("O15", 1, "fleet --plot where the figure is the store",
      ["fleet", "127.0.0.1:1", "--store", "{D}/plots/fleet.png", "--plot", "{D}/plots", "--", "run"], 2,
      "results store"),
    C("O16", 1, "sweep -o (a file it resumes) the default store",
      ["sweep", "--mechanism", "kernel/thread/pipe", "-o", "{D}/data/ctxbench/store.sqlite"], 2, "results store",
      env=[("CTXBENCH_STORE", None), *STUB]),
    C("O17", 1, "history -o - (standard output) beside the store",
      ["history", "kernel/*", "--store", "{D}/store.sqlite", "-o", "-"], 0, words=["standard output"]),
    # ---- 2: database errors are one line -----------------------------------------------------------------
    C("D01", 2, "store info, pages overwritten", ["store", "info", "--store", "{D}/damaged.sqlite"], 2, "damaged"),
    C("D02", 2, "store add, pages overwritten", ["store", "add", DOC, "--store", "{D}/damaged.sqlite"], 2, "damaged"),
    C("D03", 2, "history, pages overwritten", ["history", "kernel/*", "--store", "{D}/damaged.sqlite"], 2, "damaged"),
    C("D04", 2, "history --across, pages overwritten",
      ["history", "kernel/*", "--across", "kernel", "--store", "{D}/damaged.sqlite"], 2, "damaged"),
    C("D05", 2, "compare's selections, pages overwritten", ["compare", *SEL, "--store", "{D}/damaged.sqlite"], 2,
      "damaged"),
    C("D06", 2, "store info, a store cut in half", ["store", "info", "--store", "{D}/trunc.sqlite"], 2),
    C("D07", 2, "history, a store cut in half", ["history", "kernel/*", "--store", "{D}/trunc.sqlite"], 2),
    C("D08", 2, "compare, a kept document that is not zlib", ["compare", *SEL, "--store", "{D}/badzlib.sqlite"], 2,
      "damaged"),
    C("D09", 2, "history over that store (it reads no document)",
      ["history", "kernel/*", "--store", "{D}/badzlib.sqlite"], 0),
    C("D10", 2, "store info as a role that may only read", ["store", "info", "--store", "{pgreader}"], 0,
      stdout=["8 run(s)"]),
    # a file the store does not hold (it holds r0..r7: adding one of them again writes nothing)
    C("D11", 2, "store add as a role that may only read", ["store", "add", "long.json", "--store", "{pgreader}"],
      2, "permission denied"),
    C("D12", 2, "store add into an empty database as a role that may not create tables",
      ["store", "add", DOC, "--store", "{pgnocreate}"], 2, "permission denied"),
    C("D13", 2, "history on an empty database", ["history", "kernel/*", "--store", "{pgempty}"], 2,
      "no store there yet"),
    C("D14", 2, "a database that does not exist", ["store", "info", "--store", "{pgmissing}"], 2, "does not exist"),
    C("D15", 2, "no server listening", ["store", "info", "--store", PG_NEVER], 2, "***"),
    C("D16", 2, "another program's PostgreSQL database", ["history", "kernel/*", "--store", "{pgforeign}"], 2,
      "not a ctxbench store"),
    C("D17", 2, "store add, a host name of 300 characters", ["store", "add", "long.json", "--store", "{pgnew}"], 0),
    C("D18", 2, "store add, a NUL in the CPU model", ["store", "add", "nul.json", "--store", "{pgnew}"], 0),
    C("D19", 2, "a port out of range", ["store", "info", "--store", "postgresql://u@127.0.0.1:99999/x"], 2, "port"),
    C("D20", 2, "an sslmode the driver refuses", ["store", "info", "--store", "{pgfilled}?sslmode=bogus"], 2,
      "sslmode"),
    # ---- 4: escapes ----------------------------------------------------------------------------------------
    C("E01", 4, "store info, hosts with escapes", ["store", "info", "--store", "{D}/esc.sqlite"], 0,
      stdout=["\\x1b]0;"]),
    C("E02", 4, "history --by host", ["history", "kernel/*", "--by", "host", "--store", "{D}/esc.sqlite"], 0,
      stdout=["\\x1b"]),
    C("E03", 4, "history --by microcode", ["history", "kernel/*", "--by", "microcode", "--store", "{D}/esc.sqlite"],
      0, stdout=["\\x1b[2J"]),
    C("E04", 4, "history, a commit with escapes", ["history", "kernel/*", "--store", "{D}/esc.sqlite"], 0,
      stdout=["\\x1b[5m"]),
    C("E05", 4, "history --across kernel", ["history", "kernel/*", "--across", "kernel", "--store",
                                            "{D}/esc.sqlite"], 0, stdout=["\\x1bc"]),
    C("E06", 4, "compare's environment differences from kept documents",
      ["compare", "--base", "kernel=6.0*", "--new", "kernel=6.1*", "--store", "{D}/esc.sqlite"], 0,
      stdout=["environment differences"]),
    C("E07", 4, "compare's gate on kept documents",
      ["compare", "--base", "kernel=6.0*", "--new", "kernel=6.1*", "--store", "{D}/esc.sqlite", "--fail-if-slower",
       "5%"], 0),
    C("E08", 4, "history, an id pattern with escapes", ["history", "k\x1b[2J", "--store", "{D}/store.sqlite"], 2,
      "\\x1b[2J"),
    C("E09", 4, "store add, a missing file named with escapes", ["store", "add", "r\x1bc.json", "--store",
                                                                   "{D}/store.sqlite"], 2, "\\x1bc"),
    C("E10", 4, "a store named with escapes", ["store", "info", "--store", "x\x1b]0;t\x07.sqlite"], 2,
      "\\x1b]0;t\\x07"),
    C("E11", 4, "a selection with escapes", ["compare", "--base", "host=\x1bc", "--new", "host=host1", "--store",
                                             "{D}/store.sqlite"], 2, "\\x1bc"),
    # refused before any host since issue 46 (a name OpenSSH 9.6 would refuse): one line, exit 2
    C("E12", 4, "fleet, a host on the command line with escapes",
      ["fleet", "h\x1b]0;x\x07:1", "--no-store", "--", "env"], 2, lines=None),
    C("E13", 4, "fleet, an inventory's user with escapes",
      ["fleet", "--inventory", "{D}/inv-esc.json", "--no-store", "--", "env"], 1, lines=None),
    C("E14", 4, "history -o, the escapes kept in the file (not on the terminal)",
      ["history", "kernel/*", "--store", "{D}/esc.sqlite", "-o", "{D}/h.json"], 0, makes=["h.json"]),
    # ---- 6 and 3: fleet, refused before any host is touched ----------------------------------------------
    C("F01", 6, "--limit ''", ["fleet", "--inventory", "{D}/inv.ini", "--limit", "", "--", "env"], 2, "empty"),
    C("F02", 6, "--limit '['", ["fleet", "--inventory", "{D}/inv.ini", "--limit", "[", "--", "env"], 2,
      "not a host pattern"),
    C("F03", 6, "--limit '~[' (a regular expression that is none)",
      ["fleet", "--inventory", "{D}/inv.ini", "--limit", "~[", "--", "env"], 2, "not a host pattern"),
    C("F04", 6, "--limit 'lab,,' (empty parts)", ["fleet", "--inventory", "{D}/inv.ini", "--limit", "lab,,",
                                                   "--no-store", "--", "env"], 1, lines=None, stdout=["h0", "h1"]),
    C("F05", 6, "--limit '!h0'", ["fleet", "--inventory", "{D}/inv.ini", "--limit", "!h0", "--no-store", "--", "env"],
      1, lines=None, stdout=["h1"]),
    C("F06", 6, "--limit matching nothing", ["fleet", "--inventory", "{D}/inv.ini", "--limit", "zz*", "--", "env"], 2,
      "no host matches"),
    C("F07", 6, "--limit 'lab[0]' (a subscript)", ["fleet", "--inventory", "{D}/inv.ini", "--limit", "lab[0]",
                                                    "--no-store", "--", "env"], 1, lines=None, stdout=["h0"]),
    C("F08", 6, "--limit of spaces", ["fleet", "--inventory", "{D}/inv.ini", "--limit", "  ", "--", "env"], 2,
      "empty"),
    C("F09", 6, "--limit ',' alone", ["fleet", "--inventory", "{D}/inv.ini", "--limit", ",", "--", "env"], 2,
      "not a host pattern"),
    C("F10", 3, "a YAML inventory with a bad indent", ["fleet", "--inventory", "{D}/bad.yml", "--", "env"], 2,
      "YAML"),
    C("F11", 3, "a JSON inventory cut short", ["fleet", "--inventory", "{D}/bad.json", "--", "env"], 2, "inventory"),
    C("F12", 3, "an inventory that is a directory", ["fleet", "--inventory", "{D}", "--", "env"], 2, "a directory"),
    C("F13", 3, "an inventory host's key file missing",
      ["fleet", "--inventory", "{D}/inv-nokey.ini", "--no-store", "--", "env"], 1, lines=None, stdout=["key file"]),
    C("F14", 5, "fleet --store ftp://", ["fleet", "127.0.0.1:1", "--store", "ftp://u:" + SECRET + "@x/y", "--",
                                         "env"], 2, "is not a store"),
    C("F15", 3, "fleet -o a file", ["fleet", "127.0.0.1:1", "-o", "{D}/r0.json", "--", "env"], 2, "-o"),
    C("F16", 3, "a host on the command line and in the inventory",
      ["fleet", "h0", "--inventory", "{D}/inv.ini", "--", "env"], 2, "named twice"),
    C("F17", 3, "fleet --show ''", ["fleet", "127.0.0.1:1", "--show", "", "--", "run"], 2, "--show"),
    C("F18", 3, "a host with a space", ["fleet", "a b", "--", "env"], 2, "is not a host"),
    C("F19", 3, "hosts whose names meet in one file name, none reachable",
      ["fleet", "b\u00fcro@127.0.0.1:1", "b\u00e4ro@127.0.0.1:1", "--no-store", "-o", "{D}/fout", "--", "env"], 1,
      lines=None, makes=["fout"]),
    C("F20", 5, "fleet with a store in a missing directory",
      ["fleet", "127.0.0.1:1", "--store", "{D}/nodir/s.sqlite", "--", "env"], 2, "does not exist"),
    # ---- 5: a measuring command refuses its store before measuring ----------------------------------------
    C("M01", 5, "run --store ftp://", ["run", "--quick", "--store", "ftp://x/y", "-o", "{D}/m.json"], 2,
      "is not a store", env=STUB),
    C("M02", 5, "run --store ''", ["run", "--quick", "--store", "", "-o", "{D}/m.json"], 2, "empty name", env=STUB),
    C("M03", 5, "run --store a text file", ["run", "--quick", "--store", "{D}/notdb.sqlite", "-o", "{D}/m.json"], 2,
      "not a SQLite", env=STUB),
    C("M04", 5, "run --store another program's database",
      ["run", "--quick", "--store", "{D}/foreign.sqlite", "-o", "{D}/m.json"], 2, "not a ctxbench store", env=STUB),
    C("M05", 5, "run --store a directory", ["run", "--quick", "--store", "{D}", "-o", "{D}/m.json"], 2,
      "a directory", env=STUB),
    C("M06", 5, "run --store a device", ["run", "--quick", "--store", "{D}/devnull", "-o", "{D}/m.json"], 2,
      "a device", env=STUB),
    C("M07", 5, "ring --store sqlite://", ["ring", "--quick", "--store", "sqlite://", "-o", "{D}/m.json"], 2,
      "in-memory", env=STUB),
    C("M08", 5, "tasks --store in a missing directory",
      ["tasks", "--store", "{D}/nodir/x.sqlite", "-o", "{D}/m.json"], 2, "does not exist", env=STUB),
    C("M09", 5, "runtimes --store ftp://", ["runtimes", "--quick", "--store", "ftp://x/y", "-o", "{D}/m.json"], 2,
      "is not a store", env=STUB),
    C("M10", 5, "sweep --store ftp://",
      ["sweep", "--mechanism", "kernel/thread/pipe", "--store", "ftp://x/y", "-o", "{D}/m.json"], 2,
      "is not a store", env=STUB),
    C("M11", 5, "irq --store ''", ["irq", "--store", "", "-o", "{D}/m.json"], 2, "empty name", env=STUB),
    C("M12", 5, "anatomy --store a directory", ["anatomy", "--quick", "--store", "{D}", "-o", "{D}/m.json"], 2,
      "a directory", env=STUB),
    C("M13", 5, "run with $CTXBENCH_STORE=ftp://", ["run", "--quick", "-o", "{D}/m.json"], 2, "is not a store",
      env=[("CTXBENCH_STORE", "ftp://x/y"), *STUB]),
    C("M14", 5, "run with config.toml's store sqlite://", ["run", "--quick", "-o", "{D}/m.json"], 2, "in-memory",
      config='store = "sqlite://"\n', env=[("CTXBENCH_STORE", None), *STUB]),
    C("M15", 5, "noise --store a newer ctxbench's store",
      ["noise", "--seconds", "1", "--store", "{D}/notdb.sqlite", "-o", "{D}/m.json"], 2, "not a SQLite", env=STUB),
    C("M16", 8, "run --store a password URL on a bad scheme",
      ["run", "--quick", "--store", "mysql://u:" + SECRET + "@db/x", "-o", "{D}/m.json"], 2, "is not a store",
      env=STUB),
    # ---- 8: secrets --------------------------------------------------------------------------------------
    C("S01", 8, "a password with '@' and ':'", ["store", "info", "--store",
                                                "postgresql://u:" + SECRET + "@x:y@127.0.0.1:1/db"], 2, "***"),
    C("S02", 8, "a password in the query", ["store", "info", "--store",
                                           "postgresql://u@127.0.0.1:1/db?password=" + SECRET], 2, "password=***"),
    C("S03", 8, "a password with '/'", ["store", "info", "--store",
                                       "postgresql://u:" + SECRET + "/x@127.0.0.1:1/db"], 2, "***"),
    C("S04", 8, "a password, percent-encoded", ["store", "info", "--store",
                                               "postgresql://u:hunter%32pw@127.0.0.1:1/db"], 2, "***"),
    C("S05", 8, "a password to a server that answers (role unknown)",
      ["store", "info", "--store", "{pgnobody}"], 2, "***"),
    C("S06", 8, "a password on a store that works", ["store", "info", "--store", "{pgfilled_pw}"], 0,
      stdout=["ctxbench:***@"]),
    C("S07", 8, "a password in a selection's store", ["compare", *SEL, "--store", "{pgfilled_pw}"], 0),
    C("S08", 8, "ftp:// with a password", ["history", "kernel/*", "--store", "ftp://u:" + SECRET + "@h/x"], 2,
      "is not a store"),
    C("S09", 8, "a password in $CTXBENCH_STORE", ["store", "info"], 2, "***", env=[("CTXBENCH_STORE", PG_NEVER)]),
    C("S10", 8, "a password in config.toml", ["history", "kernel/*"], 2, "***",
      config=f'store = "{PG_NEVER}"\n', env=[("CTXBENCH_STORE", None)]),
    # ---- 9: selections and dates (more in SELECTIONS, on both backends) ---------------------------------
    C("Q01", 9, "since= with a date that is none", ["compare", "--base", "since=2026-13-01", "--new", "host=host1",
                                                    "--store", "{D}/store.sqlite"], 2, "not a date"),
    C("Q02", 9, "a key given twice", ["compare", "--base", "host=host0,host=host2", "--new", "host=host1",
                                      "--store", "{D}/store.sqlite"], 2, "twice"),
    C("Q03", 9, "until= the last day a date can name", ["compare", "--base", "until=9999-12-31", "--new",
                                                        "host=host1", "--store", "{D}/store.sqlite"], 0),
    C("Q04", 9, "--until of an hour that is none", ["history", "kernel/*", "--until", "2026-01-03T25",
                                                    "--store", "{D}/store.sqlite"], 2, "not a date"),
    C("Q05", 9, "--host ''", ["history", "kernel/*", "--host", "", "--store", "{D}/store.sqlite"], 2, "--host"),
    C("Q06", 9, "history --across -o writes the ranking",
      ["history", "kernel/*", "--across", "host", "-o", "{D}/a.json", "--store", "{D}/store.sqlite"], 0,
      makes=["a.json"], stdout=["history written"]),
    # ---- smaller ------------------------------------------------------------------------------------------
    C("X01", 7, "store with no action", ["store"], 2, "ctxbench: store: "),
    C("X02", 7, "store add without files", ["store", "add", "--store", "{D}/store.sqlite"], 2, "FILE"),
    C("X03", 7, "a --commit of 65 characters", ["store", "add", DOC, "--store", "{D}/store.sqlite", "--commit",
                                                "c" * 65], 2, "--commit"),
    C("X04", 7, "the same file twice in one add", ["store", "add", "r6.json", "r6.json", "--store",
                                                   "{D}/store.sqlite"], 0, writes=["store.sqlite"],
      stdout=["already kept"]),
    C("X05", 7, "a store of revision 0002 read by history (migrated, its runs kept)",
      ["history", "kernel/*", "--store", "{D}/old2.sqlite"], 0, writes=["old2.sqlite"]),
]

# Each selection on a SQLite file and a PostgreSQL database holding the same runs: the same output.
SELECTIONS = [
    ("Q10", ["compare", "--base", "host=ALPH*", "--new", "host=alpha*"]),
    ("Q11", ["compare", "--base", "host=host_1", "--new", "host=hostX1"]),
    ("Q12", ["compare", "--base", "host=h%*", "--new", "host=alpha"]),
    ("Q13", ["compare", "--base", "kernel=6.1_0", "--new", "kernel=6.10.0"]),
    ("Q14", ["compare", "--base", "kernel=6.1%*", "--new", "host=alpha"]),
    ("Q15", ["compare", "--base", "until=2026-01-03", "--new", "since=2026-01-04"]),
    ("Q16", ["compare", "--base", "until=2026-01-03T23:59", "--new", "since=2026-01-04"]),
    ("Q17", ["compare", "--base", "host=a/*", "--new", "host=q?*"]),
    ("Q18", ["compare", "--base", "since=2026-01-03T00:00+00:00,until=2026-01-03T12:00", "--new", "host=alpha"]),
    ("Q19", ["compare", "--base", "host=*1", "--new", "host=*%"]),
    ("Q20", ["history", "kernel/thread/pipe/same-cpu", "--host", "a[*"]),
    ("Q21", ["history", "kernel/thread/pipe/same-cpu", "--kernel", "6.1?0"]),
    ("Q22", ["history", "kernel/thread/pipe/same-cpu", "--until", "2026-01-03T23:59:00"]),
    ("Q23", ["history", "kernel/thread/pipe/same-cpu", "--since", "2026-01-03T12", "--host", "ALPHA*"]),
    ("Q24", ["history", "kernel/thread/pipe/same-cpu", "--host", "*", "--kernel", "6.1_0", "--by", "host"]),
]

# Ctrl-C at a moment of each command: exit 130, one line (or the command had already ended).
INTERRUPTS = [(f"I{i:02d}", argv, delay) for i, (argv, delay) in enumerate([
    (["store", "info", "--store", "{D}/store.sqlite"], 0.05),
    (["store", "info", "--store", "{D}/store.sqlite"], 0.2),
    (["history", "kernel/*", "--store", "{D}/store.sqlite"], 0.1),
    (["history", "kernel/*", "--store", "{D}/store.sqlite"], 0.4),
    (["history", "*", "--store", "{D}/many.sqlite"], 0.6),
    (["history", "*", "--store", "{D}/many.sqlite"], 1.0),
    (["compare", *SEL, "--store", "{D}/store.sqlite"], 0.3),
    (["compare", *SEL, "--store", "{D}/store.sqlite"], 0.6),
    (["store", "add", *[f"r{k}.json" for k in range(8)], "--store", "{D}/new.sqlite"], 0.5),
    (["fleet", "--inventory", "{D}/inv.ini", "--no-store", "--", "env"], 0.3),
    (["fleet", "--inventory", "{D}/inv.ini", "--no-store", "--", "env"], 0.7),
    (["report", DOC, "-o", "{D}/r.html"], 0.4),
], start=1)]


# ---- the world every case starts from ------------------------------------------------------------------

def _esc_docs() -> list[tuple[dict, str]]:
    out = []
    for k in range(4):
        d = synthetic(k)
        d["environment"]["hostname"] = f"box{k % 2}\x1b]0;pwned\x07"
        d["environment"]["kernel"]["release"] = f"6.{k % 2}\x1bc"
        d["environment"]["cpu"]["microcode"] = "0x1\x1b[2J"
        out.append((d, "abc\x1b[5m"))
    return out


@pytest.fixture(scope="module")
def world(tmp_path_factory, server):
    """The files every case's directory starts with (copied for each), and
    the PostgreSQL databases the cases read (made once)."""
    w = tmp_path_factory.mktemp("audit-world")
    for k in range(8):
        (w / f"r{k}.json").write_text(json.dumps(synthetic(k)))
    long = synthetic(9)
    long["environment"]["hostname"] = "h" * 300
    (w / "long.json").write_text(json.dumps(long))
    nul = synthetic(10)
    nul["environment"]["cpu"]["model"] = "CPU\u0000x"
    (w / "nul.json").write_text(json.dumps(nul))
    docs = [synthetic(k) for k in range(8)]
    fill(str(w / "store.sqlite"), docs)
    for d in ("home", "plots", "fo", "data/ctxbench", "conf/ctxbench/rel"):
        (w / d).mkdir(parents=True, exist_ok=True)
    for copy in ("home/s.sqlite", "plots/history.png", "plots/fleet.png", "fo/127.0.0.1_1.json",
                 "data/ctxbench/store.sqlite"):
        shutil.copy(w / "store.sqlite", w / copy)
    with Store(str(w / "home" / "s.sqlite")).begin() as conn:
        conn.exec_driver_sql("DELETE FROM runs WHERE id > 2")
    esc = Store(str(w / "esc.sqlite"))
    with esc.begin() as conn:
        for d, commit in _esc_docs():
            record.add(conn, d, commit)
    damaged(w)  # w/damaged.sqlite
    full = (w / "store.sqlite").read_bytes()
    (w / "trunc.sqlite").write_bytes(full[: len(full) // 2])
    (w / "notdb.sqlite").write_text("these are notes, not a database\n" * 50)
    with sqlite3.connect(w / "foreign.sqlite") as c:
        c.execute("CREATE TABLE accounts (x)")
    shutil.copy(w / "store.sqlite", w / "newer.sqlite")
    with sqlite3.connect(w / "newer.sqlite") as c:
        c.execute("UPDATE alembic_version SET version_num = '9999'")
    (w / "zero.sqlite").write_bytes(b"")
    shutil.copy(w / "store.sqlite", w / "badzlib.sqlite")
    with sqlite3.connect(w / "badzlib.sqlite") as c:
        c.execute("UPDATE runs SET document = ? WHERE host = 'host1'", (b"not zlib",))
    _old_store(w / "old2.sqlite", docs[:3])
    _many(w / "many.sqlite")
    (w / "inv.ini").write_text("[lab]\nh0 ansible_host=127.0.0.1 ansible_port=1\nh1 ansible_host=127.0.0.1 "
                               "ansible_port=1\n")
    (w / "inv-nokey.ini").write_text(f"[lab]\nh0 ansible_host=127.0.0.1 ansible_port=1 "
                                     f"ansible_ssh_private_key_file={w}/no-such-key\n")
    (w / "inv-esc.json").write_text(json.dumps({"all": {"hosts": {"h0": {
        "ansible_host": "127.0.0.1", "ansible_port": 1, "ansible_user": "r\x1b[31mroot"}}}}))
    (w / "bad.yml").write_text("all:\n  hosts:\n   h0:\n  h1: {\n")
    (w / "bad.json").write_text('{"all": {"hosts": {')
    pg = {}
    pg["pgfilled"] = server.database(f"audit_filled_{os.getpid()}")
    fill(pg["pgfilled"], docs)
    pg["pgfilled_pw"] = pg["pgfilled"].replace("//ctxbench@", f"//ctxbench:{SECRET}@")
    pg["pgempty"] = server.database(f"audit_empty_{os.getpid()}")
    pg["pgmissing"] = pg["pgfilled"].rsplit("/", 1)[0] + "/no_such_database"
    pg["pgforeign"] = server.database(f"audit_foreign_{os.getpid()}")
    nocreate = server.database(f"audit_nocreate_{os.getpid()}")
    import psycopg
    with psycopg.connect(pg["pgforeign"], autocommit=True) as c:
        c.execute("CREATE TABLE accounts (x int)")
    with psycopg.connect(pg["pgfilled"], autocommit=True) as c:
        c.execute("DO $$ BEGIN CREATE ROLE audit_reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
        c.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO audit_reader")
    with psycopg.connect(nocreate, autocommit=True) as c:
        c.execute("DO $$ BEGIN CREATE ROLE audit_nocreate LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
        c.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    pg["pgreader"] = pg["pgfilled"].replace("//ctxbench@", f"//audit_reader:{SECRET}@")
    pg["pgnocreate"] = nocreate.replace("//ctxbench@", "//audit_nocreate@")
    pg["pgnobody"] = pg["pgfilled"].replace("//ctxbench@", f"//nobody:{SECRET}@")
    pg["pgsel"] = server.database(f"audit_sel_{os.getpid()}")
    fill(pg["pgsel"], selection_docs())
    fill(str(w / "sel.sqlite"), selection_docs())
    return w, pg, server


def _old_store(path: Path, docs: list[dict]) -> None:
    """A store as revision 0002's code left it (tests/test_store.py's way)."""
    from sqlalchemy import create_engine, insert

    from ctxbench.core.store.db import normalise
    from ctxbench.core.store.tables import results, runs
    from test_store import SINCE_0005, SINCE_0006, _before_0003, _store_at
    _store_at(str(path), "0002")
    with create_engine(normalise(str(path))).begin() as conn:
        for d in docs:
            old = {k: v for k, v in record.run_row(d).items() if k not in ("core_ghz", *SINCE_0005, *SINCE_0006)}
            run_id = conn.execute(insert(runs).values(**old)).inserted_primary_key[0]
            conn.execute(insert(results), [_before_0003(r) for r in record.result_rows(d, run_id)])


def _many(path: Path) -> None:
    import copy
    docs = []
    for k in range(8):
        d = synthetic(k)
        d["environment"]["hostname"] = "one"
        d["results"] = [dict(copy.deepcopy(d["results"][0]), id=f"kernel/x{j}/pipe/same-cpu") for j in range(60)]
        docs.append(d)
    fill(str(path), docs)


def _specials(d: Path) -> None:
    """What copytree cannot copy: a FIFO, a socket, devices, links."""
    os.mkfifo(d / "fifo")
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(d / "sock"))
    s.close()
    (d / "dangling").symlink_to(d / "nowhere.sqlite")
    (d / "link.sqlite").symlink_to(d / "store.sqlite")
    if os.geteuid() == 0:
        for name, of in (("devnull", "/dev/null"), ("devzero", "/dev/zero")):
            os.mknod(d / name, stat.S_IFCHR | 0o666, os.stat(of).st_rdev)
    stub = d / "stub-engine"
    stub.write_text(f"#!/bin/sh\necho \"$@\" >> {d}/ENGINE-WAS-CALLED\nexit 3\n")
    stub.chmod(0o755)


def _case_dir(world, tmp_path) -> Path:
    w, _, _ = world
    d = tmp_path / "case"
    shutil.copytree(w, d, symlinks=True)
    _specials(d)
    return d


def _snapshot(d: Path) -> dict[str, str]:
    out = {}
    for p in sorted(d.rglob("*")):
        rel = p.relative_to(d).as_posix()
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            continue
        if stat.S_ISREG(st.st_mode):
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
        elif stat.S_ISLNK(st.st_mode):
            out[rel] = "link:" + os.readlink(p)
        else:
            out[rel] = stat.filemode(st.st_mode)[0]
    return out


def _fill(text, d: Path, pg: dict, server) -> str:
    if not isinstance(text, str):
        return text
    if "{pgnew}" in text:
        text = text.replace("{pgnew}", server.database(f"audit_new_{os.getpid()}_{time.monotonic_ns() % 10**9}"))
    for k, v in pg.items():
        text = text.replace("{" + k + "}", v)
    return text.replace("{D}", str(d))


# What libraries make of their own in the home and config directories the
# cases point at (matplotlib's font cache, ansible's local temporary
# directory), and the folder a measuring command keeps runs in without -o,
# made before it measures (core/datadir.run_path: a data directory that
# cannot be written is said before, not after).
TOOLS_MAKE = ("home/.cache", "conf/matplotlib", "home/.ansible")
RUNS_DIR = ("data/ctxbench/runs",)


def _check_shared(rc, out, err, case_rc, lines):
    assert "Traceback" not in err, err
    for stream in (out, err):
        assert "\x1b" not in stream and "\x07" not in stream, stream[-2000:]
        assert SECRET not in stream, stream[-2000:]
    if case_rc != 0 and lines is not None:
        got = err.strip().splitlines()
        assert len(got) == lines and got[-1].startswith("ctxbench: "), err


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_audit_case(case, world, tmp_path, capsys, monkeypatch):
    _, pg, server = world
    if case.id in ("N37", "N38", "M06") and os.geteuid() != 0:
        pytest.skip("mknod needs root")
    d = _case_dir(world, tmp_path)
    monkeypatch.chdir(d)
    monkeypatch.setenv("HOME", str(d / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(d / "conf"))
    monkeypatch.setenv("XDG_DATA_HOME", str(d / "data"))
    for name, value in case.env:
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, _fill(value, d, pg, server))
    if case.config is not None:
        (d / "conf" / "ctxbench" / "config.toml").write_text(case.config)
    before = _snapshot(d)
    argv = [_fill(a, d, pg, server) for a in case.argv]
    rc = main(argv)
    got = capsys.readouterr()
    out, err = got.out, got.err
    assert rc == case.rc, (case.what, rc, out[-1500:], err[-1500:])
    _check_shared(rc, out, err, case.rc, case.lines)
    said = err if rc else out + err
    assert all(w in said for w in case.words), (case.what, said[-1500:])
    assert all(w in out for w in case.stdout), (case.what, out[-1500:])
    after = _snapshot(d)
    may_write = set(case.writes) | {f"{w}{j}" for w in case.writes for j in ("-journal", "-wal", "-shm")}
    changed = [f for f in before if f in after and before[f] != after[f] and f not in may_write]
    assert not changed, (case.what, changed)
    gone = [f for f in before if f not in after]
    assert not gone, (case.what, gone)
    makes = (*case.makes, *TOOLS_MAKE, *(RUNS_DIR if case.rc != 2 or case.argv[0] != "fleet" else ()))
    made = [f for f in after if f not in before and not any(f == m or f.startswith(m + "/") for m in makes)]
    assert not made, (case.what, made)


@pytest.mark.parametrize("cid, argv", SELECTIONS, ids=[s[0] for s in SELECTIONS])
def test_audit_selection_is_the_same_on_both_backends(cid, argv, world, capsys):
    w, pg, _ = world
    got = []
    for url in (str(w / "sel.sqlite"), pg["pgsel"]):
        rc = main([*argv, "--store", url])
        c = capsys.readouterr()
        assert "Traceback" not in c.err and "\x1b" not in c.out + c.err
        got.append((rc, c.out.replace(url, "STORE"), c.err.replace(url, "STORE")))
    assert got[0] == got[1], (cid, got)
    assert got[0][0] in (0, 2)
    if got[0][0] == 2:
        assert got[0][2].strip().startswith("ctxbench: ") and got[0][2].count("\n") == 1


@pytest.mark.parametrize("cid, argv, delay", INTERRUPTS, ids=[i[0] for i in INTERRUPTS])
def test_audit_ctrl_c(cid, argv, delay, world, tmp_path):
    d = _case_dir(world, tmp_path)
    full = ctxbench_cmd() + [a.replace("{D}", str(d)) for a in argv]
    p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         cwd=d, env=dict(os.environ, HOME=str(d / "home")),
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(delay)
    try:
        os.killpg(p.pid, signal.SIGINT)
    except ProcessLookupError:
        pass
    out, err = p.communicate(timeout=120)
    assert "Traceback" not in err, err[-2000:]
    if p.returncode == 130:
        assert err.strip().splitlines()[-1] == "ctxbench: interrupted", err[-2000:]
        assert sum(line.startswith("ctxbench:") for line in err.splitlines()) == 1, err[-2000:]
    else:
        assert p.returncode in (0, 1, -signal.SIGINT), (p.returncode, err[-2000:])
        assert p.returncode != -signal.SIGINT or not err.strip()


def test_the_audit_is_the_size_the_issue_asked_for():
    """At least 100 new cases, over every kind of failure the issue names
    (9: also SELECTIONS; 10: INTERRUPTS)."""
    assert len(CASES) + len(SELECTIONS) + len(INTERRUPTS) >= 100
    assert {c.kind for c in CASES} | {9, 10} == set(range(1, 11))
    assert len({c.id for c in CASES} | {s[0] for s in SELECTIONS} | {i[0] for i in INTERRUPTS}) == \
        len(CASES) + len(SELECTIONS) + len(INTERRUPTS)


# ---- the fleet against real SSH servers (kind 3; measures, so `machine`) ------------------------------

FLEET_CASES = [
    ("H01", "inventory names that meet in one file name and one address (x y, x/y, x:y)",
     {"x y": 0, "x/y": 1, "x?y": 2}, [], 0),
    ("H02", "one server under two inventory names: two runs, two files", {"h0": 0, "h0-again": 0}, [], 0),
    ("H03", "SIGTERM after the first of three hosts, one at a time: the first kept",
     {"h0": 0, "h1": 1, "h2": 2}, ["--parallel", "1"], "term"),
    ("H04", "a PostgreSQL role that may not insert: every file written, a warning per host",
     {"h0": 0, "h1": 1}, ["--store", "{pgreader}"], 0),
    ("H05", "-o a directory three levels down that does not exist yet", {"h0": 0}, ["-o", "{D}/a/b/c"], 0),
]


@pytest.mark.machine
@pytest.mark.flow
@pytest.mark.parametrize("cid, what, hosts, extra, expect", FLEET_CASES, ids=[f[0] for f in FLEET_CASES])
def test_audit_fleet_case(cid, what, hosts, extra, expect, world, tmp_path):
    from ssh_servers import Fleet
    from test_fleet import engines_running
    _, pg, _ = world
    f = Fleet(3)
    try:
        inv = {"all": {"vars": {"ansible_host": "127.0.0.1", "ansible_user": "root",
                                "ansible_ssh_private_key_file": str(f.key)},
                       "hosts": {n: {"ansible_port": f.servers[i].port} for n, i in hosts.items()}}}
        (tmp_path / "inv.json").write_text(json.dumps(inv))
        out = tmp_path / "out"
        args = [a.replace("{D}", str(tmp_path)).replace("{pgreader}", pg["pgreader"]) for a in extra]
        if "-o" not in args:
            args += ["-o", str(out)]
            if "--store" not in args:
                args += ["--store", str(tmp_path / "s.sqlite")]
        else:
            out = Path(args[args.index("-o") + 1])
            args += ["--no-store"]
        job = ["run", "--quick", "--cpu", "0", "--groups", "12"] if expect == "term" else ["env"]
        argv = [*ctxbench_cmd(), "fleet", "--ssh-config", str(f.ssh_config), "--inventory",
                str(tmp_path / "inv.json"), *args, "--", *job]
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        if expect == "term":
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and p.poll() is None and not engines_running(f.servers[1].dir):
                time.sleep(0.05)
            os.killpg(p.pid, signal.SIGTERM)
        stdout, stderr = p.communicate(timeout=600)
        assert "Traceback" not in stderr and "\x1b" not in stdout + stderr and SECRET not in stdout + stderr, stderr
        files = sorted(out.iterdir()) if out.exists() else []
        hosts_in = sorted(json.loads(x.read_text())["fleet"]["host"] for x in files)
        if expect == "term":
            assert p.returncode == 130 and stderr.strip().splitlines()[-1] == "ctxbench: interrupted", stderr
            assert hosts_in == ["h0"], (what, hosts_in)
        else:
            assert p.returncode == 0, (what, stdout, stderr)
            assert hosts_in == sorted(hosts), (what, hosts_in)
            if "--store" in args and "{pgreader}" in extra:
                assert stderr.count("not recorded in the results store") == len(hosts), stderr
        assert all(s.left() == [] for s in f.servers) and not engines_running(f.root)
    finally:
        f.stop()
