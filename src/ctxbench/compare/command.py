"""ctxbench compare: per id (and point) present on both sides, the two
medians with each side's spread, the relative change with its interval, a
Mann-Whitney U test and a verdict; what differs between the machines is
listed first. Each side may be several files or runs selected from the
results store (compare/sides.py): their samples are pooled per id, and
their runs are the units the change's interval resamples
(compare/change.py). With --fail-if-slower it is a regression gate
(compare/gate.py).

The steps: the sides named (here), read (compare/sides.py) and paired id
by id (compare/pairing.py); what differs between them (compare/header.py);
then the gate, or the table (compare/table.py) and what two single files
add (compare/two_files.py)."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ctxbench.compare import gate, header, host, pairing, sides, table, two_files
from ctxbench.core import writer
from ctxbench.core.errors import UserError, escaped
from ctxbench.ui.options import add_store


def add_parser(sub):
    p = sub.add_parser("compare", help="compare two results files (or two groups of runs)",
                       description="Compare results: medians and spread, relative change with its interval, "
                                   "Mann-Whitney U test, verdict; or gate on a slowdown.")
    p.add_argument("base", nargs="?", metavar="BASE.json")
    p.add_argument("new", nargs="?", metavar="NEW.json")
    p.add_argument("--base", dest="base_files", nargs="+", metavar="FILE|KEY=VALUE",
                   help="the base side: files, or runs in the store selected by key=value[,key=value] "
                        f"(keys: {', '.join(sides.KEYS)}; * matches any text)")
    p.add_argument("--new", dest="new_files", nargs="+", metavar="FILE|KEY=VALUE",
                   help="the new side, as --base")
    p.add_argument("--threshold", default="5%", metavar="PCT",
                   help="smallest relative change that counts (default 5%%)")
    p.add_argument("--fail-if-slower", metavar="PCT", type=lambda t: parse_threshold(t, "--fail-if-slower"),
                   help="a regression gate: one line per id, exit 1 when an id is slower by more than PCT "
                        "and more than the comparison's MDE")
    p.add_argument("--junit", metavar="FILE", help="with --fail-if-slower: also write the verdicts as JUnit XML")
    p.add_argument("--unit", choices=pairing.UNITS, default="auto",
                   help="what the change is judged in: core cycles where both sides have them, ns elsewhere "
                        "(auto, the default: the host's clock moves between runs); or ns; or cycles only")
    add_store(p)
    p.set_defaults(func=run)


def parse_threshold(text: str, flag: str = "--threshold") -> float:
    t = text.strip()
    try:
        v = float(t[:-1]) / 100 if t.endswith("%") else float(t)
    except ValueError:
        raise UserError(f"{flag}: '{escaped(text)}' is not a percentage (e.g. 5%)")
    if not 0 <= v < 10:
        raise UserError(f"{flag}: '{escaped(text)}' is out of range")
    if not t.endswith("%") and v >= 1:  # `--fail-if-slower 5` gated at 500%: a 100% regression passed
        raise UserError(f"{flag}: '{escaped(text)}' would be {v:.0%}: write {escaped(t)}% for {escaped(t)} percent "
                        f"(a bare number is a fraction: 0.05 is 5%)")
    return v


@dataclass(frozen=True)
class Asked:
    threshold: float
    base: list[str]             # each side's files and store selectors
    new: list[str]


def _asked(args) -> Asked:
    """What the command line asks for, checked before anything is read."""
    thr = parse_threshold(args.threshold)
    if (args.base or args.new) and (args.base_files or args.new_files):
        raise UserError("compare: give either two files (BASE NEW) or --base ... --new ..., not both")
    base_specs = (args.base_files or []) + ([args.base] if args.base else [])
    new_specs = (args.new_files or []) + ([args.new] if args.new else [])
    if not base_specs or not new_specs:
        raise UserError("compare: give two files (BASE NEW), or --base FILE|KEY=VALUE... --new FILE|KEY=VALUE...")
    if args.junit and args.fail_if_slower is None:
        raise UserError("compare: --junit writes the gate's verdicts: give --fail-if-slower PCT with it")
    sides.check(base_specs + new_specs)  # keys and dates, before anything is read
    return Asked(thr, base_specs, new_specs)


def _read(args, asked: Asked) -> tuple[sides.Side, sides.Side, writer.Output | None]:
    """Both sides' runs, from files and the store, and the JUnit file the
    gate will write (checked writable first)."""
    specs = asked.base + asked.new
    from ctxbench.core.store import choice
    choice.never_onto(args.store, [args.junit])  # the store (read in passing for core clocks, too) is no output
    junit_out = writer.check_writable(args.junit, specs) if args.junit else None
    store = None
    if any(map(sides.is_selector, specs)):
        from ctxbench.core.store.db import open_store
        store = open_store(args.store, writes=False, outputs=[args.junit])
    elif args.store is not None:  # named, though only read in passing (core clocks): it must be usable
        choice.decide(args.store, writes=False, outputs=[args.junit])
    return sides.resolve(asked.base, store), sides.resolve(asked.new, store), junit_out


def run(args) -> int:
    asked = _asked(args)
    bs, ns, junit_out = _read(args, asked)
    paired = pairing.pair(bs.docs, ns.docs, args.unit)
    paired = replace(paired, host=host.of_sides(bs.docs, ns.docs, header.env_differences(bs.docs, ns.docs)))
    header.print_header(bs, ns, paired, args.store)
    if args.fail_if_slower is not None:
        return gate.report(paired, args.fail_if_slower, junit_out,
                           f"ctxbench compare {' '.join(bs.specs)} -> {' '.join(ns.specs)}")
    table.print_table(paired, asked.threshold, args.unit)
    two_files.print_two_files(paired)
    return 0
