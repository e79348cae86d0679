"""The results store (issue 25) on SQLite and on a real PostgreSQL server
started for these tests: the same runs in give the same rows out, a file
added twice is kept once, two processes adding at once lose nothing, the
code's tables are the migrations' schema, and a damaged, foreign or newer
database is one line and exit 2, never a traceback."""
from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import sys

import pytest

from conftest import ctxbench_cmd, run_cli

pytest.importorskip("sqlalchemy")
from sqlalchemy import select, text  # noqa: E402

from ctxbench.core.results import plain  # noqa: E402
from ctxbench.core.store import record  # noqa: E402
from ctxbench.core.store.db import Store  # noqa: E402
from ctxbench.core.store.tables import results, runs  # noqa: E402
from ctxbench.records import RECORDS

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture
def store_url(request, tmp_path):
    """A fresh, empty store of each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "store.sqlite")
    srv = request.getfixturevalue("server")
    return srv.database(f"t{os.getpid()}_{abs(hash(str(tmp_path))) % 10**8}")


def synthetic(k: int) -> dict:
    """Run k of a made-up series: 4 hosts, 3 kernels, an hour apart, two
    ids whose medians drift with k (known numbers, not measured ones)."""
    res = []
    for j, rid in enumerate(("kernel/thread/pipe/same-cpu", "user/asm/same-thread")):
        med = (1000.0 if j == 0 else 5.0) * (1 + 0.001 * k)
        res.append({"id": rid, "quantity": "switch", "unit": "ns", "params": {"cpu": 1},
                    "samples": [med] * 3, "summary": {"median": med, "ci95": [med * 0.98, med * 1.02], "n": 3},
                    "verification": {"checked": True, "ok": k % 7 != 0}})
    return {"schema": "ctxbench/1", "tool": {"name": "ctxbench-engine", "version": "0.1.0"},
            "environment": {"hostname": f"host{k % 4}", "cpu": {"model": "Test CPU"},
                            "kernel": {"release": f"6.{k % 3}.0"}, "mitigations": {"spectre_v2": "Mitigation: x"}},
            "results": res, "run": {"started": f"2026-{1 + k // 700:02d}-{1 + k % 28:02d}T{k % 24:02d}:00:00"}}


def rows_out(url: str) -> list[tuple]:
    s = Store(url)
    with s.begin() as conn:
        q = (select(runs.c.host, runs.c.kernel, runs.c.started, results.c.point_key, results.c.median,
                    results.c.ci_lo, results.c.ci_hi, results.c.ok)
             .join(results, results.c.run_id == runs.c.id)
             .order_by(runs.c.started, runs.c.host, results.c.point_key, results.c.median))
        return [tuple(r) for r in conn.execute(q).all()]


@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_runs_in_are_rows_out_and_a_run_is_kept_once(store_url):
    s = Store(store_url)
    docs = [synthetic(k) for k in range(1000)]
    with s.begin() as conn:
        added = [record.add(conn, d)[1] for d in docs]
    with s.begin() as conn:
        again = record.add(conn, docs[17])
        back = record.document(conn, again[0], RECORDS)
    # kept as recorded, read back upgraded: a ctxbench/1 document is read as ctxbench/2 (core/results/upgrade.py)
    assert all(added) and again[1] is False and plain(back) == dict(docs[17], schema="ctxbench/2")
    out = rows_out(store_url)
    assert len(out) == 2000
    kernel = sorted((r[4], r[5], r[6]) for r in out if r[3] == "kernel/thread/pipe/same-cpu")
    assert kernel[0] == pytest.approx((1000.0, 980.0, 1020.0)) and kernel[-1][0] == pytest.approx(1000 * 1.999)
    assert sum(1 for r in out if r[7] is False) == 2 * len(range(0, 1000, 7))
    assert s.revision() == "0006"


def test_sqlite_and_postgresql_give_the_same_rows(tmp_path, server):
    urls = [str(tmp_path / "s.sqlite"), server.database("same_rows")]
    for url in urls:
        s = Store(url)
        with s.begin() as conn:
            for k in range(1000):
                record.add(conn, synthetic(k))
    a, b = (rows_out(u) for u in urls)
    assert len(a) == 2000 and a == b


def _adder(url: str, first: int, count: int) -> subprocess.Popen:
    code = "import sys, store_adder as a; a.main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen([sys.executable, "-c", code, url, str(first), str(count)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow  # processes racing each other
@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_two_processes_adding_at_once_lose_nothing(store_url):
    procs = [_adder(store_url, 0, 150), _adder(store_url, 150, 150)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
    s = Store(store_url)
    with s.begin() as conn:
        n = conn.execute(text("SELECT count(*) FROM runs")).scalar_one()
        m = conn.execute(text("SELECT count(*) FROM results")).scalar_one()
    assert (n, m) == (300, 600)


def test_the_code_s_tables_are_the_migrations_schema(tmp_path):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from ctxbench.core.store.tables import metadata
    s = Store(str(tmp_path / "s.sqlite"))
    with s.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == [], diff


def _store_at(url: str, revision: str) -> None:
    """An empty store whose schema stops at `revision`, as an older
    ctxbench left it."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    from ctxbench.core.store.db import MIGRATIONS, normalise
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with create_engine(normalise(url)).begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_a_store_from_the_first_schema_is_migrated_with_its_runs(store_url):
    """Revision 0001's store, filled as 0001's code filled it (microcode
    left empty, no governor or VM columns), opened by today's code: the
    schema is brought to head and the new columns are filled from each
    run's kept document; every run and result is still there."""
    from sqlalchemy import create_engine, insert

    from ctxbench.core.store.db import normalise
    _store_at(store_url, "0001")
    docs = []
    for k in range(12):
        d = synthetic(k)
        d["environment"]["cpu"]["microcode"] = f"0x{k:x}"
        d["environment"]["frequency"] = {"governors": {"0": "performance", "1": "schedutil" if k % 2 else "performance"}}
        d["environment"]["virtualization"] = {"is_vm": k % 3 == 0}
        docs.append(d)
    with create_engine(normalise(store_url)).begin() as conn:
        for d in docs:
            row = record.run_row(d)
            old = {k: v for k, v in row.items()
                   if k not in ("governor", "vm", "core_ghz", *SINCE_0005, *SINCE_0006)} | {"microcode": None}
            run_id = conn.execute(insert(runs).values(**old)).inserted_primary_key[0]
            conn.execute(insert(results), [_before_0003(r) for r in record.result_rows(d, run_id)])
    s = Store(store_url)
    assert s.revision() == "0006"
    with s.begin() as conn:
        got = conn.execute(text("SELECT microcode, governor, vm FROM runs ORDER BY id")).all()
        assert conn.execute(text("SELECT count(*) FROM results")).scalar_one() == 24
    assert [tuple(r) for r in got] == [
        (f"0x{k:x}", "performance, schedutil" if k % 2 else "performance", k % 3 == 0) for k in range(12)]


# the runs columns of revision 0005 (the host's state), which an older store's code did not write
SINCE_0005 = ("syscall_ns", "steal_share", "others_busy_share")
# and of revision 0006 (what ctxbench export reads): the runs' hypervisor, the results' own below
SINCE_0006 = ("hypervisor",)
RESULTS_SINCE_0006 = ("quantity", "n", "cv", "verdict", "warning_codes", "clock_ghz", "params_other")


def _before_0006(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in RESULTS_SINCE_0006 and not k.startswith("param_")}


def _before_0003(row: dict) -> dict:
    return {k: v for k, v in _before_0006(row).items() if not k.startswith("cycles_")}


def with_cycles(d: dict, ghz: float) -> dict:
    """Document d as ctxbench writes it from issue 32 on: every result
    analysed in core cycles at a clock of `ghz` (known numbers)."""
    d = copy.deepcopy(d)
    for r in d["results"]:
        med = r["summary"]["median"] * ghz
        r["cycles"] = {"applies": True, "unit": "core cycles", "method": "probe",
                       "clock": {"ghz_median": ghz},
                       "summary": {"median": med, "ci95": [med * 0.99, med * 1.01], "mde": med * 0.03}}
    return d


@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_a_store_from_revision_0002_gains_cycles_from_its_kept_documents(store_url):
    """Revision 0002's store, filled as 0002's code filled it (no cycles
    columns), with runs whose documents hold cycles and runs from before
    the probe: opened by today's code, each run's core clock and each
    result's median, interval, MDE and method in cycles are filled from
    its document; the older runs' stay empty."""
    from sqlalchemy import create_engine, insert

    from ctxbench.core.store.db import normalise
    _store_at(store_url, "0002")
    docs = [with_cycles(synthetic(k), 3.0 + 0.1 * k) if k % 2 else synthetic(k) for k in range(6)]
    with create_engine(normalise(store_url)).begin() as conn:
        for d in docs:
            old = {k: v for k, v in record.run_row(d).items() if k not in ("core_ghz", *SINCE_0005, *SINCE_0006)}
            run_id = conn.execute(insert(runs).values(**old)).inserted_primary_key[0]
            conn.execute(insert(results), [_before_0003(r) for r in record.result_rows(d, run_id)])
    s = Store(store_url)
    assert s.revision() == "0006"
    with s.begin() as conn:
        ghz = conn.execute(text("SELECT core_ghz FROM runs ORDER BY id")).scalars().all()
        cyc = conn.execute(text("SELECT median, cycles_median, cycles_ci_lo, cycles_mde, cycles_method "
                                "FROM results ORDER BY id")).all()
    assert ghz == [None if k % 2 == 0 else pytest.approx(3.0 + 0.1 * k) for k in range(6)]
    for i, (ns, c, lo, mde, m) in enumerate(cyc):
        k = i // 2
        if k % 2 == 0:
            assert (c, lo, mde, m) == (None, None, None, None)
        else:
            assert c == pytest.approx(ns * (3.0 + 0.1 * k)) and lo == pytest.approx(c * 0.99)
            assert mde == pytest.approx(c * 0.03) and m == "probe"


def test_result_rows_carry_cycles_where_they_apply():
    d = with_cycles(synthetic(3), 2.5)
    d["results"][1]["cycles"] = {"applies": False, "why": "a cross-CPU wake-up"}
    rows = record.result_rows(d, 1)
    assert rows[0]["cycles_median"] == pytest.approx(rows[0]["median"] * 2.5) and rows[0]["cycles_method"] == "probe"
    assert rows[1]["cycles_median"] is None and rows[1]["cycles_method"] is None
    assert record.run_row(d)["core_ghz"] == pytest.approx(2.5)


def _one_line(p, *words):
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr and all(w in lines[0] for w in words), p.stderr


def test_a_damaged_or_foreign_sqlite_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database at all" * 100)
    _one_line(run_cli("store", "info", "--store", str(bad)), "not a SQLite database")
    import sqlite3
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as c:
        c.execute("CREATE TABLE accounts (x)")
    _one_line(run_cli("store", "info", "--store", str(foreign)), "not a ctxbench store", "accounts")


@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_a_schema_from_a_newer_ctxbench_is_one_line(store_url):
    s = Store(store_url)
    with s.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    _one_line(run_cli("store", "info", "--store", store_url), "newer ctxbench")


def test_a_server_that_is_not_there_is_one_line():
    _one_line(run_cli("store", "info", "--store", "postgresql://someone:secret@127.0.0.1:1/none"),
              "connection", "***")
    p = run_cli("store", "info", "--store", "postgresql://someone:secret@127.0.0.1:1/none")
    assert "secret" not in p.stderr


def test_store_add_keeps_files_once_and_checks_them_first(tmp_path):
    url = str(tmp_path / "s.sqlite")
    files = []
    for k in range(3):
        f = tmp_path / f"r{k}.json"
        f.write_text(json.dumps(synthetic(k)))
        files.append(str(f))
    p = run_cli("store", "add", *files, "--store", url, "--commit", "abc123")
    assert p.returncode == 0 and "3 of 3 file(s) added" in p.stdout, p.stderr
    p = run_cli("store", "add", files[0], "--store", url)
    assert p.returncode == 0 and "already kept" in p.stdout and "0 of 1" in p.stdout
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    _one_line(run_cli("store", "add", files[1], str(broken), "--store", url), "broken.json")
    info = run_cli("store", "info", "--store", url)
    assert info.returncode == 0 and "3 run(s), 6 result(s) of 2 id(s)" in info.stdout, info.stdout
    s = Store(url)
    with s.begin() as conn:
        assert set(conn.execute(select(runs.c.git_commit)).scalars()) == {"abc123"}


def test_the_default_store_is_in_the_data_directory(tmp_path, private_data_dir):
    f = tmp_path / "r.json"
    f.write_text(json.dumps(copy.deepcopy(synthetic(1))))
    env = {k: v for k, v in os.environ.items() if k != "CTXBENCH_STORE"}
    p = subprocess.run(ctxbench_cmd() + ["store", "add", str(f)], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert (private_data_dir / "ctxbench" / "store.sqlite").is_file()


def test_the_config_file_names_the_store_and_a_bad_one_is_one_line(tmp_path):
    """store = "..." in $XDG_CONFIG_HOME/ctxbench/config.toml, below --store
    and $CTXBENCH_STORE."""
    f = tmp_path / "r.json"
    f.write_text(json.dumps(copy.deepcopy(synthetic(2))))
    conf = tmp_path / "conf"
    (conf / "ctxbench").mkdir(parents=True)
    (conf / "ctxbench" / "config.toml").write_text(f'store = "{tmp_path / "from-config.sqlite"}"\n')
    env = {k: v for k, v in os.environ.items() if k != "CTXBENCH_STORE"} | {"XDG_CONFIG_HOME": str(conf)}
    p = subprocess.run(ctxbench_cmd() + ["store", "add", str(f)], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0 and (tmp_path / "from-config.sqlite").is_file(), p.stderr
    (conf / "ctxbench" / "config.toml").write_text("store = [1, 2\n")
    q = subprocess.run(ctxbench_cmd() + ["store", "info"], capture_output=True, text=True, env=env, timeout=120)
    assert q.returncode == 2 and q.stderr.count("\n") == 1 and "config.toml" in q.stderr, q.stderr



def _reanalysed(d: dict) -> dict:
    """Document d as another ctxbench would write the same measurement:
    other summaries and warnings, the newer format."""
    d = copy.deepcopy(d)
    d["schema"] = "ctxbench/2"
    for r in d["results"]:
        r["summary"] = dict(r["summary"], median=r["summary"]["median"] * 1.01, mde=3.0)
        r["warnings"] = [{"code": "outliers", "severity": "info", "text": "1 statistical outlier", "data": {}}]
    return d


@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_the_same_measurement_analysed_anew_is_one_run(store_url):
    s = Store(store_url)
    d = synthetic(5)
    with s.begin() as conn:
        first = record.add(conn, d)
        again = record.add(conn, _reanalysed(d))
        other = record.add(conn, synthetic(6))
    assert first[1] and again == (first[0], False) and other[1]
    with s.begin() as conn:  # `store add` says which: the file as kept, or the measurement analysed anew
        assert record.kept_as_given(conn, first[0], d) and not record.kept_as_given(conn, first[0], _reanalysed(d))
    # what was measured tells runs apart: another sample is another run
    e = _reanalysed(d)
    e["results"][0]["samples"][1] += 1.0
    assert record.digest(e) != record.digest(d)


@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_a_store_from_revision_0003_keeps_one_run_per_measurement(store_url):
    """Revision 0003 digested the whole analysed document, so the same
    file added by two ctxbench versions was two runs: opened by today's
    code, each run's digest is of what it measured, and the later copy
    of a measurement goes with its result rows; the others stay."""
    from sqlalchemy import create_engine, insert

    from ctxbench.core.store.db import normalise
    _store_at(store_url, "0003")
    docs = [synthetic(0), synthetic(1), _reanalysed(synthetic(0)), synthetic(2)]
    with create_engine(normalise(store_url)).begin() as conn:
        for d in docs:
            row = {k: v for k, v in record.run_row(d).items() if k not in (*SINCE_0005, *SINCE_0006)} | \
                {"digest": hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()}
            run_id = conn.execute(insert(runs).values(**row)).inserted_primary_key[0]
            conn.execute(insert(results), [_before_0006(r) for r in record.result_rows(d, run_id)])
    s = Store(store_url)
    assert s.revision() == "0006"
    with s.begin() as conn:
        kept = conn.execute(text("SELECT id, digest FROM runs ORDER BY id")).all()
        per_run = conn.execute(text("SELECT run_id, count(*) FROM results GROUP BY run_id ORDER BY run_id")).all()
        assert record.add(conn, _reanalysed(synthetic(1)))[1] is False
    assert [i for i, _ in kept] == [1, 2, 4]
    assert [dg for _, dg in kept] == [record.digest(docs[i]) for i in (0, 1, 3)]
    assert [tuple(r) for r in per_run] == [(1, 2), (2, 2), (4, 2)]


def _at_0005(tmp_path) -> str:
    url = str(tmp_path / "old.sqlite")
    _store_at(url, "0005")
    return url


def test_two_readers_upgrading_one_old_store_at_once_both_read_it(tmp_path):
    """The upgrade takes the writer's lock from its first statement (BEGIN
    IMMEDIATE): the second reader waits for it, then finds it done, rather
    than failing "database is locked" on a lock it could not upgrade."""
    import threading

    from ctxbench.core.errors import UserError
    url = _at_0005(tmp_path)
    failed = []

    def read():
        try:
            Store(url, writes=False)
        except UserError as e:
            failed.append(str(e))
    threads = [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failed and Store(url, writes=False).revision() == "0006"


def test_a_reader_of_an_old_store_it_cannot_write_says_who_upgrades_it(tmp_path):
    from ctxbench.core.errors import UserError
    url = _at_0005(tmp_path)
    os.chmod(url, 0o444)
    try:
        open(url, "r+b").close()
        pytest.skip("this user writes a read-only file (root)")
    except PermissionError:
        pass
    with pytest.raises(UserError, match="at revision 0005.*ctxbench store add") as e:
        Store(url, writes=False)
    assert "\n" not in str(e.value)
