"""The control node's ctxbench, as this collection's action plugins use it.

The plugins run in the Python of ansible-playbook and import ctxbench
from there: ctxbench depends on ansible-core, so `pip install ctxbench`
gives both in one environment. What ctxbench refuses is one line, as on
its own command line (ctxbench.core.errors.UserError, escaped)."""
from __future__ import annotations

import contextlib
import json
import sys


class Failed(Exception):
    """This host's task fails with this one line."""


def missing() -> str | None:
    """Why ctxbench cannot be used here (None: it can)."""
    try:
        import ctxbench.fleet.job  # noqa: F401 (what every plugin needs)
    except ImportError as e:
        return (f"ctxbench: the control node's Python ({sys.executable}) cannot import ctxbench ({e}): install "
                "ctxbench where ansible-core is (pip install ctxbench, or `make wheel`'s wheel)")
    return None


@contextlib.contextmanager
def one_line(prefix: str = "ctxbench"):
    """ctxbench's own refusals, and a missing ctxbench, as Failed with one
    line: `prefix: what ctxbench said`."""
    why = missing()
    if why:
        raise Failed(why)
    from ctxbench.core.errors import UserError, escaped
    try:
        yield
    except UserError as e:
        raise Failed(f"{prefix}: {escaped(str(e))}") from None


def checked(argv: list[str]):
    """The command's job (ctxbench.fleet.job.Job): read by the fleet's own
    rule, its options checked by the command line's own parser, as
    `ctxbench fleet` checks them (one rule for which way a command takes)."""
    from ctxbench.cli import build_parser
    from ctxbench.fleet import job
    from ctxbench.fleet.command import Check
    return job.parse(list(argv), check=Check(build_parser().parse_args))


def commit(value: str | None, name: str) -> str | None:
    """The git commit the runs measured, by `ctxbench store add --commit`'s
    rule (not empty, at most the store's column): checked before anything
    is measured, not when the run is recorded."""
    from ctxbench.store.command import MAX_COMMIT
    if value is not None and not (value.strip() and len(value) <= MAX_COMMIT):
        raise Failed(f"{name}: {len(value)} characters{' of blanks' if value and not value.strip() else ''}: "
                     f"give the commit the runs measured, 1 to {MAX_COMMIT} characters")
    return value


def plain(value):
    """A task's arguments as plain JSON values: Ansible (2.19) hands out
    its own str and int subclasses, carrying where a value came from,
    which ctxbench's encoder (msgspec) does not take."""
    return json.loads(json.dumps(value))


def result(run, args: dict, *more) -> dict:
    """What an action returns: run(its arguments, *more)'s result, or
    failed with its one line."""
    try:
        return run(plain(args), *more)
    except Failed as e:
        return {"failed": True, "msg": str(e)}
