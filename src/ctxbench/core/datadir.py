"""Where a measuring command keeps its results when no -o was given.

The working directory gets nothing a command was not asked for; what was
measured is still never thrown away: it is kept in the user's data
directory (XDG Base Directory rules: $XDG_DATA_HOME, else
~/.local/share), under ctxbench/runs/, one file per run, named as -o's
default would be. The results store (issue 25) is to live beside it."""
from __future__ import annotations

import datetime
import os

from ctxbench.core.errors import UserError, shown


def base() -> str:
    """$XDG_DATA_HOME/ctxbench, or ~/.local/share/ctxbench (a relative
    XDG_DATA_HOME is invalid by the spec and ignored)."""
    xdg = os.environ.get("XDG_DATA_HOME", "")
    root = xdg if os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(root, "ctxbench")


def run_name(kind: str, now: datetime.datetime | None = None) -> str:
    """ctxbench-<kind>-<time>.json ('run' has no kind in the name); the
    process id makes two runs started in the same second two files."""
    stamp = f"{(now or datetime.datetime.now()):%Y%m%d-%H%M%S}-{os.getpid()}"
    return f"ctxbench-{stamp}.json" if kind == "run" else f"ctxbench-{kind}-{stamp}.json"


def run_path(kind: str) -> str:
    """A new file for a run kept without -o; the directory is made now,
    before measuring, so that a data directory that cannot be written is
    said before the measurement, not after."""
    d = os.path.join(base(), "runs")
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
    except OSError as e:
        raise UserError(f"no -o given, and the results cannot be kept in {shown(d)} "
                        f"({e.strerror or e}): name a results file with -o FILE")
    return os.path.join(d, run_name(kind))
