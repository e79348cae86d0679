"""ctxbench: what a context switch really costs.

As the ctxbench command, Ctrl-C, SIGTERM and SIGHUP (a terminal closed)
are one line and exit 130 from the package's first instruction: this is
the first module of ours Python runs, so the handler goes in here, before
anything else is imported (cli.py imports the commands for a quarter of a
second; a SIGINT in that window, even in the `from __future__` line of
cli.py on a loaded host, gave a traceback, and a SIGTERM or SIGHUP killed
the command silently). Only Python's own start-up comes before it. Where
a program or a test imports the package, nothing is installed and nothing
runs."""
import os as _os
import sys as _sys

import _signal  # the C module: `signal` imports enum, 4 ms more of a window a Ctrl-C would meet unanswered


def interrupted_now(signum, frame) -> None:  # pragma: no cover (a signal's timing)
    """Ctrl-C, SIGTERM or SIGHUP before main() runs or after it returned:
    nothing to keep."""
    for s in (_sys.stdout, _sys.stderr):
        try:
            s.flush()
        except Exception:  # noqa: BLE001 (a stream already gone)
            pass
    _os.write(2, b"ctxbench: interrupted\n")
    _os._exit(130)


# The console script (argv[0] .../ctxbench) or `python -m ctxbench` (argv[0]
# is "-m" while Python imports the package it runs). Each signal is taken
# on its own where it is as the system left it (SIGINT: Python's own
# handler): one a parent set aside stays so (a shell's `&` ignores SIGINT,
# nohup SIGHUP), and the others are still taken (SIGTERM killed such a
# fleet silently when all hung on SIGINT's).
_ARGV0 = _sys.argv[0] if getattr(_sys, "argv", None) and isinstance(_sys.argv[0], str) else ""
AS_COMMAND = (_os.path.basename(_ARGV0) == "ctxbench" or _ARGV0 == "-m"
              or _ARGV0.endswith(_os.path.join("ctxbench", "__main__.py")))


def _ask_for_sigint_later() -> None:
    """In a helper thread: SIGINT for the main thread, once its hook has returned."""
    import _thread
    import time  # built in
    time.sleep(0.001)
    _thread.interrupt_main(_signal.SIGINT)


def unraisable(u) -> None:
    """sys.unraisablehook, as the ctxbench command. A Ctrl-C that lands in
    code whose exceptions Python cannot raise (a weakref callback of the
    import system, while a command imports a library) was printed as
    "Exception ignored ... Traceback" and then lost: it is asked for again,
    so that the command's own handling answers it (one line, exit 130).
    It is asked for from a helper thread a millisecond later, once the hook
    has returned: asked for in the hook (raise_signal, interrupt_main), the
    handler ran at the hook's next call, and a handler that raises
    (core/interrupts, once main() runs) raised inside the hook, unraisable
    again (CI met it: "Exception ignored in sys.unraisablehook"). Should
    it land in such a place again, this hook asks again."""
    if isinstance(u.exc_value, KeyboardInterrupt) or u.exc_type is KeyboardInterrupt:
        import _thread  # built in: nothing to load
        _thread.start_new_thread(_ask_for_sigint_later, ())
        return
    _sys.__unraisablehook__(u)


# Signals that end the command as Ctrl-C does (main() hands them to core/interrupts)
ENDING = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP)



def _as_left(sig) -> bool:
    """The signal's handler is the one the system (or Python, for SIGINT) left: not one a parent set aside."""
    return _signal.getsignal(sig) is (_signal.default_int_handler if sig == _signal.SIGINT else _signal.SIG_DFL)


if AS_COMMAND:
    for _sig in ENDING:
        if _as_left(_sig):
            _signal.signal(_sig, interrupted_now)
    _sys.unraisablehook = unraisable


def __getattr__(name: str):
    """`__version__`, read from the installed package's metadata when it is
    first asked for, and `load` (ctxbench.export.api: results files or a
    store as frames), imported when first asked for: importing the package
    reads nothing and imports neither pyarrow nor a frame library."""
    if name == "load":
        from ctxbench.export.api import load
        globals()["load"] = load
        return load
    if name != "__version__":
        raise AttributeError(name)
    from importlib.metadata import PackageNotFoundError, version
    try:
        v = version("ctxbench")
    except PackageNotFoundError:  # running from a source tree without install
        v = "0.0.0-dev"
    globals()["__version__"] = v
    return v
