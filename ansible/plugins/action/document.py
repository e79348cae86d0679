"""ctxbench.bench.document: a host's results document, made on the control
node from what its command brought back, with the function `ctxbench
fleet` makes its hosts' documents with (ctxbench.fleet.job.document): the
engine's raw output analysed here as a local run's is (the engine way),
or ctxbench's own document read and checked (the wheel way), each with
the fleet's record of the host under its inventory name. Written
atomically to ctxbench_output_dir, made now (no document, no directory);
the fetched file is removed whatever
happens. A host whose command failed, or whose document cannot be read,
is this task's failure, in one line."""
from __future__ import annotations

import datetime
import os

from ansible.plugins.action import ActionBase

from ansible_collections.ctxbench.bench.plugins.plugin_utils import front_end, verdict

SPEC = {
    "plan": {"type": "dict", "required": True},  # ctxbench.bench.plan's result
    "ran": {"type": "dict", "required": True},   # the measuring command's result
    "arch": {"type": "str"},                     # `uname -m` on the host
}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = False  # it writes the document: the role says instead what it would do

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(argument_spec=SPEC)
        try:
            result.update(front_end.result(made, args, task_vars or {}))
        finally:
            _remove(args["plan"].get("fetched"))
        return result


def made(args: dict, task_vars: dict) -> dict:
    plan, ran = args["plan"], args["ran"]
    fetched = plan["fetched"]
    host = str(task_vars.get("inventory_hostname", ""))
    with front_end.one_line("ctxbench"):
        from ctxbench.core import model, writer
        from ctxbench.core.errors import escaped
        from ctxbench.core.transports import OUT_MAX
        from ctxbench.fleet import job as jobs
        size = os.path.getsize(fetched) if os.path.isfile(fetched) else 0
        why = verdict.why_not(plan["way"], ran, int(plan["timeout"]), size > 0)
        if why:
            raise front_end.Failed(f"ctxbench: {escaped(host)}: {escaped(why)}")
        if size > OUT_MAX:
            raise front_end.Failed(f"ctxbench: {escaped(host)}: its document is {size} bytes, more than the {OUT_MAX >> 20} "
                                   "MiB any document of ctxbench's is")
        with open(fetched, "rb") as f:
            raw = f.read()
        doc = jobs.document(front_end.checked(plan["command"]), raw, front_end.plain(_record(plan, ran, args["arch"], task_vars)))
        _made(plan.get("make") or [])
        writer.write_results(plan["document"], doc)  # atomic; a write that fails keeps it in a file its line names
        failed = model.Document(doc).failures
    partial = (f"{len(failed)} id(s) failed, the others kept (first: {failed[0].get('id')}: {failed[0].get('error')})"
               if failed else "")
    return {"changed": True, "path": plan["document"], "partial": escaped(partial),
            "msg": f"{escaped(host)}: its document is {escaped(plan['document'])}"}


def _made(directories: list[str]) -> None:
    """The output directory (and a new SQLite store's there), made now that
    a document is written into it: a host that failed before leaves none."""
    from ctxbench.core.errors import shown
    for d in directories:
        try:
            os.makedirs(d, exist_ok=True)
        except OSError as e:
            raise front_end.Failed(f"ctxbench_output_dir: cannot make {shown(d)} ({e.strerror or e})")


def _record(plan: dict, ran: dict, arch: str | None, task_vars: dict) -> dict:
    """The fleet's record of the host (ctxbench.fleet.record.Fleet), as
    `ctxbench fleet` writes it, the host named as the inventory names it."""
    host = str(task_vars.get("inventory_hostname", ""))
    return {"host": host, "address": str(task_vars.get("ansible_host") or host), "arch": arch or None,
            "groups": [str(g) for g in task_vars.get("group_names") or []], "cpu": plan.get("cpu"),
            "command": list(plan["command"]), "timings_s": {"run": verdict.seconds(ran.get("delta"))},
            "started": _started(ran.get("start"))}


def _started(start) -> str | None:
    """When the command started, in the host's local time as a run dates
    itself (the command module's `start`)."""
    try:
        return datetime.datetime.strptime(str(start), "%Y-%m-%d %H:%M:%S.%f").isoformat(timespec="seconds")
    except ValueError:
        return None


def _remove(path: str | None) -> None:
    if path:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
