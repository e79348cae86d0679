"""ctxbench export and ctxbench.load (issue 49): results files of every
command, and a store made from them, as Parquet that pyarrow, pandas and
DuckDB read with the medians the documents hold (model.Document(doc)
.results[i].summary.median); the declared types; a run's id the same from
its file and from the store, so the two join; a store from revision 0005
migrated gives what a store made today gives; a malformed file among good
ones is one line and the others are exported; a bad -o is one line."""
from __future__ import annotations

import functools
import math
import os
import sys
from collections import Counter

import pytest

from conftest import FIXTURES, RECORDINGS, run_cli

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from ctxbench.core import reader, schema as declared  # noqa: E402
from ctxbench.core.model import Document  # noqa: E402
from ctxbench.core.store import record  # noqa: E402
from ctxbench.core.store.db import Store  # noqa: E402
from ctxbench.core.store.tables import PARAM_KINDS  # noqa: E402
from ctxbench.export import schema  # noqa: E402
from ctxbench.records import RECORDS  # noqa: E402

# a file of each command the fixtures hold (run, ring, irq, noise, tasks, runtimes; an engine's own document;
# ctxbench/1 files, upgraded as they are read); userbench, anatomy, peers and sweep: measured below (the
# fixtures' sweeps are ctxbench/1, analysed as they are read: half a second each)
FILES = ["ring_base.json", "ring_ring.json", "ring_hostile.json", "irq-small.json", "noise-small.json",
         "tasks-small.json", "v1/run.json", "v1/runtimes.json", "v1/engine_document.json", "v1/text_warnings.json"]
PATHS = [str(FIXTURES / f) for f in FILES]


@functools.cache
def _doc(path: str):
    """A file as the reader reads it (once per session: a ctxbench/1 file is analysed as it is read)."""
    return reader.load(path, RECORDS)


def _medians_of_documents(paths) -> Counter:
    """(id, point, median) of every result of every run (a run in two files: once), as the model reads
    them (None: no median)."""
    out, seen = Counter(), set()
    for p in paths:
        doc = _doc(p)
        run_id = record.digest(doc)
        if run_id in seen:
            continue
        seen.add(run_id)
        for r in Document(doc).results:
            m = r.summary.median
            out[(run_id, r.id, r.point_key, None if math.isnan(m) else m)] += 1
    return out


def _medians(rows) -> Counter:
    """The same of a table's rows (dicts), effects left out (they are not results)."""
    return Counter((r["run_id"], r["id"], r["point_key"], None if r["median"] is None or math.isnan(r["median"])
                    else r["median"]) for r in rows if r["quantity"] != "effect")


def _export(tmp_path, *args, name="out.parquet"):
    out = tmp_path / name
    p = run_cli("export", *map(str, args), "-o", str(out), cwd=tmp_path)
    return p, out


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The fixtures exported once, with their samples."""
    d = tmp_path_factory.mktemp("export")
    p = run_cli("export", *PATHS, "-o", str(d / "r.parquet"), "--samples", str(d / "s.parquet"), cwd=d)
    assert p.returncode == 0, p.stderr
    return d, p


def test_the_param_columns_are_the_declared_params():
    """Each param core/schema declares has a column in the store and the
    export, of its type (two types: text); migration 0006 made the same."""
    import importlib.util
    kinds = {(int,): "int", (int, float): "float", (str,): "str", (bool,): "bool"}
    want = {name: kinds.get(tuple(t for t in types if t is not type(None)), "text")
            for name, types in declared.PARAM_TYPES.items()}
    assert dict(PARAM_KINDS) == want
    spec = importlib.util.spec_from_file_location(
        "m0006", FIXTURES.parents[1] / "src/ctxbench/core/store/migrations/versions/0006_export_columns.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    assert m.PARAMS == PARAM_KINDS


def test_files_of_every_command_read_back_with_their_medians(exported):
    import duckdb
    import pandas as pd
    d, p = exported
    want = _medians_of_documents(PATHS)
    table = pq.read_table(d / "r.parquet")
    assert table.schema.equals(schema.RESULTS) and pq.read_schema(d / "s.parquet").equals(schema.SAMPLES)
    assert _medians(table.to_pylist()) == want
    frame = pd.read_parquet(d / "r.parquet")
    assert _medians(frame.to_dict("records")) == want
    assert str(frame["started"].dtype).endswith(", UTC]")
    con = duckdb.connect()
    rows = con.execute(f"SELECT run_id, id, point_key, median, quantity FROM read_parquet('{d / 'r.parquet'}')").fetchall()
    assert _medians([dict(zip(("run_id", "id", "point_key", "median", "quantity"), r)) for r in rows]) == want
    types = {r[0]: r[1] for r in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{d / 'r.parquet'}')").fetchall()}
    assert types["started"] == "TIMESTAMP WITH TIME ZONE" and types["warnings"] == "VARCHAR[]"
    assert types["n"] == "BIGINT" and types["param_cpu"] == "BIGINT" and types["param_pinned"] == "BOOLEAN"
    assert f"{sum(want.values()) + _effects(table)} result row(s)" in p.stdout


def _effects(table) -> int:
    return table.column("quantity").to_pylist().count("effect")


def test_samples_are_one_row_each_with_their_group_and_verdict(exported):
    d, _ = exported
    samples = pq.read_table(d / "s.parquet").to_pylist()
    for path in PATHS[:2]:
        doc = _doc(path)
        run_id = record.digest(doc)
        for r in Document(doc).results:
            mine = [s for s in samples if s["run_id"] == run_id and s["id"] == r.id and s["point_key"] == r.point_key]
            assert [s["sample"] for s in mine] == list(range(len(r.samples)))
            assert [s["kept"] for s in mine] == r.keep
            assert [s["group"] for s in mine] == (r.groups or [None] * len(r.samples))


def _store_of(tmp_path, paths, name="store.sqlite") -> str:
    url = str(tmp_path / name)
    with Store(url).begin() as conn:
        for p in paths:
            record.add(conn, _doc(p))
    return url


def test_a_store_exports_the_rows_its_files_export(exported, tmp_path):
    """The same rows, with the same run ids (they join), from the store's
    columns; the samples from its kept documents."""
    d, _ = exported
    url = _store_of(tmp_path, PATHS)
    p = run_cli("export", "--store", url, "-o", str(tmp_path / "st.arrow"), "--samples", str(tmp_path / "ss.parquet"))
    assert p.returncode == 0, p.stderr
    files = pq.read_table(d / "r.parquet")
    store = pa.ipc.open_file(str(tmp_path / "st.arrow")).read_all().drop(["source"])
    assert store.schema.equals(files.drop(["source"]).schema)
    assert Counter(map(_row, store.to_pylist())) == Counter(map(_row, _as_stored(files)))
    samples = pq.read_table(tmp_path / "ss.parquet").drop(["source"]).to_pylist()
    assert Counter(map(_row, samples)) == Counter(map(_row, _as_stored(pq.read_table(d / "s.parquet"))))



@pytest.mark.slow  # a PostgreSQL server started for it: seconds
def test_a_postgresql_store_exports_what_a_sqlite_one_does(exported, tmp_path, server):
    """The same rows from PostgreSQL (its booleans are booleans, its rows
    come from psycopg's cursor) as from SQLite and the files."""
    d, _ = exported
    url = server.database(f"export_{os.getpid()}")
    with Store(url).begin() as conn:
        for p in PATHS:
            record.add(conn, _doc(p))
    p, out = _export(tmp_path, "--store", url)
    assert p.returncode == 0, p.stderr
    got = pq.read_table(out).drop(["source"]).to_pylist()
    assert Counter(map(_row, got)) == Counter(map(_row, _as_stored(pq.read_table(d / "r.parquet"))))

def _as_stored(table) -> list[dict]:
    """A files export's rows as a store keeps them: a run once, from the
    first file that holds it (v1/text_warnings.json is irq-small.json's
    measurement with its warnings as text: one run), without the source."""
    first: dict[str, str] = {}
    rows = table.to_pylist()
    for r in rows:
        first.setdefault(r["run_id"], r["source"])
    return [{k: v for k, v in r.items() if k != "source"} for r in rows if first[r["run_id"]] == r["source"]]


def _row(r: dict) -> tuple:
    """A row as a comparable tuple (NaN is not equal to itself)."""
    return tuple((k, "nan" if isinstance(v, float) and math.isnan(v) else
                  tuple(v) if isinstance(v, list) else v) for k, v in sorted(r.items()))


def test_a_store_from_revision_0005_is_migrated_to_the_same_export(exported, tmp_path):
    """A store as revision 0005's code filled it (no export columns),
    opened by today's: each kept document fills them."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, insert, inspect

    from ctxbench.core.store.db import MIGRATIONS, normalise
    from ctxbench.core.store.tables import results, runs
    d, _ = exported
    url = str(tmp_path / "old.sqlite")
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with create_engine(normalise(url)).begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0005")
        have = {t: {c["name"] for c in inspect(conn).get_columns(t)} for t in ("runs", "results")}
        seen = set()
        for path in PATHS:
            doc = _doc(path)
            row = {k: v for k, v in record.run_row(doc).items() if k in have["runs"]}
            if row["digest"] in seen:  # kept once, as record.add keeps it
                continue
            seen.add(row["digest"])
            run_id = conn.execute(insert(runs).values(**row)).inserted_primary_key[0]
            rows = record.result_rows(doc, run_id) + record.effect_rows(doc, run_id)
            conn.execute(insert(results), [{k: v for k, v in r.items() if k in have["results"]} for r in rows])
    assert Store(url).revision() == "0006"
    p, out = _export(tmp_path, "--store", url)
    assert p.returncode == 0, p.stderr
    files = _as_stored(pq.read_table(d / "r.parquet"))
    assert Counter(map(_row, pq.read_table(out).drop(["source"]).to_pylist())) == Counter(map(_row, files))


def test_select_keeps_what_it_names_from_files_and_store_alike(tmp_path):
    sel = "id=kernel/*,host=vm,since=2026-01-01"
    p, out = _export(tmp_path, *PATHS[5:], "--select", sel)
    assert p.returncode == 0, p.stderr
    rows = pq.read_table(out).to_pylist()
    assert rows and all(r["id"].startswith("kernel/") and r["host"] == "vm" for r in rows)
    url = _store_of(tmp_path, PATHS[5:])
    p, out2 = _export(tmp_path, "--store", url, "--select", sel, name="s.parquet")
    assert p.returncode == 0, p.stderr
    assert sorted(r["median"] for r in pq.read_table(out2).to_pylist()) == sorted(r["median"] for r in rows)


def test_csv_joins_the_warning_codes(tmp_path):
    p, out = _export(tmp_path, FIXTURES / "v1/text_warnings.json", name="out.csv")
    assert p.returncode == 0, p.stderr
    import pyarrow.csv as pacsv
    table = pacsv.read_csv(out)
    codes = [c for c in table.column("warnings").to_pylist() if c]
    assert codes and all(set(c.split(";")) <= set(declared_codes()) for c in codes)


def declared_codes():
    from ctxbench.core.results.warnings import CODES
    return CODES


def test_a_malformed_file_is_one_line_and_the_others_are_exported(tmp_path):
    bad = [FIXTURES / "ring_corrupt.json", FIXTURES / "ring_truncated.json"]
    p, out = _export(tmp_path, FIXTURES / "ring_base.json", *bad, FIXTURES / "v1/run.json")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("ctxbench: ") for line in lines), p.stderr
    assert "ring_corrupt.json" in lines[0] and "ring_truncated.json" in lines[1]
    runs = set(pq.read_table(out).column("run_id").to_pylist())
    assert len(runs) == 2 and "(2 refused)" in p.stdout


@pytest.mark.parametrize("args,needle", [
    (["-o", "{d}/out.txt"], "cannot tell the format"),
    (["-o", "{d}"], "directory"),
    (["-o", "/proc/ctxbench-export.parquet"], "cannot"),
    (["-o", "{d}/ro/out.parquet"], "cannot"),
    (["-o", "{input}"], "input"),
    (["-o", "{d}/a.parquet", "--samples", "{d}/a.parquet"], "-o's file"),
    (["-o", "{d}/a.parquet", "--store", "{d}/s.sqlite"], "not both"),
    (["-o", "{d}/a.parquet", "--select", "colour=red"], "no key"),
    (["-o", "{d}/a.parquet", "--select", "since=yesterday"], "not a date"),
    (["-o", "/dev/stdin", "--format", "csv"], "export: refusing to write '/dev/stdin': it is standard input"),
    (["-o", "/proc/self/fd/0", "--format", "csv"], "standard input"),
    (["-o", "{d}/a.parquet", "--format", "arrow"], "named as Parquet"),
    (["-o", "-", "--samples", "/dev/stdout", "--format", "csv"], "one place"),
    (["-o", "{d}/link/a.csv", "--samples", "{d}/a.csv"], "-o's file"),  # one file through a symlinked directory
])
def test_a_bad_output_or_option_is_one_line(tmp_path, args, needle):
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    (tmp_path / "link").symlink_to(tmp_path)
    if "{d}/ro" in args[1] and os.geteuid() == 0:
        pytest.skip("root writes anywhere: /proc stands for a directory that refuses files")
    given = tmp_path / "in.parquet"
    given.write_bytes((FIXTURES / "ring_base.json").read_bytes())
    argv = [a.format(d=tmp_path, input=given) for a in args]
    p = run_cli("export", str(given if "{input}" in args else FIXTURES / "ring_base.json"), *argv, cwd=tmp_path)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and lines[0].startswith("ctxbench: ") and needle in lines[0], p.stderr
    assert given.read_bytes() == (FIXTURES / "ring_base.json").read_bytes()


def test_load_gives_pandas_then_polars_then_arrow(monkeypatch, tmp_path):
    import ctxbench
    from ctxbench.core.errors import UserError
    df = ctxbench.load(PATHS[:2])
    assert str(df["n"].dtype) == "Int64" and str(df["started"].dtype).endswith(", UTC]")
    assert _medians(df.to_dict("records")) == _medians_of_documents(PATHS[:2])
    url = _store_of(tmp_path, PATHS[:2])
    res, smp = ctxbench.load(url, samples=True)
    assert len(res) == len(df) and len(smp) > 0
    monkeypatch.setitem(sys.modules, "pandas", None)  # not installed
    pl = pytest.importorskip("polars")
    assert isinstance(ctxbench.load(PATHS[0]), pl.DataFrame)
    monkeypatch.setitem(sys.modules, "polars", None)
    assert isinstance(ctxbench.load(PATHS[0]), pa.Table)
    with pytest.raises(UserError) as e:
        ctxbench.load([PATHS[0], str(FIXTURES / "ring_corrupt.json")])
    assert "\n" not in str(e.value) and "ring_corrupt.json" in str(e.value)


def _clock_of(command: str) -> str:
    """The recorded clock of tests/test_quick_readers.py's run of `command`."""
    import hashlib
    node = f"tests/test_quick_readers.py::test_quick_file_goes_through_every_reader[{command}]"
    return str(RECORDINGS / f"clock-{hashlib.sha1(node.encode()).hexdigest()[:12]}.json.gz")


def test_the_commands_without_a_fixture_export_too(tmp_path, monkeypatch):
    """userbench, anatomy and peers have no file in tests/fixtures (and
    its sweeps are slow to read): their --quick files, measured on the
    recorded engine, round-trip too."""
    made = []
    for command, more in (("userbench", []), ("anatomy", []), ("peers", ["--peer", "ctx-clock"]), ("sweep", [])):
        monkeypatch.setenv("CTXBENCH_CLOCK_REPLAY", _clock_of(command))
        out = tmp_path / f"{command}.json"
        p = run_cli(command, "--quick", *more, "--no-store", "-o", str(out), cwd=tmp_path)
        assert p.returncode == 0, p.stderr[-2000:]
        made.append(str(out))
    p, out = _export(tmp_path, *made)
    assert p.returncode == 0, p.stderr
    assert _medians(pq.read_table(out).to_pylist()) == _medians_of_documents(made)


def _store_0005(url: str, paths, damage: int | None = None, reverse: bool = False) -> None:
    """A store as revision 0005's code filled it (no export columns); run
    `damage`'s kept document made garbage; each run's rows in reverse order."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, insert, inspect, update

    from ctxbench.core.store.db import MIGRATIONS, normalise
    from ctxbench.core.store.tables import results, runs
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with create_engine(normalise(url)).begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0005")
        have = {t: {c["name"] for c in inspect(conn).get_columns(t)} for t in ("runs", "results")}
        for path in paths:
            doc = _doc(path)
            run_id = conn.execute(insert(runs).values(
                **{k: v for k, v in record.run_row(doc).items() if k in have["runs"]})).inserted_primary_key[0]
            if run_id == damage:
                conn.execute(update(runs).where(runs.c.id == run_id).values(document=b"garbage"))
            rows = record.result_rows(doc, run_id) + record.effect_rows(doc, run_id)
            conn.execute(insert(results), [{k: v for k, v in r.items() if k in have["results"]}
                                           for r in (rows[::-1] if reverse else rows)])


def test_migration_0006_pairs_rows_by_point_and_goes_past_a_damaged_document(exported, tmp_path):
    """A ring's points share an id: each kept row gets its own point's
    columns whatever their order; a run whose document is garbage keeps
    empty columns, said in one line, and the others are filled."""
    d, _ = exported
    url = str(tmp_path / "old.sqlite")
    ring, irq = str(FIXTURES / "ring_ring.json"), str(FIXTURES / "irq-small.json")
    _store_0005(url, [ring, irq], damage=2, reverse=True)
    p, out = _export(tmp_path, "--store", url)
    assert p.returncode == 0 and p.stderr.count("\n") == 1 and "run 2" in p.stderr, p.stderr
    got = pq.read_table(out).drop(["source"]).to_pylist()
    files = [r for r in _as_stored(pq.read_table(d / "r.parquet")) if r["run_id"] == record.digest(_doc(ring))]
    assert Counter(map(_row, (r for r in got if r["run_id"] == files[0]["run_id"]))) == Counter(map(_row, files))
    assert {r["n"] for r in got if r["run_id"] != files[0]["run_id"]} == {None}


def test_orphan_rows_bad_cells_and_damaged_documents_in_a_store(tmp_path):
    """Result rows whose run was deleted (foreign keys off) are dropped and
    counted; a run whose kept document is damaged loses its samples (one
    line), not the export; a value of another type is one line naming its
    column and run."""
    import sqlite3
    irq = str(FIXTURES / "irq-small.json")
    url = _store_of(tmp_path, [str(FIXTURES / "ring_base.json"), irq])
    with sqlite3.connect(url) as db:
        db.execute("PRAGMA foreign_keys = OFF")
        db.execute("DELETE FROM runs WHERE id = 1")
        db.execute("UPDATE runs SET document = x'00' WHERE id = 2")
    p = run_cli("export", "--store", url, "-o", str(tmp_path / "r.parquet"), "--samples", str(tmp_path / "s.csv"))
    assert p.returncode == 0 and "4 result row(s) of no run, dropped" in p.stdout and "run 2" in p.stderr, p.stderr
    assert p.stderr.count("\n") == 1 and (tmp_path / "s.csv").read_text().count("\n") == 1  # its header
    assert set(pq.read_table(tmp_path / "r.parquet").column("run_id").to_pylist()) == {record.digest(_doc(irq))}
    with sqlite3.connect(url) as db:
        db.execute("UPDATE results SET param_cpu = 'abc' WHERE run_id = 2")
    p = run_cli("export", "--store", url, "-o", str(tmp_path / "r.csv"))
    assert p.returncode == 2 and "run 2" in p.stderr and "param_cpu" in p.stderr and p.stderr.count("\n") == 1


def test_files_export_their_text_whole_and_each_run_once(tmp_path):
    """A file's text is not cut to a store's column widths (the samples'
    ids join the results'), '' stays ''; a file given twice is one run."""
    import json
    doc = json.loads((FIXTURES / "ring_base.json").read_text())
    doc["environment"]["hostname"] = "h" * 300
    doc["results"][0]["id"] = "kernel/" + "x" * 300
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc))
    p = run_cli("export", str(path), str(path), "-o", str(tmp_path / "r.parquet"),
                "--samples", str(tmp_path / "s.parquet"))
    assert p.returncode == 0 and "1 file(s) a run already read" in p.stdout, p.stderr
    rows = pq.read_table(tmp_path / "r.parquet").to_pylist()
    assert len(rows) == 4 and rows[0]["host"] == "h" * 300
    assert {r["id"] for r in pq.read_table(tmp_path / "s.parquet").to_pylist()} == {r["id"] for r in rows}
    assert record.fitted(record.results, {"result_id": ""}, whole=True) == {"result_id": ""}


@pytest.mark.parametrize("args,kw", [((None,), {}), ((5,), {}), (([None],), {}), (({"a": 1},), {}),
                                     (("a\0b.json",), {}), ((PATHS[0],), {"select": 7}),
                                     ((PATHS[0],), {"select": ["id=a", 5]})])
def test_load_refuses_bad_arguments_in_one_line(args, kw):
    import ctxbench
    from ctxbench.core.errors import UserError
    with pytest.raises(UserError) as e:
        ctxbench.load(*args, **kw)
    assert "\n" not in str(e.value)


def test_load_refuses_a_fifo_without_waiting(tmp_path):
    import ctxbench
    from ctxbench.core.errors import UserError
    os.mkfifo(tmp_path / "f")
    with pytest.raises(UserError, match="a FIFO"):
        ctxbench.load(str(tmp_path / "f"))
    assert len(ctxbench.load(os.fsencode(PATHS[0]))) == 4  # bytes: a path as the file system names it


def test_a_local_time_the_platform_cannot_place_is_still_an_instant(monkeypatch):
    import datetime
    import time

    from ctxbench.export import times
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        assert times.utc("0001-01-01T00:00:00") == datetime.datetime(1, 1, 1, tzinfo=datetime.timezone.utc)
        assert times.utc("0001-01-01T00:00:00+01:00") is None  # before year 1
    finally:
        monkeypatch.undo()
        time.tzset()
