"""Opening a store: which database (a path or URL, default SQLite in the
data directory), its schema brought to the newest version by Alembic, and
every failure said in one line (a file that is not a database, a database
that is not a store, a schema from a newer ctxbench, a server that is not
there).

Concurrency: two processes adding at once must lose nothing. SQLite
serialises writers on the file; each transaction here starts with BEGIN
IMMEDIATE (the writer lock taken at once, so two first-time migrations
cannot both create the tables) and waits up to BUSY_S for it. PostgreSQL
migrations take an advisory lock for the same reason; its rows need none."""
from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import create_engine, event, inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from ctxbench.core import datadir
from ctxbench.core.errors import UserError, escaped, shown

BUSY_S = 60                         # how long a writer waits for another's lock
MIGRATION_LOCK = 0x63747862          # PostgreSQL advisory lock key ("ctxb")
MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def default_url() -> str:
    """SQLite in the user's data directory (XDG rules), beside the runs
    kept without -o (core/datadir)."""
    return "sqlite:///" + os.path.join(datadir.base(), "store.sqlite")


def normalise(where: str | None) -> str:
    """A URL SQLAlchemy understands: a plain path is a SQLite file;
    postgresql:// and postgres:// go through psycopg 3."""
    if not where:
        return default_url()
    if "://" not in where:
        return "sqlite:///" + os.path.abspath(where)
    scheme, rest = where.split("://", 1)
    if scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        return "postgresql+psycopg://" + rest
    if scheme in ("sqlite", "sqlite+pysqlite"):
        return "sqlite:///" + rest.lstrip("/") if rest.startswith("/") and not rest.startswith("//") else where
    raise UserError(f"store {shown(where)}: not a SQLite path or a postgresql:// URL")


def redacted(url: str) -> str:
    """The URL without its password, for messages."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        cred, host = rest.rsplit("@", 1)
        return f"{scheme}://{cred.split(':', 1)[0]}:***@{host}" if ":" in cred else url
    return url


def _sqlite_immediate(engine: Engine) -> None:
    """pysqlite's own transaction handling is replaced by BEGIN IMMEDIATE
    (SQLAlchemy's documented recipe for SQLite locking)."""
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):
        dbapi_conn.isolation_level = None
        dbapi_conn.execute(f"PRAGMA busy_timeout = {BUSY_S * 1000}")
        dbapi_conn.execute("PRAGMA foreign_keys = ON")

    @event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def open_named(flag: str | None) -> "Store":
    """The store a command that reads or fills one was asked for: --store,
    else $CTXBENCH_STORE, else the default. CTXBENCH_STORE=off stops
    measuring commands recording their runs; a command asked for a store
    uses the default one then."""
    from ctxbench.core.store.choice import OFF, chosen
    where = chosen(flag)
    return Store(None if where == OFF else where)


def existing(flag: str | None) -> "Store | None":
    """The store open_named would open, if it exists already (a SQLite
    file that is there, or a server's database); None where it does not
    or where storing is off: for a command that only reads a store in
    passing and must not create one."""
    from ctxbench.core.store.choice import OFF, chosen
    where = chosen(flag)
    if where == OFF:
        return None
    url = normalise(where)
    if url.startswith("sqlite") and not os.path.isfile(url[len("sqlite:///"):]):
        return None
    return Store(where)


class Store:
    """An open store; `with store.begin() as conn:` for one transaction."""

    def __init__(self, where: str | None = None):
        self.url = normalise(where)
        self.name = escaped(redacted(where or self.url))
        self.sqlite = self.url.startswith("sqlite")
        if self.sqlite:
            path = self.url[len("sqlite:///"):]
            try:
                os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
            except OSError as e:
                raise UserError(f"store {shown(path)}: cannot make its directory ({e.strerror or e})")
            if os.path.isdir(path):
                raise UserError(f"store {shown(path)}: a directory, not a database file")
        try:
            self.engine = create_engine(self.url, connect_args={"timeout": BUSY_S} if self.sqlite
                                        else {"connect_timeout": 10})
        except (SQLAlchemyError, ImportError, ValueError) as e:
            raise UserError(f"store {self.name}: {_why(e)}")
        if self.sqlite:
            _sqlite_immediate(self.engine)
        self.migrate()

    def begin(self):
        return _Guard(self)

    def migrate(self) -> None:
        """Bring the schema to the newest version (Alembic upgrade head),
        after checking that the database is a store or empty."""
        from alembic import command
        from alembic.config import Config
        from alembic.script import ScriptDirectory

        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        known = {s.revision for s in ScriptDirectory.from_config(cfg).walk_revisions()}
        with self.begin() as conn:
            if not self.sqlite:
                conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
            tables = set(inspect(conn).get_table_names())
            if tables and "alembic_version" not in tables:
                raise UserError(f"store {self.name}: a database, but not a ctxbench store (tables: "
                                f"{', '.join(sorted(tables)[:5])}); name another with --store")
            if "alembic_version" in tables:
                have = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
                newer = [v for v in have if v not in known]
                if newer:
                    raise UserError(f"store {self.name}: its schema ({', '.join(newer)}) is from a newer ctxbench; "
                                    "upgrade ctxbench to use it")
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    def revision(self) -> str | None:
        with self.begin() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


class _Guard:
    """A transaction whose database errors become one line."""

    def __init__(self, store: Store):
        self.store = store
        self.cm = None

    def __enter__(self) -> Connection:
        try:
            self.cm = self.store.engine.begin()
            return self.cm.__enter__()
        except (SQLAlchemyError, OSError) as e:
            raise UserError(f"store {self.store.name}: {_why(e)}")

    def __exit__(self, kind, value, tb):
        # the transaction's end re-raises what ended it; a database's
        # error, from there or from the commit, becomes one line
        try:
            return self.cm.__exit__(kind, value, tb)
        except (SQLAlchemyError, OSError) as e:
            raise UserError(f"store {self.store.name}: {_why(e)}") from None


def _why(e: BaseException) -> str:
    """The database's own words, first line only."""
    orig = e.orig if isinstance(e, DBAPIError) and e.orig is not None else e
    text_ = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    if "file is not a database" in text_ or "malformed" in text_:
        return f"not a SQLite database, or a damaged one ({text_})"
    return escaped(text_)
