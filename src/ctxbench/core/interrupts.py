"""A Ctrl-C the command cannot lose.

As the ctxbench command, SIGINT raises KeyboardInterrupt (each command's
own clean-up answers it) and is also remembered. Python can lose the
exception: under load, about 1 in 90 interrupted runs of `peers --peer ctx-clock`
ran on after a Ctrl-C that reached the front end between two engine
commands, no engine saw it, and the exception never reached the command
(its handler had run; where the exception went, CPython did not say).
Every engine command checks first and last (core/engine.py), so a Ctrl-C
that was lost ends the command at the next engine command at the latest.
Where the package is imported by a program or a test, nothing is
installed and check() never raises."""
from __future__ import annotations

import signal

# The one module-level state of core/ (tests/test_no_module_state.py allows
# it): SIGINT's handler sets it, and a handler is given nothing of the
# command's to set instead; check() reads it at every engine command.
_seen = False


def _on_sigint(signum, frame) -> None:
    global _seen
    _seen = True
    raise KeyboardInterrupt


def install(signals=None) -> None:
    """`signals` (SIGINT and, where nothing else took it, SIGTERM) from
    here on: KeyboardInterrupt, remembered: a command told to end between
    two engine commands (its analysis, its figures) says so in one line
    and exits 130, as it does while an engine runs, instead of dying
    silently (exit 143)."""
    if signals is None:
        signals = [signal.SIGINT] + ([signal.SIGTERM] if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL else [])
    for sig in signals:
        signal.signal(sig, _on_sigint)


def check() -> None:
    """KeyboardInterrupt if a Ctrl-C came and its exception was lost."""
    if _seen:
        raise KeyboardInterrupt


def forget() -> None:
    """For a test that raised one on purpose."""
    global _seen
    _seen = False
