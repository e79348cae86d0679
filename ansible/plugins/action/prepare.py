"""ctxbench.bench.prepare: what a host gets, decided on the control node
once its architecture (`uname -m` there) and its private directory are
known: the static engine built for that architecture (ctxbench's own
choice, ctxbench.core.ssh.engines), and on the wheel way ctxbench's
package for its Python, the command lines that unpack it (and, when
asked, fetch its requirements with pip), and the environment that keeps
everything ctxbench writes there inside the private directory."""
from __future__ import annotations

import posixpath
import shlex

from ansible import constants as C
from ansible.plugins.action import ActionBase

from ansible_collections.ctxbench.bench.plugins.plugin_utils import engines, front_end
from ansible_collections.ctxbench.bench.plugins.plugin_utils.package import ENGINE, LIB, MAIN, packed

ZIP = "ctxbench.zip"  # the wheel way's one file, in the host's private directory
SPEC = {
    "plan": {"type": "dict", "required": True},     # ctxbench.bench.plan's result
    "arch": {"type": "str", "required": True},      # `uname -m` on the host
    "directory": {"type": "str", "required": True},  # the host's private directory
    "engines": {"type": "path"},                    # default: ctxbench's (engines.default_dir())
    "wheel": {"type": "path"},                      # default: the control node's own package
    "python": {"type": "str"},                      # default: the Python Ansible uses on the host
    "pip": {"type": "bool", "default": False},      # fetch ctxbench's requirements there with pip
}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(argument_spec=SPEC)
        result.update(front_end.result(prepared, args, task_vars or {}))
        return result


def prepared(args: dict, task_vars: dict) -> dict:
    plan, d = args["plan"], args["directory"]
    with front_end.one_line("ctxbench"):
        engine = engines.for_host(args["arch"], args["engines"])
    out = {"changed": False, "engine": engine, "argv": plan.get("argv"),
           "environment": {}, "remote_engine": posixpath.join(d, ENGINE),
           "remote_document": posixpath.join(d, plan.get("remote_document", "document.json"))}
    out["msg"] = f"the {args['arch']} engine {out['engine']}"
    if plan["way"] != "wheel":
        return out
    with front_end.one_line("ctxbench_wheel"):
        zipped, requires = packed(args["wheel"], out["engine"], C.DEFAULT_LOCAL_TMP)  # removed with Ansible's own
    python = args["python"] or _interpreter(task_vars)
    lib, deps = posixpath.join(d, LIB), posixpath.join(d, "deps")
    # unpacked in the private directory (the task's chdir): the engine beside lib/, executable by its owner alone
    out.update(package=zipped, requires=requires, python=python,
               remote_package=posixpath.join(d, ZIP),
               unpack=["sh", "-c", f'"$1" -m zipfile -e {ZIP} . && chmod 700 {ENGINE}', "sh", python],
               pip=[python, "-m", "pip", "install", "--quiet", "--no-input", "--disable-pip-version-check",
                    "--no-cache-dir", "--no-compile", "--target", deps, *requires] if args["pip"] else None,
               argv=["timeout", "-k", str(plan["kill_after"]), str(plan["timeout"]), python, MAIN,
                     *plan["ctxbench_args"]],
               environment=_environment(d, lib, deps if args["pip"] else None))
    out["msg"] += f" with ctxbench's package in {zipped} for {python}" + (", pip's requirements" if args["pip"] else "")
    out["command_line"] = shlex.join(out["argv"])
    return out


def _interpreter(task_vars: dict) -> str:
    """The Python Ansible runs its modules with on the host: its
    ansible_python_interpreter, else the one it discovered there."""
    given = str(task_vars.get("ansible_python_interpreter") or "")
    if given and not given.startswith("auto"):
        return given
    facts = task_vars.get("ansible_facts") or {}
    return str(facts.get("discovered_interpreter_python") or task_vars.get("discovered_interpreter_python")
               or "python3")


def _environment(d: str, lib: str, deps: str | None) -> dict:
    """ctxbench's environment there: its package and requirements on the
    path (run_unpacked.py puts the package first in any case), the engine
    beside it, no store, and every file it would keep (the data
    directory, matplotlib's cache) inside the private directory."""
    return {"PYTHONPATH": ":".join([lib, *([deps] if deps else [])]),  # the host's (Linux) separator
            "CTXBENCH_ENGINE": posixpath.join(d, ENGINE), "CTXBENCH_STORE": "off",
            "XDG_DATA_HOME": posixpath.join(d, "data"), "XDG_CONFIG_HOME": posixpath.join(d, "config"),
            "XDG_CACHE_HOME": posixpath.join(d, "cache"), "MPLCONFIGDIR": posixpath.join(d, "matplotlib"),
            "PYTHONDONTWRITEBYTECODE": "1"}
