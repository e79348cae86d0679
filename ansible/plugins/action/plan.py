"""ctxbench.bench.plan: what the measure role does on a host, decided on
the control node before the host is contacted. The command is read by
ctxbench's own rule (ctxbench.fleet.job: the command line's parser, then
the way it takes): `run` with a preset's options and `env` run as the
engine alone, any other measuring command as ctxbench itself. Everything
the control node can check is checked here, in check mode too, so that a
bad one costs no connection and no measurement: the command, the time
limits, the commit, the engines and the wheel, the output directory (made
only when a document is written there: ctxbench.bench.document) and the
store (a PostgreSQL server connected to; in check mode only read)."""
from __future__ import annotations

import math
import os
import shlex
import tempfile
import uuid
from types import SimpleNamespace

from ansible import constants as C
from ansible.plugins.action import ActionBase

from ansible_collections.ctxbench.bench.plugins.plugin_utils import engines, front_end, package

SPEC = {
    "command": {"type": "raw", "required": True},
    "install": {"type": "str", "default": "auto", "choices": ["auto", "engine", "wheel"]},
    "output_dir": {"type": "path", "required": True},
    "store": {"type": "str"},
    "cpu": {"type": "int"},
    "timeout": {"type": "raw", "default": 1800},
    "connect_timeout": {"type": "raw", "default": 30},
    "step_timeout": {"type": "raw", "default": 600},
    "commit": {"type": "str"},
    "engines": {"type": "path"},
    "wheel": {"type": "path"},
}
# each time limit's variable and its largest value in seconds: positive and finite, and a typo of a day or
# more is refused (ctxbench fleet's --timeout takes at most a day too)
LIMITS = {"timeout": ("ctxbench_timeout", 24 * 3600), "connect_timeout": ("ctxbench_connect_timeout", 3600),
          "step_timeout": ("ctxbench_step_timeout", 24 * 3600)}
ENGINE_KILL_S = 10   # after the time limit, SIGKILL this much later (`timeout -k`): the engine stops at once
FRONT_KILL_S = 30    # ctxbench itself answers SIGTERM by stopping its engine and cleaning up first
REMOTE_DOCUMENT = "document.json"  # in the host's private directory


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False  # nothing on the host: a bad command or store costs no connection
    _supports_check_mode = True   # it makes nothing in any mode: its checks are the real run's

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(argument_spec=SPEC)
        result.update(front_end.result(planned, args, task_vars or {}, self._task.check_mode))
        return result


def planned(args: dict, task_vars: dict, check: bool) -> dict:
    with front_end.one_line("ctxbench_command"):
        argv = _argv(args["command"])
        from ctxbench.core.errors import UserError
        from ctxbench.fleet import job as jobs
        try:
            job = front_end.checked(argv)
        except UserError as e:  # the command's own line, without the fleet's words (there is no `--` here)
            raise UserError(_unfleeted(str(e), argv[0])) from None
    way = _way(job, args["install"])
    cpu = args["cpu"]
    if cpu is not None and cpu < 0:
        raise front_end.Failed(f"ctxbench_cpu {cpu}: a CPU number is 0 or more")
    limit, _, _ = (_seconds(args[k], *LIMITS[k]) for k in LIMITS)  # all three checked; the command's is planned
    with front_end.one_line("ctxbench"):
        front_end.commit(args["commit"], "ctxbench_commit")
        engines.checked(args["engines"])
        if way == "wheel" and args["wheel"]:
            package.checked_wheel(args["wheel"])
    host = str(task_vars.get("inventory_hostname", ""))
    output_dir = os.path.abspath(args["output_dir"]) if args["output_dir"] else ""  # relative: to where ansible-playbook runs
    document = os.path.join(output_dir, f"{_stem(host, task_vars)}.json")
    if not output_dir:
        raise front_end.Failed("ctxbench_output_dir: an empty directory name")
    _output_usable(output_dir, document)
    store, store_dir = _store_usable(args["store"], output_dir, document, check)
    plan = {"changed": False, "way": way, "command": argv, "cpu": cpu, "timeout": limit, "document": document,
            "make": [output_dir, *([store_dir] if store_dir not in (None, output_dir) else [])],  # when a document is written
            "fetched": os.path.join(C.DEFAULT_LOCAL_TMP, f"ctxbench-{uuid.uuid4().hex}.json"), "store": store,
            "remote_document": REMOTE_DOCUMENT}
    if way == "engine":
        engine_args = job.engine_args(cpu)
        plan["argv"] = ["sh", "-c", 'exec "$@" > "$0"', REMOTE_DOCUMENT, "timeout", "-k", str(ENGINE_KILL_S),
                        str(limit), "./ctxbench-engine", *engine_args]
        doing = f"ctxbench-engine {shlex.join(engine_args)} (the engine alone)"
    else:
        own = [*jobs.own_argv(job, cpu), "--no-store", "-o", REMOTE_DOCUMENT]
        plan["ctxbench_args"] = own  # after `python -m ctxbench`: the Python is the host's (ctxbench.bench.prepare)
        plan["kill_after"] = FRONT_KILL_S
        doing = f"ctxbench {shlex.join(own)} (ctxbench itself)"
    from ctxbench.core.errors import escaped
    plan["msg"] = escaped(f"{host}: {doing} in a private directory, at most {limit} s; its document to {document}; "
                          + (f"recorded in {store}" if store else "recorded in no store (off)"))
    return plan


def _argv(command) -> list[str]:
    """The command after `ctxbench`, given as a string (split as a shell
    would) or a list."""
    from ctxbench.core.errors import shown
    from ctxbench.fleet.job import MEASURING
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise front_end.Failed(f"ctxbench_command: cannot read {shown(command)} as a command line ({e})")
    elif isinstance(command, (list, tuple)) and all(isinstance(a, (str, int, float)) for a in command):
        argv = [str(a) for a in command]
    else:
        raise front_end.Failed("ctxbench_command: give the command after `ctxbench` as a string (run --quick) or a "
                               "list")
    if not argv:
        raise front_end.Failed(f"ctxbench_command is empty: give a measuring command ({', '.join(('env', *MEASURING))})")
    return argv


def _seconds(value, name: str, most: int) -> int:
    """A time limit in whole seconds, from 1 to `most`, or one line."""
    from ctxbench.core.errors import shown
    try:
        number = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        number = math.nan
    if not (math.isfinite(number) and number == int(number) and 1 <= number <= most):
        raise front_end.Failed(f"{name} {shown(str(value))}: give whole seconds from 1 to {most}")
    return int(number)


def _unfleeted(why: str, command: str) -> str:
    """ctxbench.fleet.job's line without the fleet's own words (here the
    role decides what the fleet does there), and the command line's
    `usage: ...` said of the command."""
    from ctxbench.core.errors import escaped
    for prefix in ("fleet: the command after --: ", "fleet: "):
        if why.startswith(prefix):
            why = why[len(prefix):]
            break
    if why.startswith("usage: unrecognized arguments: "):
        why = f"unrecognized arguments to {escaped(command)}: {why[len('usage: unrecognized arguments: '):]}"
    elif why.startswith("usage: "):
        why = f"{escaped(command)}: {why[len('usage: '):]}"
    return why.replace(" is the fleet's to decide ", " is the role's to decide ")


def _way(job, install: str) -> str:
    """engine or wheel: `auto` takes the engine alone where the command
    allows it (ctxbench.fleet.job's fast way), else ctxbench itself."""
    if install == "auto":
        return "wheel" if job.child else "engine"
    if install == "engine" and job.child:
        raise front_end.Failed(f"ctxbench_install=engine: '{job.command}' with these options needs ctxbench itself on "
                               "the host (only `run` with a preset's options and `env` run as the engine alone): use "
                               "ctxbench_install=auto or wheel")
    if install == "wheel" and job.command == "env":
        raise front_end.Failed("ctxbench_install=wheel: env is the engine's environment record and runs as the engine "
                               "alone: use ctxbench_install=auto or engine")
    return install


def _stem(host: str, task_vars: dict) -> str:
    """The host's file name, as `ctxbench fleet` names it among the play's
    hosts (ctxbench.fleet.command.stems): never one host's over another's."""
    from ctxbench.fleet.command import stems
    hostvars = task_vars.get("hostvars", {})
    names = [str(h) for h in task_vars.get("ansible_play_hosts_all", [])]
    if host not in names:
        names.append(host)
    targets = [SimpleNamespace(name=h, address=str((hostvars.get(h) or {}).get("ansible_host") or h)) for h in names]
    return stems(targets)[host]


def _output_usable(output_dir: str, document: str) -> None:
    """The output directory can take the host's document: it is a
    directory that can be written, or it can be made (its nearest existing
    parent is one). Tried, not guessed (a file made there and removed at
    once), and nothing is made: ctxbench.bench.document makes the directory
    when it writes a document, so a host that fails before leaves none."""
    from ctxbench.core import writer
    from ctxbench.core.errors import UserError, shown
    from ctxbench.core.store import choice
    base = output_dir
    while not os.path.lexists(base) and os.path.dirname(base) != base:
        base = os.path.dirname(base)
    if not os.path.isdir(base):
        what = "its parent " if base != output_dir else ""
        raise front_end.Failed(f"ctxbench_output_dir: {what}{shown(base)} is not a directory")
    with front_end.one_line("ctxbench_output_dir"):
        if base == output_dir:
            writer.check_writable(document).close()
            return
        choice.never_onto(None, [document])  # the default store's name, as check_writable refuses it
        probe = None
        try:  # made and removed in one try: an interruption in between leaves nothing
            fd, probe = tempfile.mkstemp(prefix=".ctxbench-", suffix=".tmp", dir=base)
            os.close(fd)
        except OSError as e:
            raise UserError(f"cannot make {shown(output_dir)}: {shown(base)} cannot be written "
                            f"({e.strerror or e})") from None
        finally:
            if probe is not None:
                os.unlink(probe)


def _store_usable(store: str | None, output_dir: str, document: str, check: bool) -> tuple[str | None, str | None]:
    """(the store's name, None: off; the directory of a new SQLite store
    that is made with the output directory, or None), each checked before
    anything is measured. A PostgreSQL server is connected to: given the
    store's tables, or in check mode only read."""
    from ctxbench.core.errors import UserError
    from ctxbench.core.store import choice
    with front_end.one_line("ctxbench_store"):
        choice.never_onto(store, [document])
        try:
            place = choice.decide(store, writes=True, measuring=True)
        except UserError:
            made = _made_with(store, output_dir)
            if made is None:
                raise
            return made  # a new file in a directory the play makes: nothing more to check
        if place is not None and not place.sqlite:  # a server that is not there: now, not after measuring
            _reached(place, check)
    return (place.name if place is not None else None), None


def _made_with(store: str | None, output_dir: str) -> tuple[str, str] | None:
    """(its name, its directory) for the SQLite store `store` names where
    that directory does not exist yet and is the output directory or inside
    it (results/store.sqlite with no results/ yet): made as the output
    directory is. None for any other store."""
    from ctxbench.core.errors import UserError, escaped
    from ctxbench.core.store import choice
    try:
        where, origin = choice.named(store)
        if where is None or where.strip().lower() == choice.OFF or (
                "://" in where and where.split("://", 1)[0].lower() not in choice.SQLITE_SCHEMES):
            return None
        path = choice.sqlite_path(where, origin)  # the store's own rule for the file a name means
    except UserError:
        return None
    d = os.path.dirname(path)
    if os.path.lexists(d) or os.path.commonpath([d, output_dir]) != output_dir:
        return None
    return escaped(where), d


def _reached(place, check: bool) -> None:
    """Connect to a PostgreSQL store: as a measuring run does (its tables
    made or brought up to date), or in check mode only to ask it a
    question that changes nothing."""
    from ctxbench.core.errors import UserError
    from ctxbench.core.store import db
    if not check:
        db.Store(place).engine.dispose()
        return
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import SQLAlchemyError
    try:
        engine = create_engine(db.url_of(place), connect_args={"connect_timeout": 10})
    except (SQLAlchemyError, ImportError, ValueError) as e:
        raise UserError(f"store {place.name}: {db.why(e, place)}") from None
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except (SQLAlchemyError, OSError) as e:
        raise UserError(f"store {place.name}: {db.why(e, place)}") from None
    finally:
        engine.dispose()
