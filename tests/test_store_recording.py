"""Every measuring command records its run in the results store through
the lifecycle (issue 25): --store names one, --no-store none, and a store
that cannot take the run costs a warning, never the results file or the
exit status. `run --quick` stands for every command: they all finish
through Lifecycle.finish (tests/test_lifecycle_commands.py)."""
import json
import os
import subprocess

import pytest

from conftest import ENGINE, ctxbench_cmd
from ctxbench.records import RECORDS

pytestmark = [pytest.mark.machine, pytest.mark.flow]
pytest.importorskip("sqlalchemy")


def _run(tmp_path, *extra, store_env=None):
    env = {k: v for k, v in os.environ.items() if k != "CTXBENCH_STORE"}
    env.update(CTXBENCH_ENGINE=str(ENGINE), XDG_DATA_HOME=str(tmp_path / "data"))
    if store_env is not None:
        env["CTXBENCH_STORE"] = store_env
    # one id: what is recorded is the document, whatever it holds
    return subprocess.run(ctxbench_cmd() + ["run", "--quick", "--ids", "baseline/nop", "-o", str(tmp_path / "out.json"),
                                            *extra],
                          capture_output=True, text=True, env=env, timeout=300)


def _runs(url: str) -> list[dict]:
    from ctxbench.core.results import plain
    from ctxbench.core.store import record
    from ctxbench.core.store.db import Store
    from ctxbench.core.store.tables import runs
    from sqlalchemy import select
    s = Store(url)
    with s.begin() as conn:
        return [plain(record.document(conn, i, RECORDS)) for i in conn.execute(select(runs.c.id)).scalars()]


def test_store_records_the_run_as_written(tmp_path):
    url = str(tmp_path / "s.sqlite")
    p = _run(tmp_path, "--store", url)
    assert p.returncode == 0, p.stderr
    assert "recorded in the results store" in p.stdout and "(run 1)" in p.stdout
    assert _runs(url) == [json.loads((tmp_path / "out.json").read_text())]


def test_the_default_store_is_the_data_directory_s_and_no_store_is_none(tmp_path):
    p = _run(tmp_path)
    assert p.returncode == 0, p.stderr
    default = tmp_path / "data" / "ctxbench" / "store.sqlite"
    assert default.is_file() and len(_runs(str(default))) == 1
    q = _run(tmp_path, "--no-store")
    assert q.returncode == 0 and "recorded in the results store" not in q.stdout + q.stderr
    assert len(_runs(str(default))) == 1
    r = _run(tmp_path, store_env="off")
    assert r.returncode == 0 and len(_runs(str(default))) == 1


def test_a_file_that_is_no_sqlite_database_is_refused_before_measuring(tmp_path):
    """A file without SQLite's header (or a SQLite database of other
    tables) can be told from its first page: refused in one line before
    anything is measured (issue 33), not found after the run."""
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a database" * 100)
    p = _run(tmp_path, "--store", str(bad))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "not a SQLite database" in p.stderr, p.stderr
    assert not (tmp_path / "out.json").exists() and "measuring" not in p.stderr
    assert bad.read_bytes() == b"not a database" * 100


def _warned_once(p, *words):
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    warn = [line for line in p.stderr.splitlines() if "not recorded in the results store" in line]
    assert len(warn) == 1 and all(w in warn[0] for w in words), p.stderr


def test_a_store_whose_database_fails_costs_a_warning_not_the_results(tmp_path, server):
    """Issue 33: a store with pages overwritten after its header, a
    PostgreSQL role without INSERT, a server stopped after the run began:
    each is the documented warning, exit 0, the results file whole (the
    audit's run ended in a SQLAlchemy traceback and exit 1)."""
    from test_store_edges import damaged, fill, synthetic
    p = _run(tmp_path, "--store", damaged(tmp_path))
    _warned_once(p, "damaged")
    assert json.loads((tmp_path / "out.json").read_text())["results"]
    url = server.database(f"rec{os.getpid()}")
    fill(url, [synthetic(1)])
    import psycopg
    with psycopg.connect(url, autocommit=True) as c:
        c.execute("CREATE ROLE runner LOGIN")
        c.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO runner")
    (tmp_path / "out.json").unlink()
    p = _run(tmp_path, "--store", url.replace("//ctxbench@", "//runner:s3cretpw@"))
    _warned_once(p, "permission denied", "runner:***@")
    assert "s3cretpw" not in p.stdout + p.stderr and json.loads((tmp_path / "out.json").read_text())["results"]
    from postgres_server import Server
    srv = Server()
    gone = srv.database("gone")
    srv.stop()
    (tmp_path / "out.json").unlink()
    _warned_once(_run(tmp_path, "--store", gone), "store postgresql://")
    assert json.loads((tmp_path / "out.json").read_text())["results"]
