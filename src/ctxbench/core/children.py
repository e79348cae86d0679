"""A child program the front end starts and owns (a runtime's harness; a
peer is the engine's, engine/src/cli/exec.c): its CPUs set and its death with the front end arranged between fork
and exec, and its process group killed on every way out."""
from __future__ import annotations

import ctypes
import os
import signal

_PR_SET_PDEATHSIG = 1
try:  # loaded before any fork: the child must not dlopen between fork and exec
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux: no parent-death signal, the watchdog still bounds it
    _prctl = None


def child_setup(cpus: tuple[int, ...], parent: int):
    """Runs in the child between fork and exec: its CPUs, and death with
    the front end (SIGKILL when the parent goes; if it already went, exit)."""
    def setup():
        os.sched_setaffinity(0, cpus)
        if _prctl is not None:
            _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:
                os._exit(1)
    return setup


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass
