"""ctxbench store: the results store (issue 25). `store add FILE...` keeps
existing results files in it (each once, however often it is added);
`store info` says what it holds. The store is SQLite in the data
directory unless --store (or CTXBENCH_STORE) names a file or a
postgresql:// URL. SQLAlchemy is imported here, when the command runs, not
at the CLI's start."""
from __future__ import annotations

from ctxbench.core import reader
from ctxbench.core.errors import UserError, escaped, shown
from ctxbench.ui import options
from ctxbench.records import RECORDS

MAX_COMMIT = 64  # the store's git_commit column (a SHA-256 commit's 64 hex digits)


def _commit(text: str) -> str:
    if not text.strip() or len(text) > MAX_COMMIT:
        raise ValueError(text)
    return text


_commit.__name__ = "commit (at most 64 characters)"


def add_parser(sub):
    p = sub.add_parser("store", help="the results store: add files, say what it holds",
                       description="Keep results files in the store (SQLite in the data directory, or a shared "
                                   "PostgreSQL) for history and comparisons across runs.")
    s = p.add_subparsers(dest="store_command", metavar="ACTION", parser_class=type(p))
    a = s.add_parser("add", help="add results files (each kept once)")
    a.add_argument("files", nargs="+", metavar="FILE")
    a.add_argument("--commit", metavar="SHA", type=_commit,
                   help="the git commit the runs measured (kept with each; at most 64 characters)")
    options.add_store(a)
    i = s.add_parser("info", help="what the store holds")
    options.add_store(i)
    p.set_defaults(func=run)


def run(args) -> int:
    if args.store_command == "add":
        return _add(args)
    if args.store_command == "info":
        return _info(args)
    raise UserError("store: say add or info (ctxbench store --help)")


def _add(args) -> int:
    from ctxbench.core.store import record
    from ctxbench.core.store.db import open_store
    docs = [(path, reader.load(path, RECORDS)) for path in args.files]  # every file checked before the store is touched
    store = open_store(args.store, writes=True)  # the one command here that makes a store
    new, said = 0, []
    with store.begin() as conn:
        for path, doc in docs:
            run_id, added = record.add(conn, doc, args.commit)
            new += added
            said.append(f"added: {shown(path)} (run {run_id})" if added else
                        f"already kept: {shown(path)} (run {run_id})" if record.kept_as_given(conn, run_id, doc) else
                        f"already kept: {shown(path)} (run {run_id} is the same measurement with another analysis, "
                        "kept as it was first added)")
    # said once the transaction committed: a disk that fills at the commit adds nothing, and says so alone
    print("\n".join(said))
    print(f"{new} of {len(docs)} file(s) added to {store.name}")
    return 0


def _info(args) -> int:
    from sqlalchemy import func, select

    from ctxbench.core.store.db import open_store
    from ctxbench.core.store.tables import results, runs
    store = open_store(args.store, writes=False)  # a reader: never makes one
    with store.begin(write=False) as conn:
        n_runs = conn.execute(select(func.count()).select_from(runs)).scalar_one()
        n_results = conn.execute(select(func.count()).select_from(results)).scalar_one()
        n_points = conn.execute(select(func.count(func.distinct(results.c.point_key)))).scalar_one()
        hosts = conn.execute(select(runs.c.host, func.count()).group_by(runs.c.host).order_by(runs.c.host)).all()
        first, last = conn.execute(select(func.min(runs.c.started), func.max(runs.c.started))).one()
    print(f"store: {store.name} (schema {escaped(str(store.revision()))})")
    print(f"{n_runs} run(s), {n_results} result(s) of {n_points} id(s)")
    if n_runs:
        print(f"runs from {escaped(str(first or '?'))} to {escaped(str(last or '?'))}")
        for host, n in hosts:
            print(f"  {escaped(str(host))}: {n} run(s)")
    return 0
