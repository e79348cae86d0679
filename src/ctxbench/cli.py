"""The ctxbench command line. Each subcommand lives in ctxbench.<name>.command
with add_parser(subparsers) and run(args) -> exit code."""
from __future__ import annotations

import argparse
import importlib
import sys

from ctxbench import __version__
from ctxbench.core.errors import UserError

# Subcommands, in the order `--help` lists them.
COMMANDS = ["run", "system", "userbench", "sweep", "tasks", "irq", "noise", "ring", "report", "compare"]


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line (no usage dump)."""

    def error(self, message):  # noqa: D401
        raise UserError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ctxbench", description="What a context switch really costs.")
    p.add_argument("--version", action="version", version=f"ctxbench {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"ctxbench.{name}.command").add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return int(args.func(args) or 0)
    except UserError as e:
        print(f"ctxbench: {e}", file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("ctxbench: interrupted; no results file written", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
