"""Which results store a command uses, and whether it can use it, decided
before anything is measured and without importing SQLAlchemy: the one
rule for the store, as core/writer.py is the one rule for output paths.

The name: --store, else $CTXBENCH_STORE, else `store = "..."` in the
config file ($XDG_CONFIG_HOME/ctxbench/config.toml, else
~/.config/ctxbench/config.toml), else store.sqlite in the data directory;
"off" (or --no-store) records nothing. A name is a SQLite file's path
(`~` expanded; a relative path in the config file is relative to that
file, not to wherever a command runs), a sqlite:/// URL, or a
postgresql:// URL.

Refused, in one line, before a command measures or reads anything: an
empty name, another scheme, an in-memory database (gone when the command
ends), a device, a directory, a FIFO or a socket, a dangling symlink, a
directory that does not exist (but the default's, which is made), a file a
writing command cannot write, a file that is not there for a command that
only reads (a reader never creates a store), and a name equal to one of
the command's own outputs (its -o file, its JUnit XML, its figures), or to
the store's journal. A password in a URL is never printed (`name`)."""
from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from urllib.parse import unquote

from ctxbench.core.errors import UserError, escaped, shown

STORE_ENV = "CTXBENCH_STORE"
OFF = "off"
JOURNALS = ("-journal", "-wal", "-shm")  # SQLite's files beside a database
PG_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
SQLITE_SCHEMES = ("sqlite", "sqlite+pysqlite")


def config_path() -> str:
    base = os.environ.get("XDG_CONFIG_HOME", "").strip() or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "ctxbench", "config.toml")


def _from_config() -> str | None:
    try:
        import tomllib  # the standard library's TOML reader (Python 3.11)
    except ImportError:  # older Pythons: the same reader, packaged (pyproject.toml)
        import tomli as tomllib
    path = config_path()
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        return None
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise UserError(f"config file {shown(path)}: {getattr(e, 'strerror', None) or e}")
    value = data.get("store")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise UserError(f"config file {shown(path)}: store must be a SQLite path, a postgresql:// URL or \"off\"")
    return value.strip()


def named(flag: str | None) -> tuple[str | None, str]:
    """(the store's name as given, where it was given): --store, else
    $CTXBENCH_STORE, else the config file; (None, "default") for none."""
    if flag is not None:
        if not flag.strip():
            raise UserError("--store '': an empty name (give a SQLite file or a postgresql:// URL, or --no-store)")
        return flag, "--store"
    env = os.environ.get(STORE_ENV, "").strip()
    if env:
        return env, f"${STORE_ENV}"
    conf = _from_config()
    if conf is not None:
        return conf, f"config file {shown(config_path())}"
    return None, "default"


@dataclass(frozen=True)
class Place:
    """A store a command can use: a SQLite file (`path`) or a PostgreSQL
    database (`parts`, for SQLAlchemy's URL.create, password included)."""
    kind: str                     # "sqlite" or "postgresql"
    name: str                     # for messages: the path, or the URL with its password masked (escaped)
    path: str | None = None       # sqlite: absolute, ~ expanded, symlinks resolved
    parts: dict = field(default_factory=dict, compare=False, hash=False)
    writes: bool = True           # a command that adds to it (may create it)

    @property
    def sqlite(self) -> bool:
        return self.kind == "sqlite"

    @property
    def secret(self) -> str | None:
        return self.parts.get("password") if self.parts else None

    def files(self) -> list[str]:
        """The files this store is (SQLite: the database and its journals)."""
        return [self.path + s for s in ("", *JOURNALS)] if self.sqlite else []


def _refuse(where: str, origin: str, why: str) -> UserError:
    said = "" if origin in ("--store", "default") else f" ({origin})"
    return UserError(f"store {escaped(where)}{said}: {why}")


def _userinfo_end(rest: str) -> int:
    """Where a URL's user information ends (its '@'), or -1: the last '@'
    before the query (a password may hold '@', ':' or '/'); with none
    there, the last '@' before the first '/' (a password may hold '?');
    else there is none (a query's password may hold '@')."""
    q = rest.find("?")
    head = rest if q < 0 else rest[:q]
    if "@" in head:
        return head.rfind("@")
    slash = rest.find("/")
    return rest.rfind("@", 0, slash) if slash >= 0 else -1


def _postgres(scheme: str, rest: str, origin: str) -> tuple[dict, str]:
    """A postgresql:// URL's parts and its name with the password masked.
    The user information ends where _userinfo_end says; percent escapes
    are decoded, as libpq decodes them; a password may also come as
    ?password=."""
    at = _userinfo_end(rest)
    cred, hostpart = (rest[:at], rest[at + 1:]) if at >= 0 else ("", rest)
    user, colon, password = cred.partition(":")
    hostpart, _, query = hostpart.partition("?")
    pairs = [p.partition("=") for p in query.split("&") if p]
    shown_query = "&".join(f"{k}=***" if unquote(k).lower() == "password" else f"{k}{s}{v}" for k, s, v in pairs)
    name = (f"{scheme}://" + (f"{user}:***@" if colon else f"{user}@" if at >= 0 else "") + hostpart
            + (f"?{shown_query}" if shown_query else ""))
    hostport, _, database = hostpart.partition("/")
    m = re.fullmatch(r"(\[[^\]]*\]|[^:]*)(?::(.*))?", hostport)
    host, port = (m.group(1), m.group(2)) if m else (hostport, None)
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        raise _refuse(name, origin, f"port '{escaped(port)}' is not a port number")
    opts = {unquote(k): unquote(v) for k, _, v in pairs}
    parts = {"username": unquote(user) or None, "password": unquote(password) if colon else None,
             "host": unquote(host.strip("[]")) or None, "port": int(port) if port else None,
             "database": unquote(database) or None, "query": opts}
    for k in [k for k in opts if k.lower() == "password"]:
        parts["password"] = opts.pop(k)
    return parts, name


def sqlite_path(where: str, origin: str) -> str:
    """The file a SQLite name or sqlite:/// URL means."""
    if "://" in where:
        scheme, rest = where.split("://", 1)
        if rest in ("", "/", "/:memory:") or rest.startswith("/:memory:") or "mode=memory" in rest:
            raise _refuse(where, origin, "an in-memory database, gone when the command ends: name a file")
        if not rest.startswith("/"):
            raise _refuse(where, origin, "a sqlite URL is sqlite:///relative/path or sqlite:////absolute/path")
        if "?" in rest:
            raise _refuse(where, origin, "options in a sqlite URL are not read here: name the file")
        where = rest[1:]
    path = os.path.expanduser(where)
    if origin.startswith("config file") and not os.path.isabs(path):
        path = os.path.join(os.path.dirname(config_path()), path)  # the config's own directory, not the cwd
    return os.path.abspath(path)


def _probe_dir(where: str, origin: str, d: str) -> None:
    """Can SQLite make its journal in `d`? Tried, not guessed (root passes
    os.access on a read-only mount)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".ctxbench-", suffix=".tmp", dir=d)
    except OSError as e:
        raise _refuse(where, origin, f"its directory {shown(d)} cannot be written ({e.strerror or e}), and "
                                     "SQLite keeps its journal there")
    os.close(fd)
    os.unlink(tmp)


def _check_file(where: str, origin: str, path: str, writes: bool, default: bool) -> str:
    """Refuse what SQLite cannot or must not use as a store; the path with
    symlinks resolved."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise _refuse(where, origin, e.strerror or str(e))
    if st is None:
        if os.path.islink(path):
            raise _refuse(where, origin, f"a symlink to nothing ({shown(os.readlink(path))})")
        if not writes:
            raise _refuse(where, origin, "no store there (nothing has been recorded in it): a measuring "
                                         "command or `ctxbench store add` makes one")
        d = os.path.dirname(path)
        if not os.path.isdir(d):
            if not default:
                raise _refuse(where, origin, f"its directory {shown(d)} does not exist")
            try:
                os.makedirs(d, mode=0o700, exist_ok=True)
            except OSError as e:
                raise _refuse(where, origin, f"cannot make its directory ({e.strerror or e})")
        _probe_dir(where, origin, d)
        return os.path.realpath(path)
    if stat.S_ISDIR(st.st_mode):
        raise _refuse(where, origin, "a directory, not a database file")
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        raise _refuse(where, origin, "a device, not a database file")
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(where, origin, "a FIFO or socket, not a database file")
    real = os.path.realpath(path)
    try:
        fd = os.open(real, (os.O_RDWR if writes else os.O_RDONLY) | os.O_CLOEXEC | os.O_NOFOLLOW)
        os.close(fd)
    except OSError as e:
        if writes and e.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ETXTBSY):
            raise _refuse(where, origin, f"read-only ({e.strerror}): this command adds to the store")
        raise _refuse(where, origin, e.strerror or str(e))
    if writes:
        _probe_dir(where, origin, os.path.dirname(real))
    elif st.st_size == 0:
        raise _refuse(where, origin, "an empty file, not a store (nothing has been recorded in it)")
    if st.st_size:
        _peek(where, origin, real)
    return real


SQLITE_HEADER = b"SQLite format 3\0"


def _peek(where: str, origin: str, path: str) -> None:
    """What can be told of an existing SQLite file without SQLAlchemy,
    before anything is measured: that it is a SQLite database at all (its
    header), and that its tables are a store's. A damaged page further in
    is found when the store is read (one line) or, after a measuring
    command has written its results, costs a warning."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as e:
        raise _refuse(where, origin, e.strerror or str(e))
    if head != SQLITE_HEADER:
        raise _refuse(where, origin, "not a SQLite database (the file does not start with SQLite's header): "
                                     "name another with --store")
    import sqlite3
    from urllib.parse import quote
    try:
        con = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=10)
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            con.close()
    except sqlite3.DatabaseError as e:
        said = str(e)
        if any(w in said for w in ("locked", "busy", "readonly", "unable to open")):
            return  # another writer, or a journal to roll back: the store's own opening says more
        raise _refuse(where, origin, f"not a SQLite database, or a damaged one ({escaped(said)})")
    if tables and "alembic_version" not in tables:
        raise _refuse(where, origin, "a database, but not a ctxbench store (tables: "
                                     f"{', '.join(escaped(t) for t in sorted(tables)[:5])}); name another with --store")


def _same(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def place_of(where: str | None, origin: str = "--store", *, writes: bool = True,
             outputs: tuple | list = ()) -> Place:
    """The store `where` names (None: the default), checked for a command
    that reads it or (`writes`) adds to it, whose outputs are `outputs`."""
    if where is not None and "\0" in where:
        raise UserError(f"store {shown(where)}: a NUL character in the name")
    if where is None:
        from ctxbench.core import datadir
        path = os.path.join(datadir.base(), "store.sqlite")
        p = Place("sqlite", escaped(path), _check_file(path, "default", path, writes, True), writes=writes)
    elif "://" in where and where.split("://", 1)[0].lower() in PG_SCHEMES:
        parts, name = _postgres(*where.split("://", 1), origin)
        return Place("postgresql", escaped(name), parts=parts, writes=writes)
    elif "://" in where and where.split("://", 1)[0].lower() not in SQLITE_SCHEMES:
        scheme = where.split("://", 1)[0]
        raise _refuse(where.split("@")[-1] if "@" in where else where, origin,
                      f"'{escaped(scheme)}://' is not a store: name a SQLite file or a postgresql:// URL")
    else:
        path = sqlite_path(where, origin)
        p = Place("sqlite", escaped(where), _check_file(where, origin, path, writes, False), writes=writes)
    _never_onto(p.path, outputs)
    return p


def never_onto(flag: str | None, outputs: tuple | list) -> None:
    """Refuse an output that is the store `flag` names (or its journal),
    whether or not the store exists or the command will open it."""
    try:
        where, origin = named(flag)
    except UserError:
        return  # said where the store itself is decided
    if where is not None and (where.strip().lower() == OFF or "\0" in where or (
            "://" in where and where.split("://", 1)[0].lower() not in SQLITE_SCHEMES)):
        return
    from ctxbench.core import datadir
    try:
        path = os.path.join(datadir.base(), "store.sqlite") if where is None else sqlite_path(where, origin)
    except UserError:
        return
    _never_onto(path, outputs)


def _never_onto(path: str, outputs) -> None:
    for out in outputs:
        if not out:
            continue
        for f in [path + s for s in ("", *JOURNALS)]:
            if _same(out, f):
                raise UserError(f"refusing to write {shown(out)}: it is the results store"
                                + ("'s journal" if f != path else "") + ": choose another name")


def decide(flag: str | None, *, writes: bool, outputs: tuple | list = (), measuring: bool = False) -> Place | None:
    """The store a command uses (None: none, for a measuring command told
    "off"), checked before it measures or reads anything. `measuring`:
    a command that records its run in passing; "off" from the
    environment or the config then means none, and for a command that is
    about the store (store, history, compare) the default store."""
    where, origin = named(flag)
    if where is not None and where.strip().lower() == OFF:
        if measuring:
            return None
        if origin == "--store":
            raise UserError("--store off: this command reads or fills a store: name one")
        where, origin = None, "default"
    return place_of(where, origin, writes=writes, outputs=outputs)
