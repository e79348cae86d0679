"""The wheel way's entry point on a host, copied there beside the unpacked
package (ctxbench.bench.prepare): `python run_unpacked.py COMMAND...` runs
the ctxbench in lib/ next to it, as `python -m ctxbench` would, whatever
other ctxbench the host's Python has. An editable install's import hook
sits before sys.path (scikit-build-core's), so PYTHONPATH alone would not
make this copy the one that runs: a finder of this package's own, first
in line, does. Nothing runs when it is imported (on the control node the
collection only reads this file)."""
from __future__ import annotations

import os
import runpy
import sys
from importlib.machinery import PathFinder

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")


class Unpacked:
    """ctxbench's modules from LIB, before any other finder."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "ctxbench" and not name.startswith("ctxbench."):
            return None
        return PathFinder.find_spec(name, [LIB] if path is None else path, target)


def main() -> None:
    sys.meta_path.insert(0, Unpacked)
    sys.argv[0] = "ctxbench"  # the package sees the ctxbench command (its own handling of Ctrl-C and SIGTERM)
    runpy.run_module("ctxbench", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
