"""The options every command shares, checked once, with one message each.

argparse calls these as `type=`; a bad value raises ArgumentTypeError,
which the CLI's parser turns into one line `ctxbench: <command>: argument
--flag: ...` and exit 2, before anything is measured. Each `add_*` helper
documents its option and default in one place (as nanoBench does).
"""
from __future__ import annotations

import argparse
import os
import re

from ctxbench.core.errors import UserError
from ctxbench.ui import presets

Bad = argparse.ArgumentTypeError

# One size grammar for every command (ring --footprint, sweep --sizes):
# bytes, with binary K/M/G suffixes, optionally followed by B or iB; a
# fraction is allowed where it gives whole bytes (1.5M).
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg]?)(i?b)?\s*$", re.IGNORECASE)
_SHIFT = {"": 0, "k": 10, "m": 20, "g": 30}


def size(text: str) -> int:
    """'4096', '16K', '1.5M', '64KiB', '2GB' -> bytes (binary multiples)."""
    m = _SIZE.match(text)
    if not m:
        raise Bad(f"'{text}' is not a size (bytes, or with K/M/G: 0, 4096, 16K, 1M)")
    num, mult = m.group(1), 1 << _SHIFT[m.group(2).lower()]
    if "." not in num:
        return int(num) * mult
    whole, frac = num.split(".")
    v = int(whole) * mult + int(frac) * mult // 10 ** len(frac)
    if int(frac) * mult % 10 ** len(frac):
        raise Bad(f"'{text}' is not a whole number of bytes")
    return v


def cpu(text: str) -> int:
    """A CPU number; whether the engine may use it is checked once the
    command knows where the engine runs (check_cpus)."""
    try:
        c = int(text)
    except ValueError:
        raise Bad(f"'{text}' is not a CPU number")
    if c < 0:
        raise Bad(f"'{text}' is not a CPU number")
    return c


CPU_FLAGS = {"cpu": "--cpu", "cross_cpu": "--cross-cpu"}


def check_cpus(args) -> None:
    """--cpu and --cross-cpu name CPUs the command's engine (args.engine)
    may use: this process's, or with --host, the host's (its engine's
    environment record), asked before anything is measured. One line,
    exit 2, as a bad option."""
    given = {flag: getattr(args, name) for name, flag in CPU_FLAGS.items() if getattr(args, name, None) is not None}
    if not given:
        return
    allowed = sorted(args.engine.allowed_cpus())
    host = args.engine.remote()
    for flag, c in given.items():
        if c not in allowed:
            who = f"for the engine on {host.host.name}" if host else "for this process"
            raise UserError(f"{args.command}: argument {flag}: {c}: no such CPU, or not allowed {who} "
                            f"(allowed: {','.join(map(str, allowed))})")


def add_host(p) -> None:
    """--host and --ssh-config, for every measuring command: its engine
    work runs on that host over SSH (core/ssh/session.py)."""
    p.add_argument("--host", dest="engine_host", type=host_spec, action=_Once, metavar="[USER@]HOST[:PORT]",
                   help="measure on this host over SSH: its static engine is copied there for the command and "
                        "removed after; analysis, figures and store stay here (docs/host.md). Default: this machine")
    p.add_argument("--ssh-config", action="append", metavar="FILE", type=existing_file,
                   help="an ssh config file for --host (default: ~/.ssh/config when there is one)")


class _Once(argparse.Action):
    """An option given at most once (a second --host would silently win)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, self.dest, None) is not None:
            raise argparse.ArgumentError(self, "given twice: one host per command (ctxbench fleet: many)")
        setattr(namespace, self.dest, values)


def host_spec(text: str):
    from ctxbench.core.ssh import hosts
    try:
        return hosts.from_spec(text)
    except UserError as e:
        raise Bad(e.why.removeprefix("fleet: "))


def existing_file(text: str) -> str:
    """A file to read (/dev/null too, as ssh -F takes it)."""
    if os.path.isdir(text):
        raise Bad(f"{text}: a directory, not a file")
    if not os.path.exists(text):
        raise Bad(f"{text}: no such file")
    return text


def _bounded(conv, kind: str, lo, hi):
    """A number type (int or float) bounded to [lo, hi]; nan is refused."""
    def parse(text: str):
        try:
            v = conv(text)
        except ValueError:
            raise Bad(f"expected {kind} from {lo:g} to {hi:g}, got '{text}'")
        if not lo <= v <= hi:
            raise Bad(f"expected {kind} from {lo:g} to {hi:g}, got {text}")
        return v
    parse.__name__ = kind.split()[-1]
    return parse


def count(lo: int, hi: int):
    """An integer type bounded to [lo, hi] (the flag is named by argparse)."""
    return _bounded(int, "an integer", lo, hi)


def real(lo: float, hi: float):
    """A number type bounded to [lo, hi]."""
    return _bounded(float, "a number", lo, hi)


def int_list(spec: str, lo: int, hi: int) -> list[int]:
    """'1..99', '1,25,50', '1..10,50' -> sorted unique ints in [lo, hi]."""
    out: set[int] = set()
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        try:
            if ".." in part:
                a, b = (int(x) for x in part.split("..", 1))
                if a > b or b - a > 1_000_000:
                    raise ValueError
                out.update(range(a, b + 1))
            else:
                out.add(int(part))
        except ValueError:
            raise Bad(f"expected numbers or ranges like 1..99, got '{part}'")
    if not out:
        raise Bad("nothing given")
    bad = [x for x in out if not lo <= x <= hi]
    if bad:
        raise Bad(f"{min(bad)} is outside {lo}..{hi}")
    return sorted(out)


def int_list_type(lo: int, hi: int):
    def parse(text: str) -> list[int]:
        return int_list(text, lo, hi)
    parse.__name__ = "list"
    return parse


def choice_list(choices: tuple[str, ...]):
    """'a,b' -> ['a', 'b'], each one of `choices`, in order, without repeats."""
    def parse(text: str) -> list[str]:
        out = []
        for x in (t.strip() for t in text.split(",")):
            if not x:
                continue
            if x not in choices:
                raise Bad(f"'{x}' is not one of {', '.join(choices)}")
            if x not in out:
                out.append(x)
        if not out:
            raise Bad("empty list")
        return out
    parse.__name__ = "list"
    return parse


def nonempty_list(text: str) -> str:
    """A comma-separated list parsed later by its command: an empty one is
    a mistake (it used to mean "all" and measure everything)."""
    if not any(t.strip() for t in text.split(",")):
        raise Bad("empty list (leave the option out for the default)")
    return text


nonempty_list.__name__ = "list"


def plot_dir(text: str) -> str:
    """A directory for figures: created later, but checked now, before
    anything is measured (ui/figures.check_dir)."""
    from ctxbench.core.errors import UserError
    from ctxbench.ui import figures  # matplotlib: only when --plot is given
    try:
        figures.check_dir(text)
    except UserError as e:
        raise Bad(str(e))
    return text


# ---- the shared options, each documented with its default here -------------

# Bounds: far beyond any useful run, small enough that nothing overflows.
MAX_GROUPS = 10_000
MAX_ITERATIONS = 100_000


def output_file(text: str) -> str:
    """-o's value: a path, or - for standard output; not empty (that is
    no file, found only once the run was over)."""
    if not text:
        raise Bad("an empty file name (give a path, or - for standard output)")
    return text


def add_output(p, what: str = "results file") -> None:
    p.add_argument("-o", "--output", metavar="FILE", type=output_file,
                   help=f"{what} (default: none here; the run is kept in the data directory, "
                        f"~/.local/share/ctxbench/runs/ or $XDG_DATA_HOME's)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--store", metavar="URL",
                   help="also record the run in this store, a SQLite file or a postgresql:// URL (default: "
                        "$CTXBENCH_STORE, else store.sqlite in the data directory)")
    g.add_argument("--no-store", dest="store", action="store_const", const="off",
                   help="record the run in no store")


def add_cpu(p, what: str = "CPU to measure on") -> None:
    p.add_argument("--cpu", type=cpu, metavar="N", help=f"{what} (default: the highest allowed)")


def add_store(p) -> None:
    """--store for the commands that read or fill the results store."""
    p.add_argument("--store", metavar="URL",
                   help="a SQLite file or a postgresql:// URL (default: $CTXBENCH_STORE, else store.sqlite in "
                        "the data directory, ~/.local/share/ctxbench/)")


def add_plot(p, what: str) -> None:
    p.add_argument("--plot", type=plot_dir, metavar="DIR", help=f"write {what} (PNG, SVG) to DIR")


def add_samples(p, command: str) -> None:
    """--groups and --iterations, the preset's unless given."""
    p.add_argument("--groups", type=count(1, MAX_GROUPS), metavar="G",
                   help=presets.flag_help(command, "groups", "groups of samples, each with fresh parties"))
    p.add_argument("--iterations", type=count(1, MAX_ITERATIONS), metavar="N",
                   help=presets.flag_help(command, "iterations", "samples per group"))


def add_scale(p, command: str) -> None:
    p.add_argument("--scale", type=real(0.001, 1000), metavar="X",
                   help=presets.flag_help(command, "scale", "task size multiplier (1: about 0.5 s per task on a "
                                                           "current x86-64 core)"))
