"""Every measuring command's presets, in one place (as nanoBench documents
every option with its default in one place).

A preset is what a command measures when nothing else is said: `--quick`
a smoke run (seconds, up to about 20 s on a 2-vCPU guest, small enough for
a test; its intervals may say "not resolved"), the default the run the
docs describe, `--full` the thorough one (minutes). Each knob below is one
setting with a one-line doc and its value in each preset. A knob named
like a command's flag (its argparse dest) is that flag's default: a flag
given on the command line wins over the preset (`apply`). docs/presets.md
is this table (tools/docs_help.py writes it from here).

`ctxbench run`'s counts are the engine's (engine/src/cli/options.c): a
board runs `ctxbench-engine run-suite` without Python and must measure
what `ctxbench run` does, so they are read from `ctxbench-engine presets`
(ENGINE below), not written twice."""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Callable

from ctxbench.core import workloads

NAMES = ("quick", "default", "full")


class _Engine:
    """A value the engine's preset table holds (`ctxbench-engine presets`)."""

    def __repr__(self) -> str:
        return "ENGINE"


ENGINE = _Engine()


def _list(v) -> str:
    return ",".join(map(str, v))


def _sizes(v) -> str:
    def one(b: int) -> str:
        for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
            if b and b % (1 << shift) == 0:
                return f"{b >> shift}{unit}"
        return str(b)
    return ",".join(map(one, v))


@dataclass(frozen=True)
class Knob:
    """One setting: its name (the dest of the flag that sets it, if
    `flag`), what it is, and its value in each preset (None: the
    command's own default, said in its --help)."""
    name: str
    doc: str
    quick: Any
    default: Any
    full: Any
    flag: bool = True
    show: Callable[[Any], str] | None = None

    def value(self, preset: str):
        return getattr(self, preset)

    def text(self, preset: str, engine: dict | None = None) -> str:
        """The value as the docs show it (`engine`: the engine's presets, to show its counts)."""
        v = self.value(preset)
        if v is ENGINE:
            return f"{engine[preset][self.name]} (the engine's)" if engine else "the engine's"
        if v is None:
            return "its default"
        return self.show(v) if self.show else _list(v) if isinstance(v, (list, tuple)) else str(v)

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Presets:
    """One command's presets: what --quick and --full are, in a line each,
    and its knobs."""
    command: str
    quick: str
    full: str
    knobs: tuple[Knob, ...]

    def knob(self, name: str) -> Knob:
        return next(k for k in self.knobs if k.name == name)

    def choices(self, name: str) -> str:
        """'default D; --quick Q, --full F' for a flag's help."""
        k = self.knob(name)
        return f"default {k.text('default')}; --quick {k.text('quick')}, --full {k.text('full')}"

    def settings(self, preset: str, eng=None) -> SimpleNamespace:
        """Every knob's value in `preset`, the engine's read from the
        command's engine `eng` (core/engine.Engine)."""
        vals = {k.name: k.value(preset) for k in self.knobs}
        if any(v is ENGINE for v in vals.values()):
            counts = eng.presets()[preset]
            vals = {n: counts[n] if v is ENGINE else v for n, v in vals.items()}
        return SimpleNamespace(**vals)


# Why the values are what they are stays beside them. Quick: up to about
# 20 s on a 2-vCPU guest (docs/presets.md has the times measured there).
PRESETS: dict[str, Presets] = {p.command: p for p in (
    # The engine's table says why its counts (engine/src/cli/options.c).
    Presets("run", "a small subset of the ids, for smoke tests (a few seconds)",
            "more groups and longer samples (several minutes)", (
                Knob("groups", "groups of samples, each with fresh parties; group g of every id runs in round g",
                     ENGINE, ENGINE, ENGINE),
                Knob("iterations", "samples per id and group", ENGINE, ENGINE, ENGINE),
                Knob("min_sample_us", "shortest sample, µs (the operations per sample adapt to it)",
                     ENGINE, ENGINE, ENGINE, flag=False),
                Knob("suite", "which ids: those `ctxbench-engine list --json` marks quick, or default",
                     "quick", "default", "default", flag=False),
                Knob("warmup_ms", "CPU warm-up before the first sample, ms (its default: the engine's --warmup-ms)",
                     100, None, None, flag=False))),
    Presets("userbench", "a smoke run (about a second)", "four times the default's groups", (
        Knob("groups", "groups of samples, every switch's group g in round g", 3, 10, 40),
        Knob("iterations", "samples per switch and group", 5, 10, 10),
        Knob("min_sample_us", "shortest sample, µs", 500, 2000, 2000, flag=False),
        Knob("warmup_ms", "CPU warm-up, ms (its default: the engine's --warmup-ms)", 100, None, None, flag=False))),
    # A runtime without a JIT (Go, Rust, C++, CPython) needs its warm-up only
    # for caches, page faults and the clock's speed: its harnesses report the
    # last warm-up batches stable within a few percent after 100 ms, and every
    # launch pays it per mechanism (runtimes/rounds.py wants many launches).
    # Quick is bounded by the harnesses' start-up (a JVM, node), not by these.
    Presets("runtimes", "a smoke run: one launch per row, short samples",
            "more launches, groups and longer samples", (
                Knob("groups", "groups per mechanism and row, over all its launches", 2, 12, 20, flag=False),
                Knob("iterations", "samples per group", 3, 6, 10, flag=False),
                Knob("min_sample_us", "shortest sample, µs", 500, 2000, 5000, flag=False),
                Knob("rounds", "launches per row, 2 groups each at least (the F test needs 2)", 1, 6, 10,
                     flag=False),
                Knob("warmup_ms", "warm-up per launch of a runtime with a JIT, ms", 100, 500, 1000, flag=False),
                Knob("warmup_ms_no_jit", "warm-up per launch without a JIT (Go, Rust, C++, CPython, the engine), ms",
                     50, 100, 200, flag=False),
                Knob("spawn", "lightweight threads per spawn sample (first round)", 200, 2000, 10000, flag=False),
                Knob("park", "lightweight threads parked at once for the memory figure", 10_000, 100_000, 100_000,
                     flag=False))),
    # Samples of 2 ms, not 0.5: at 1 MiB a round's setup (the parties, their
    # arrays) costs more than its samples, and a 500 µs sample holds one pass
    # per party; with 2 ms samples a given variance of 1M:64 took 43% less
    # time here (30 rounds each way). Full keeps the default's samples, so
    # that `sweep --full -o FILE` continues a default sweep with more budget.
    Presets("sweep", "a smoke run: one mechanism, 2 sizes x 2 strides, 15 s",
            "a 30-minute budget: the whole grid, more rounds for the noisy points (continues a default sweep)", (
                Knob("mechanism", "mechanisms (its default: `sweep --help`)", "kernel/thread/pipe", None, None),
                Knob("sizes", "sizes per party (its default: the host's, fitted to the budget)", "4K,256K", None,
                     None),
                Knob("strides", "strides in bytes (its default: 0..256, fitted to the budget)", "0,64", None, None),
                Knob("groups", "pilot rounds: every point measured in these before the allocation", 2, 3, 3),
                Knob("iterations", "samples per point and round", 3, 5, 5),
                Knob("min_sample_us", "shortest sample, µs", 500, 2000, 2000),
                Knob("budget", "seconds for the whole sweep, analysis and resumed runs included", 15, 300, 1800))),
    # The default stays under 5 minutes (270 s of measuring, start-up and
    # analysis); quick's tasks are 25 ms, so that its pilot and a few more
    # rounds fit in 10 s: its slope is seldom resolved, and says so.
    Presets("tasks", "a smoke run: one pair of small tasks, 3 values of n, 10 s",
            "the six pairs of David et al. 2007, 30 minutes", (
                Knob("pair", "task pairs", "aes+crc", _list(workloads.DEFAULT_PAIRS), "all"),
                Knob("switches", "values of n (1 is always added)", [1, 500, 1000], [1, 1000, 2000, 4000],
                     [1, 1000, 2000, 4000]),
                Knob("scale", "task size (1: about 0.5 s per task on a current x86-64 core)", 0.05, 1.0, 1.0),
                Knob("budget", "seconds of measuring for all pairs, pilot included", 10, 270, 1800))),
    # The default: the whole command under 5 minutes on a 2-vCPU VM.
    Presets("irq", "a smoke run: crc at 2 rates, small tasks, 10 s", "a 15-minute budget: more rounds", (
        Knob("task", "tasks", "crc", "all", "all"),
        Knob("rates", "timer signals per second", [1000, 10000], [100, 1000, 4000, 10000],
             [100, 1000, 4000, 10000]),
        Knob("scale", "task size (1: about 0.5 s per task on a current x86-64 core)", 0.05, 1.0, 1.0),
        Knob("budget", "seconds of measuring the pilot may plan for", 10, 240, 900))),
    Presets("noise", "2 windows (seconds)", "a minute", (
        Knob("seconds", "measured time in 1 s windows (the first window, a warm-up, is extra)", 2, 10, 60),)),
    # The default: 20 rounds of 13 launches of 0.3 s and one engine run each,
    # about two and a half minutes on a 2-vCPU guest (the bound: 5).
    # The rounds' ratios spread by about 10% there (each launch is new
    # processes); Student's t over 20 rounds makes that an interval of about
    # +-5%, narrower than the 10% a verdict needs (8 rounds left most rows
    # "not resolved").
    Presets("peers", "a smoke run: 2 rounds of 0.1 s launches", "40 rounds of 0.5 s launches", (
        Knob("rounds", "rounds: one launch of each peer and one engine run of ctxbench's ids each", 2, 20, 40),
        Knob("launch_ms", "how long a launch of a peer should last, ms (its count sized from a pilot)", 100, 300,
             500),
        Knob("groups", "groups of ctxbench's ids per round", 1, 3, 3, flag=False),
        Knob("iterations", "samples per id and group", 3, 5, 8, flag=False),
        Knob("min_sample_us", "shortest sample of an id, µs", 500, 1000, 2000, flag=False),
        Knob("warmup_ms", "the engine's CPU warm-up per round, ms", 20, 50, 100, flag=False))),
    # The default run of 112 points and 4 ping-pongs must end within 5 minutes
    # on a small, shared VM; 16 rounds give the drift estimate 8 blocks of 2
    # (stats/drift.py). Quick keeps N = 2 at footprint 0 (the ping-pong check).
    Presets("ring", "a smoke run: 3 ring sizes x 2 footprints, 4 groups", "more groups and longer samples", (
        Knob("parties", "parties in the ring", [2, 8, 64], [2, 4, 8, 16, 32, 64, 128], [2, 4, 8, 16, 32, 64, 128]),
        Knob("footprint", "bytes per party", [0, 16 << 10], [0, 4 << 10, 16 << 10, 64 << 10],
             [0, 4 << 10, 16 << 10, 64 << 10], show=_sizes),
        Knob("groups", "groups (rounds): group g of every point in round g", 4, 16, 32),
        Knob("iterations", "samples per point and group", 4, 6, 8),
        Knob("min_sample_us", "shortest sample, µs", 500, 1000, 2000, flag=False))),
    # The default ladder (12 rungs) takes about a minute on a 2-vCPU VM; 96
    # rounds give a part whose per-round spread is 5% of a 2.4 µs switch an
    # MDE of about 35 ns.
    Presets("anatomy", "a smoke run: 8 groups of short samples per rung", "300 groups: smaller MDEs for every part", (
        Knob("groups", "groups (rounds) per rung", 8, 96, 300),
        Knob("iterations", "samples per rung and group", 4, 8, 8),
        Knob("min_sample_us", "shortest sample, µs", 500, 1500, 2000, flag=False))),
)}

MEASURING = tuple(PRESETS)


def add_flags(p, command: str) -> None:
    """--quick and --full, exclusive, with their line from the table."""
    t = PRESETS[command]
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help=t.quick + " (docs/presets.md)")
    g.add_argument("--full", action="store_true", help=t.full)


def chosen(args) -> str:
    """The preset the command line chose: quick, full or default."""
    return "quick" if getattr(args, "quick", False) else "full" if getattr(args, "full", False) else "default"


def apply(args: argparse.Namespace, command: str) -> SimpleNamespace:
    """The chosen preset's settings, each flag the command line gave
    instead of the preset's value, and the flags left unset filled in
    on `args`; `.preset` names the preset."""
    preset = chosen(args)
    s = PRESETS[command].settings(preset, args.engine)
    for k in PRESETS[command].knobs:
        if k.flag:
            if getattr(args, k.name) is None:
                setattr(args, k.name, getattr(s, k.name))
            else:
                setattr(s, k.name, getattr(args, k.name))
    s.preset = preset
    return s


def flag_help(command: str, name: str, what: str) -> str:
    """A flag's help: what it is and its default in each preset."""
    k = PRESETS[command].knob(name)
    if k.default is ENGINE:
        return f"{what} (default: the preset's, `ctxbench-engine presets`)"
    return f"{what} ({PRESETS[command].choices(name)})"


def table_markdown(engine: dict | None = None) -> str:
    """docs/presets.md's table: every command's knobs in every preset
    (`engine`: `ctxbench-engine presets --json`, for run's counts)."""
    lines = []
    for t in PRESETS.values():
        lines += [f"### {t.command}", "", f"- `--quick`: {t.quick}", f"- `--full`: {t.full}", "",
                  "| setting | quick | default | full | what it is |", "|---|---|---|---|---|"]
        for k in t.knobs:
            flag = f"`{k.option}`" if k.flag else k.name
            cells = " | ".join(k.text(p, engine) for p in NAMES)
            lines.append(f"| {flag} | {cells} | {k.doc} |")
        lines.append("")
    return "\n".join(lines)

