"""Compile, once, every module a ctxbench process imports (make test).

Where PYTHONDONTWRITEBYTECODE is set (this image sets it) Python saves no
bytecode when it imports, and pip installs with --no-compile (compiling
every file it installs, ansible-core's thousands among them, was half of
the virtualenv's time): so each of the hundreds of ctxbench processes the
tests start compiled numpy and the rest again, about a minute of a fresh
clone's first test step. This imports what a command imports, eagerly and
lazily (figures, the store, SSH, inventories, pooling), and writes the
bytecode of exactly those modules: seconds, not the half minute of
compiling the whole virtualenv."""
from __future__ import annotations

import concurrent.futures
import importlib
import os
import pkgutil
import py_compile
import sys

# imported by commands only when they need them (late imports), besides ctxbench's own modules
LAZY = ("matplotlib.pyplot", "sqlalchemy", "alembic.command", "psycopg", "asyncssh", "ansible.inventory.manager",
        "ansible.vars.manager", "statsmodels.api", "scipy.stats", "signal_processing_algorithms.energy_statistics"
        ".energy_statistics")


def main() -> int:
    import matplotlib
    matplotlib.use("Agg")
    import ctxbench
    for m in pkgutil.walk_packages(ctxbench.__path__, "ctxbench."):
        if m.name.endswith("__main__"):  # it runs the command line
            continue
        try:
            importlib.import_module(m.name)
        except Exception:  # noqa: BLE001 (a module that needs what is not here: its bytecode is not needed)
            pass
    for name in LAZY:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001
            pass
    paths = sorted({p for m in list(sys.modules.values()) if (p := getattr(m, "__file__", None)) and p.endswith(".py")})
    with concurrent.futures.ProcessPoolExecutor(os.cpu_count() or 1) as pool:
        done = sum(pool.map(_compile, paths, chunksize=64))
    print(f"compiled {done} modules")
    return 0


def _compile(path: str) -> int:
    try:
        py_compile.compile(path, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
        return 1
    except (py_compile.PyCompileError, OSError):
        return 0


if __name__ == "__main__":
    sys.exit(main())
