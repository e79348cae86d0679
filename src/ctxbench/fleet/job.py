"""What a fleet runs on each host, and how its output becomes a results
document here. The command after `--` is a ctxbench command.

- `run` with only a preset's options (--quick/--full/--groups/--iterations/
  --cpu) and `env` take the fast way: the engine's `run-suite` (or its
  environment record) as one engine command per host through the --host
  session, awaited here on one event loop (fleet/remote.py), the raw
  samples brought back and analysed here exactly as a local run's are
  (the engine's document is ctxbench/1: core/reader analyses it once, as its upgrade).
- Any other measuring command, with its own options, runs as that command
  with --host, one process here per host (fleet/child.py): its engine work
  on the host through the --host session, its document analysed here.

Either way the judgement of numbers stays on this side."""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from ctxbench.core import model, reader
from ctxbench.core.errors import UserError, escaped
from ctxbench.ui import presets
from ctxbench.records import RECORDS

COMMANDS = ("run", "env")  # the fast way
# the commands that measure and write a results document (ui.options.add_host and add_output): the
# way of a process per host (`system` writes none: the fleet's `env` is its record of every host)
MEASURING = ("run", "userbench", "sweep", "tasks", "irq", "noise", "ring", "anatomy", "peers")
# what the fleet decides for every host itself: the parsed options' names, and their flags
FLEET_OWNS = {"output": "-o", "store": "--store/--no-store", "plot": "--plot", "engine_host": "--host",
              "ssh_config": "--ssh-config", "json": "--json"}


@dataclass(frozen=True)
class Job:
    command: str
    preset: str | None = None
    groups: int | None = None
    iterations: int | None = None
    cpu: int | None = None
    argv: tuple[str, ...] = field(default_factory=tuple)   # as given, for the record
    child: bool = False          # runs as `ctxbench <argv> --host HOST`, a process per host (fleet/child.py)
    takes_cpu: bool = False      # the command has --cpu (a host's ctxbench_cpu is passed as it)
    cpu_given: bool = False      # the command's own --cpu was given (abbreviated too): it wins over ctxbench_cpu
    cross_cpu: int | None = None  # the command's --cross-cpu, where it has one
    ids: tuple[str, ...] = ()    # run's --ids, checked against the engines' lists before any host (command.py)

    def engine_args(self, cpu: int | None) -> list[str]:
        """The engine's arguments on a host (`cpu`: the host's own, which
        the command's --cpu overrides)."""
        if self.command == "env":
            return ["env", "--json"]
        a = ["run-suite", "--preset", self.preset or "default", "--json"]
        for flag, v in (("--groups", self.groups), ("--iterations", self.iterations),
                        ("--cpu", self.cpu if self.cpu is not None else cpu)):
            if v is not None:
                a += [flag, str(v)]
        return a


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UserError(f"fleet: the command after --: {message}")


def parse(argv: list[str], check=None) -> Job:
    """The job of the command after --. `check(argv)` parses it as the
    command line would (cli's parser: a bad option is the command's own
    one line), for the commands that run as a process per host."""
    if not argv:
        raise UserError(f"fleet: give the command to run after -- ({', '.join(MEASURING)})")
    if argv[0] == "runtimes":
        raise UserError("fleet: runtimes cannot run on a fleet: its harnesses are built and run with this "
                        "machine's toolchains (run ctxbench on each host instead)")
    if argv[0] not in MEASURING and argv[0] != "env":
        raise UserError(f"fleet: '{escaped(argv[0])}' is not a measuring command (commands: env, "
                        f"{', '.join(MEASURING)})")
    # the command's own options first, as its own command line reads them (abbreviations, --cpu -1, --help),
    # whichever way it then takes: a bad one is its line before any host is touched
    args = check(list(argv)) if check and argv[0] in MEASURING else None
    if argv[0] in COMMANDS:
        try:
            return _fast(argv)
        except UserError as e:
            # run with options beyond a preset's (--ids, ...) runs as the command itself; any other fault is said
            if argv[0] != "run" or "unrecognized arguments" not in e.why:
                raise
    # read from the parsed options, so that an abbreviation (--out, --sto) is caught as the option it is
    owned = [flag for name, flag in FLEET_OWNS.items() if getattr(args, name, None) not in (None, False)]
    if owned:
        raise UserError(f"fleet: the command after --: {owned[0]} is the fleet's to decide (each host's results "
                        "file, the store, the figures and the hosts)")
    given = getattr(args, "cpu", None) is not None if args is not None else _gives_cpu(argv)
    ids = tuple(i.strip() for i in (getattr(args, "ids", None) or "").split(",") if i.strip()) \
        if argv[0] == "run" else ()
    return Job(argv[0], cpu=getattr(args, "cpu", None), argv=tuple(argv), child=True,
               takes_cpu=args is not None and hasattr(args, "cpu"), cpu_given=given,
               cross_cpu=getattr(args, "cross_cpu", None), ids=ids)


def _gives_cpu(argv: list[str]) -> bool:
    """Without the command's parser: whether --cpu is given, as argparse
    reads it (--cpu N, --cpu=N, or a prefix of it: --cp N)."""
    return any(len(flag := a.split("=", 1)[0]) >= 4 and "--cpu".startswith(flag) for a in argv[1:])


def _fast(argv: list[str]) -> Job:
    """`run` with a preset's options, or `env`: the engine's one command."""
    p = _Parser(prog=f"ctxbench fleet ... -- {argv[0]}", add_help=False)
    if argv[0] == "run":
        presets.add_flags(p, "run")  # the engine's run-suite runs the same preset there
        p.add_argument("--groups", type=int)
        p.add_argument("--iterations", type=int)
        p.add_argument("--cpu", type=int)
    a = p.parse_args(argv[1:])
    if argv[0] == "env":
        return Job("env", argv=tuple(argv))
    for name in ("groups", "iterations"):
        v = getattr(a, name)
        if v is not None and not 1 <= v <= 100000:
            raise UserError(f"fleet: the command after --: --{name} {v} is out of range (1 to 100000)")
    return Job("run", presets.chosen(a), a.groups, a.iterations, a.cpu, tuple(argv))


def document(job: Job, raw: bytes, fleet: dict) -> dict:
    """The host's results document: the engine's, its samples analysed
    here, with the command's section and the fleet's record of the host."""
    doc = reader.decode(raw, f"{fleet.get('host')}'s engine output")
    if not isinstance(doc, dict):
        raise UserError(f"{fleet.get('host')}'s engine output is not a results document")
    if job.child:
        pass  # the command's own document, made through its lifecycle by the process that ran it
    elif job.command == "env":
        # the engine's header alone, checked below as any document is
        doc = {**{k: doc[k] for k in ("schema", "tool", "environment") if k in doc}, "results": []}
    else:
        doc["run"] = {"preset": job.preset, "engine_args": job.engine_args(fleet.get("cpu")),
                      "order": "interleaved by group", "started": fleet.get("started")}
    doc["fleet"] = fleet
    return reader.parse(doc, f"{fleet.get('host')}'s engine output", RECORDS)


def summary(doc: dict) -> dict:
    """{point key: (median, lo, hi, unit, median in ns)} of a host's
    document: in core cycles where they apply (hosts differ in speed, and
    one host's clock moves between runs), else in the result's unit."""
    out = {}
    for r in model.Document(doc).results:
        s = r.cycles.summary if r.cycles.applies else r.summary
        lo, hi = s.ci95
        out[r.point_key] = (s.median, lo, hi, "cycles" if r.cycles.applies else r.unit or "ns", r.summary.median)
    return out


def own_argv(job: Job, cpu: int | None) -> list[str]:
    """The command line (after `ctxbench`) of a host that runs ctxbench
    itself rather than the engine alone: the command as given, with the
    host's ctxbench_cpu as --cpu where the command takes one and was given
    none (the fleet's child way passes it so too). `run` with a preset's
    options takes --cpu whichever way it runs."""
    takes = job.takes_cpu or job.command == "run"
    given = job.cpu_given or job.cpu is not None
    return [*job.argv, *(["--cpu", str(cpu)] if cpu is not None and takes and not given else [])]
