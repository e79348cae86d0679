"""Opening a store: the place core/store/choice.py decided and checked
(before anything was measured), its schema brought to the newest version
by Alembic, and every failure of the database said in one line naming the
store, its password masked: a file that is not a database or a damaged
one, a database that is not a store, a schema from a newer ctxbench, a
server that is not there or goes away, a role that may not write, a value
the server refuses, a disk that is full or fails (said as such, though
the error SQLAlchemy raises last is a consequence: SQLite rolls the whole
transaction back on a full disk, and the savepoint's own rollback then
finds "no such savepoint"). A command that only reads a store never creates one
(nor its tables in an empty PostgreSQL database).

Concurrency: two processes adding at once must lose nothing. SQLite
serialises writers on the file; each writing transaction here starts with
BEGIN IMMEDIATE (the writer lock taken at once, so two first-time
migrations cannot both create the tables) and waits up to BUSY_S for it;
a reading one is a plain BEGIN, so a read-only file can be read.
PostgreSQL migrations take an advisory lock for the same reason; its rows
need none."""
from __future__ import annotations

import errno
import json
import logging
import sqlite3
import zlib
from pathlib import Path

from sqlalchemy import create_engine, event, inspect, text
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from ctxbench.core.errors import UserError, escaped
from ctxbench.core.store import choice
from ctxbench.core.store.choice import OFF, Place

# psycopg logs ("error ignored terminating <Pipeline [BAD]>") a second error
# met while a first is raised (a pipeline torn down after the server went
# away); the first is the store's one line, and with no handler of its own
# Python's last-resort handler printed the log as a second line on stderr.
logging.getLogger("psycopg").addHandler(logging.NullHandler())

BUSY_S = 60                         # how long a writer waits for another's lock
MIGRATION_LOCK = 0x63747862          # PostgreSQL advisory lock key ("ctxb")
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
READ = "ctxbench_read"               # execution option: a reading transaction (plain BEGIN on SQLite)


def url_of(place: Place) -> URL:
    """SQLAlchemy's URL for a place, built from its parts (a password
    with '@' or ':' in it stays whole)."""
    if place.sqlite:
        return URL.create("sqlite", database=place.path)
    p = place.parts
    return URL.create("postgresql+psycopg", username=p.get("username"), password=p.get("password"),
                      host=p.get("host"), port=p.get("port"), database=p.get("database"), query=p.get("query") or {})


def normalise(where: str | None) -> URL:
    """The URL a store's name means (for tools and tests that open one
    with SQLAlchemy directly)."""
    return url_of(choice.place_of(where, writes=True))


def open_store(flag: str | None, *, writes: bool, outputs: tuple | list = ()) -> "Store":
    """The store a command that reads (or, `writes`, fills) one was asked
    for, checked (choice.decide) and open; one line otherwise."""
    return Store(choice.decide(flag, writes=writes, outputs=outputs))


def existing(flag: str | None) -> "Store | None":
    """The store a command reads in passing (compare's core clocks, the
    fleet's table), if it exists and can be read; None otherwise (off, not
    there, not usable): it never creates one and never costs the command."""
    try:
        place = choice.decide(flag, writes=False, measuring=True)
        return Store(place) if place is not None else None
    except UserError:
        return None


class Store:
    """An open store; `with store.begin() as conn:` for one transaction
    (`store.begin(write=False)` for one that only reads)."""

    def __init__(self, where: str | Place | None = None, writes: bool = True):
        """`where`: a Place choice.decide made (it says whether the command
        writes), else a store's name (None: the default) checked here for
        a command that `writes` or only reads."""
        place = where if isinstance(where, Place) else (
            choice.decide(where, writes=writes) if where is not None else choice.place_of(None, writes=writes))
        if place is None:
            raise UserError(f"store {OFF}: no store")
        self.place = place
        self.writes = place.writes
        self.name = place.name
        self.sqlite = place.sqlite
        self.url = url_of(place)
        try:
            self.engine = create_engine(self.url, connect_args={"timeout": BUSY_S} if self.sqlite
                                        else {"connect_timeout": 10})
        except (SQLAlchemyError, ImportError, ValueError) as e:
            raise UserError(f"store {self.name}: {why(e, place)}")
        if self.sqlite:
            _sqlite_locking(self.engine)
        self.migrate()

    def begin(self, write: bool = True):
        return _Guard(self, write and self.writes)

    def migrate(self) -> None:
        """Bring the schema to the newest version (Alembic upgrade head),
        after checking that the database is a store or empty. A reader
        finds an empty database is no store yet, and does not make one."""
        from alembic import command
        from alembic.config import Config
        from alembic.script import ScriptDirectory

        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        script = ScriptDirectory.from_config(cfg)
        known = {s.revision for s in script.walk_revisions()}
        head = script.get_current_head()
        with self.begin(write=False) as conn:
            have = self._revision(conn, known)
        if have == head:
            return
        if have is None and not self.writes:
            raise UserError(f"store {self.name}: no store there yet (an empty database: nothing has been "
                            "recorded in it)")
        # One rule for every command: a store of an older revision is upgraded by whichever command opens it
        # first, a reader too (export, history, compare), in a writing transaction from its first statement
        # (BEGIN IMMEDIATE: two at once wait for each other rather than one failing "database is locked");
        # where it cannot be written (a read-only file, a role that may only read), one line says who can.
        try:
            with _Guard(self, True) as conn:
                if not self.sqlite:
                    conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
                if self._revision(conn, known) == head:
                    return
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
        except UserError as e:
            if self.writes or have is None or not _cannot_write(str(e)):
                raise
            said = str(e).removeprefix(f"store {self.name}: ")
            raise UserError(f"store {self.name}: at revision {escaped(have)}, older than this ctxbench's {head}, "
                            f"and it cannot be written here to upgrade it ({said}): a command that "
                            "writes it (`ctxbench store add`, or a measuring command with --store) upgrades it "
                            "first") from None

    def _revision(self, conn, known: set) -> str | None:
        tables = set(inspect(conn).get_table_names())
        if tables and "alembic_version" not in tables:
            raise UserError(f"store {self.name}: a database, but not a ctxbench store (tables: "
                            f"{', '.join(escaped(t) for t in sorted(tables)[:5])}); name another with --store")
        if "alembic_version" not in tables:
            return None
        have = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        newer = [v for v in have if v not in known]
        if newer:
            raise UserError(f"store {self.name}: its schema ({', '.join(map(escaped, newer))}) is from a newer "
                            "ctxbench; upgrade ctxbench to use it")
        return have[0] if have else None

    def revision(self) -> str | None:
        with self.begin(write=False) as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def _cannot_write(said: str) -> bool:
    """Whether a store's error says it may not be written (a read-only
    file or mount, a role without the right)."""
    low = said.lower()
    return any(w in low for w in ("readonly", "read-only", "permission denied", "insufficient privilege",
                                  "unable to open database", "cannot be written", "must be owner"))


def _sqlite_locking(engine: Engine) -> None:
    """pysqlite's own transaction handling is replaced by BEGIN IMMEDIATE
    for a writing transaction and a plain BEGIN for a reading one
    (SQLAlchemy's documented recipe for SQLite locking)."""
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):
        dbapi_conn.isolation_level = None
        dbapi_conn.execute(f"PRAGMA busy_timeout = {BUSY_S * 1000}")
        dbapi_conn.execute("PRAGMA foreign_keys = ON")

    @event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get(READ) else "BEGIN IMMEDIATE")


# What the database layer raises, each said as one line naming the store.
FAULTS = (SQLAlchemyError, sqlite3.Error, OSError, zlib.error, json.JSONDecodeError, UnicodeError, ValueError)


def _faults() -> tuple:
    extra = []
    try:
        from alembic.util.exc import CommandError
        extra.append(CommandError)
    except ImportError:
        pass
    try:
        import psycopg
        extra.append(psycopg.Error)
    except ImportError:
        pass
    return FAULTS + tuple(extra)


class _Guard:
    """A transaction whose database errors, wherever they arise (opening
    it, a statement in it, its commit or rollback), become one line."""

    def __init__(self, store: Store, write: bool):
        self.store = store
        self.write = write
        self.conn = None
        self.tx = None

    def _fault(self, e: BaseException) -> UserError:
        return UserError(f"store {self.store.name}: {why(e, self.store.place)}", code=2)

    def __enter__(self) -> Connection:
        try:
            self.conn = self.store.engine.connect()
            if not self.write:
                self.conn = self.conn.execution_options(**{READ: True})
            self.tx = self.conn.begin()
            return self.conn
        except _faults() as e:
            self._close()
            raise self._fault(e) from None

    def __exit__(self, kind, value, tb):
        """Commit or roll back. A database error (the body's, or the
        commit's) becomes one line; any other error of the body (a
        UserError, an interruption) goes on as it was."""
        body_fault = kind is not None and isinstance(value, _faults())
        try:
            if kind is None:
                self.tx.commit()
            else:
                self.tx.rollback()
        except _faults() as e:
            self._close()
            if kind is None:
                raise self._fault(e) from None
            if body_fault:
                raise self._fault(value) from None
            return False
        self._close()
        if body_fault:
            raise self._fault(value) from None
        return False

    def _close(self) -> None:
        try:
            if self.conn is not None:
                self.conn.close()
        except Exception:  # noqa: BLE001 (a connection already gone: nothing left to close)
            pass


# The disk under a store: full, or failing. SQLite's primary result codes
# (sqlite3.SQLITE_FULL and SQLITE_IOERR from Python 3.11; an extended
# code's low byte is its primary one), PostgreSQL's SQLSTATEs (disk_full,
# io_error), the system's errnos.
_SQLITE_FULL, _SQLITE_IOERR = getattr(sqlite3, "SQLITE_FULL", 13), getattr(sqlite3, "SQLITE_IOERR", 10)
_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def _disk(e: BaseException) -> str | None:
    """"full" or "io" where `e` (a driver's error, or SQLAlchemy's around
    one) says the disk is full or failed; None otherwise."""
    x = e.orig if isinstance(e, DBAPIError) and e.orig is not None else e
    low = str(x).lower()
    code = getattr(x, "sqlite_errorcode", None)
    state = getattr(x, "sqlstate", None) or getattr(getattr(x, "diag", None), "sqlstate", None)
    if isinstance(code, int) and code & 0xFF == _SQLITE_FULL or state == "53100" or \
            isinstance(x, OSError) and x.errno in _FULL_ERRNOS or \
            "database or disk is full" in low or "no space left on device" in low or "disk quota exceeded" in low:
        return "full"
    if isinstance(code, int) and code & 0xFF == _SQLITE_IOERR or state == "58030" or \
            isinstance(x, OSError) and x.errno == errno.EIO or "disk i/o error" in low:
        return "io"
    return None


def _cause(e: BaseException) -> BaseException:
    """The error to say: a full or failing disk wherever it is in `e`'s
    chain (the error raised last may be what it led to, a rollback's
    "no such savepoint"), else `e` itself."""
    seen, x = set(), e
    while x is not None and id(x) not in seen:
        seen.add(id(x))
        if _disk(x):
            return x
        x = x.__cause__ or x.__context__
    return e


def why(e: BaseException, place: Place | None = None) -> str:
    """The database's own words, first line only, escaped, without the
    store's password; a full or failing disk said as such."""
    e = _cause(e)
    disk = _disk(e)
    orig = e.orig if isinstance(e, DBAPIError) and e.orig is not None else e
    said = str(orig).strip()
    line = said.splitlines()[0] if said else type(orig).__name__
    secret = place.secret if place is not None else None
    if secret and len(secret) >= 3:
        line = line.replace(secret, "***")
    low = line.lower()
    if disk == "full":
        return f"its disk is full ({escaped(line)}): free space there, or name another store with --store"
    if disk == "io":
        return f"an I/O error on its disk ({escaped(line)})"
    if "file is not a database" in low or "malformed" in low or "database disk image" in low:
        return f"not a SQLite database, or a damaged one ({escaped(line)})"
    if "readonly database" in low or "read-only" in low:
        return f"cannot be written ({escaped(line)})"
    if isinstance(orig, zlib.error) or isinstance(orig, json.JSONDecodeError):
        return f"a run's kept document is damaged ({escaped(line)})"
    return escaped(line)
