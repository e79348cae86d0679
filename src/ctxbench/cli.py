"""The ctxbench command line. Each subcommand lives in ctxbench.<name>.command
with add_parser(subparsers) and run(args) -> exit code; the measuring ones
run through ctxbench.lifecycle.

Ctrl-C, SIGTERM and SIGHUP are one line and exit 130 from the first
instruction to the last: while this module imports the commands (a
quarter of a second), and once main() is done, a handler (installed by
ctxbench/__init__.py, the first module of ours that runs) says so and
exits (nothing has been measured or is left to clean up then; main()
then ends the process itself, _exit); in between they are Python's
KeyboardInterrupt, which every command turns into its own clean-up, and
main() into that line."""
from __future__ import annotations

import argparse
import os
import signal
import sys

from ctxbench import AS_COMMAND as _AS_COMMAND, ENDING as _ENDING, interrupted_now as _interrupted_now

# Before numpy is imported anywhere: one BLAS thread. Each thread reserves
# its own memory at start-up, and under `ulimit -v` that alone made a small
# report fail with an OpenBLAS allocation error; nothing here needs BLAS
# threads.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from ctxbench import __version__  # noqa: E402  (after the BLAS setting above)
from ctxbench import commands  # noqa: E402
from ctxbench.core import interrupts, streams  # noqa: E402
from ctxbench.core.errors import UserError, escaped  # noqa: E402

# Subcommands, in the order `--help` lists them (ctxbench/commands.py, the
# one registry: each is ctxbench.<name>.command).
_MODULES = [commands.part(name, "command") for name in commands.NAMES]
COMMANDS = list(commands.NAMES)


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line (no usage dump)."""

    def error(self, message):  # noqa: D401
        # "ctxbench: tasks: argument --rounds: ..." (main adds "ctxbench: ")
        raise UserError(f"{self.prog.removeprefix('ctxbench').strip() or 'usage'}: {message}")


class _Version(argparse.Action):
    """--version: this front end's version and the engine it starts (its
    version and build: compiler, architecture, static or not, libraries)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from ctxbench.core import engine
        with engine.Engine() as eng:
            print(f"ctxbench {__version__}\nengine: {eng.build()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ctxbench", description="What a context switch really costs.")
    p.add_argument("--version", action=_Version, help="the version, and the engine's and how it was built")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in _MODULES:
        module.add_parser(sub)
    return p


def _tolerant_streams() -> None:
    """Under a non-UTF-8 locale (LC_ALL=C, ISO-8859-1) the table's µ, ± and
    … cannot be encoded: print a replacement character instead of dying
    after the results file was written."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="replace")
        except (AttributeError, ValueError):
            pass  # not a text stream we can reconfigure (a test's capture)


def main(argv: list[str] | None = None) -> int:
    if _AS_COMMAND:  # from here, each command's own clean-up (and a Ctrl-C never lost: interrupts.py)
        interrupts.install([sig for sig in _ENDING if signal.getsignal(sig) is _interrupted_now])
    try:
        guard = streams.guard()
        try:
            _tolerant_streams()
            rc = _command(argv)
        finally:
            lost = streams.release(guard)
        for fd, e in sorted(lost.items()):
            line = streams.lost_line(fd, e)
            if line and 2 not in lost:
                print(f"ctxbench: {line}", file=sys.stderr)
            rc = rc or 1
    except KeyboardInterrupt:  # between the command's end and here
        print("ctxbench: interrupted", file=sys.stderr)
        rc = 130
    if _AS_COMMAND:
        _exit(rc)
    return rc


def _exit(rc: int) -> None:
    """The command's end, as the ctxbench command: what would run at exit
    runs now (atexit's functions: ansible's temporary directories, ...)
    with Ctrl-C still one line, then the process exits with `rc`. The
    interpreter's own teardown (module by module, after it has put SIGINT
    back to its default) is skipped: a Ctrl-C there killed the process
    silently, and nothing of ours is left to it (every file is written
    and closed, every transaction committed or rolled back)."""
    import atexit
    for sig in _ENDING:
        if signal.getsignal(sig) != signal.SIG_IGN:  # one a parent set aside (nohup) stays so
            signal.signal(sig, _interrupted_now)
    try:
        atexit._run_exitfuncs()
    finally:
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except Exception:  # noqa: BLE001 (a stream already gone: said by streams)
                pass
        os._exit(rc)


def _interruption(e: BaseException) -> bool:
    """An exception that is a Ctrl-C in disguise: ctypes turns a
    KeyboardInterrupt raised while it converts a C call's arguments
    (E-divisive's, in history) into an ArgumentError naming it."""
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, KeyboardInterrupt) or (type(e).__name__ == "ArgumentError"
                                                and "KeyboardInterrupt" in str(e)):
            return True
        e = e.__cause__ or e.__context__
    return False


def _where_the_engine_runs(args):
    """The command's engine context (core/engine.Engine, args.engine):
    with --host, its engine work runs on that host (one SSH connection,
    closed at the command's end). Then --cpu and --cross-cpu are checked
    against the CPUs the engine may use there, or here."""
    from ctxbench.core import engine
    from ctxbench.core.ssh import hosts
    from ctxbench.ui import options
    if getattr(args, "ssh_config", None) and getattr(args, "engine_host", None) is None \
            and hasattr(args, "engine_host"):
        raise UserError(f"{args.command}: --ssh-config is for --host: give the host too")
    host = getattr(args, "engine_host", None)
    args.engine = engine.Engine(host, hosts.config_files(args.ssh_config) if host is not None else ())
    options.check_cpus(args)


def _command(argv: list[str] | None) -> int:
    args = None
    try:
        parser = build_parser()
        argv = list(sys.argv[1:] if argv is None else argv)
        remote = None
        if argv[:1] == ["fleet"] and "--" in argv:  # fleet HOSTS... -- COMMAND [options]: the command is its own
            i = argv.index("--")
            argv, remote = argv[:i], argv[i + 1:]
        args = parser.parse_args(argv)
        if remote is not None:
            args.remote = remote
            args.parse_command = parser.parse_args  # the fleet checks the command's options as they are given
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        _where_the_engine_runs(args)
        return int(args.func(args) or 0)
    except UserError as e:
        # one line, and whatever a name or an argument carried (ESC, a newline) shown as \xNN
        print(f"ctxbench: {escaped(str(e))}", file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        # commands that save as they go (sweep) say what they kept themselves
        print("ctxbench: interrupted", file=sys.stderr)
        return 130
    except MemoryError:  # before Exception, which it is one of
        print("ctxbench: out of memory (try a machine with more memory, or fewer files at once)", file=sys.stderr)
        return 1
    except Exception as e:
        if not _interruption(e):
            raise  # a fault no one foresaw: its traceback is what a bug report needs
        print("ctxbench: interrupted", file=sys.stderr)
        return 130
    except SystemExit as e:  # argparse's --help and --version
        return e.code if isinstance(e.code, int) else 0
    finally:  # after the line saying how it ended: the --host session's end, and what it may leave
        if getattr(args, "engine", None) is not None:
            args.engine.close()


if __name__ == "__main__":
    sys.exit(main())
