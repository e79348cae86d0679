"""ctxbench.bench.plan: what the measure role does on a host, decided on
the control node before the host is contacted. The command is read by
ctxbench's own rule (ctxbench.fleet.job: the command line's parser, then
the way it takes): `run` with a preset's options and `env` run as the
engine alone, any other measuring command as ctxbench itself. The output
directory and the store are checked here, so that a bad one costs no
measurement."""
from __future__ import annotations

import os
import shlex
import uuid
from types import SimpleNamespace

from ansible import constants as C
from ansible.plugins.action import ActionBase

from ansible_collections.ctxbench.bench.plugins.plugin_utils import front_end

SPEC = {
    "command": {"type": "raw", "required": True},
    "install": {"type": "str", "default": "auto", "choices": ["auto", "engine", "wheel"]},
    "output_dir": {"type": "path", "required": True},
    "store": {"type": "str"},
    "cpu": {"type": "int"},
    "timeout": {"type": "int", "default": 1800},
}
ENGINE_KILL_S = 10   # after the time limit, SIGKILL this much later (`timeout -k`): the engine stops at once
FRONT_KILL_S = 30    # ctxbench itself answers SIGTERM by stopping its engine and cleaning up first
REMOTE_DOCUMENT = "document.json"  # in the host's private directory


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False  # nothing on the host: a bad command or store costs no connection
    _supports_check_mode = True   # it reads, and makes nothing in check mode

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(argument_spec=SPEC)
        result.update(front_end.result(planned, args, task_vars or {}, self._task.check_mode))
        return result


def planned(args: dict, task_vars: dict, check: bool) -> dict:
    argv = _argv(args["command"])
    with front_end.one_line("ctxbench_command"):
        from ctxbench.core.errors import UserError
        from ctxbench.fleet import job as jobs
        try:
            job = front_end.checked(argv)
        except UserError as e:  # the command's own line, without the fleet's words (there is no `--` here)
            raise UserError(_unfleeted(str(e))) from None
    way = _way(job, args["install"])
    cpu, limit = args["cpu"], args["timeout"]
    if cpu is not None and cpu < 0:
        raise front_end.Failed(f"ctxbench_cpu {cpu}: a CPU number is 0 or more")
    if limit < 1:
        raise front_end.Failed(f"ctxbench_timeout {limit}: give at least 1 second")
    host = str(task_vars.get("inventory_hostname", ""))
    output_dir = os.path.abspath(args["output_dir"]) if args["output_dir"] else ""  # relative: to where ansible-playbook runs
    document = os.path.join(output_dir, f"{_stem(host, task_vars)}.json")
    store = _usable(args["store"], output_dir, document, check)
    plan = {"changed": False, "way": way, "command": argv, "cpu": cpu, "timeout": limit, "document": document,
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
    if isinstance(command, str):
        try:
            return shlex.split(command)
        except ValueError as e:
            raise front_end.Failed(f"ctxbench_command: cannot read {command!r} as a command line ({e})")
    if isinstance(command, (list, tuple)) and all(isinstance(a, (str, int, float)) for a in command):
        return [str(a) for a in command]
    raise front_end.Failed("ctxbench_command: give the command after `ctxbench` as a string (run --quick) or a list")


def _unfleeted(why: str) -> str:
    """ctxbench.fleet.job's line without the fleet's own words (here the
    role decides what the fleet does there)."""
    for prefix in ("fleet: the command after --: ", "fleet: "):
        if why.startswith(prefix):
            why = why[len(prefix):]
            break
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


def _usable(store: str | None, output_dir: str, document: str, check: bool) -> str | None:
    """The store's name (None: off), and the output directory made: each
    one usable, said before anything is measured. In check mode nothing is
    made."""
    from ctxbench.core import writer
    from ctxbench.core.store import choice, db
    with front_end.one_line("ctxbench_store"):
        place = choice.decide(store, writes=True, measuring=True)
        choice.never_onto(store, [document])
        if place is not None and not place.sqlite and not check:  # a server that is not there: now, not after
            db.Store(place).engine.dispose()
    if not output_dir:
        raise front_end.Failed("ctxbench_output_dir: an empty directory name")
    if check:
        return place.name if place is not None else None
    try:
        os.makedirs(output_dir, exist_ok=True)
    except OSError as e:
        raise front_end.Failed(f"ctxbench_output_dir: cannot make {output_dir!r} ({e.strerror or e})")
    with front_end.one_line("ctxbench_output_dir"):
        writer.check_writable(document).close()  # tried, not guessed (a file made and removed there)
    return place.name if place is not None else None
