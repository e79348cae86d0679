"""ctxbench peers: the numbers other tools print for a context switch
(perf bench sched pipe, stress-ng --switch and --context, hackbench,
sysbench threads, ctx-clock's method, lmbench's lat_ctx), measured on this
machine in the same run as ctxbench's own ids, each turned into ctxbench's
unit and set beside the part of ctxbench that measures the same thing
(peers/catalogue.py says what each peer's operation contains).

Rounds: every round is one engine run of ctxbench's ids (a few groups)
and one launch of every peer, in an order rotated from round to round, so
that each ratio is taken within a round and the host's drift between
rounds cancels in it. Before the rounds, one pilot launch of each peer
sizes its count so that a launch lasts about --launch-ms. A peer that is
not installed costs one line; one that fails or prints what its parser
does not know costs its row (one line at the end, exit 1), never the
others'.

The steps (run): the plan (which peers in which placements, on which
CPUs), the pilots, the rounds, the rows, the document, the table."""
from __future__ import annotations

import json
import signal
import sys
import time
from dataclasses import dataclass, field
from types import SimpleNamespace

from ctxbench.core import model
from ctxbench.core.engine import Engine
from ctxbench.core.errors import UserError, escaped
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.lifecycle import Lifecycle
from ctxbench.peers import analysis, catalogue, launch, parsers, parts, table
from ctxbench.ui import options, presets
from ctxbench.ui.progress import Progress

MOST_COUNT_FACTOR = 1000  # a sized count is at most this many pilots (a pilot that took no time)
PILOT_TIMEOUT_S = 30      # a pilot is a small count: seconds at most (lat_ctx's own count: about 1 s here)
# what costs a peer its row: it failed or hung, printed what its parser does not know, or a number no
# arithmetic takes (a count beyond any float)
PEER_FAULTS = (launch.PeerFailed, parsers.PeerOutput, ValueError, ArithmeticError)


def add_parser(sub):
    p = sub.add_parser("peers", help="other tools' switch numbers (perf, stress-ng, ...) beside ctxbench's, explained",
                       description="Run the context-switch benchmarks people quote (perf bench sched pipe, "
                                   "stress-ng --switch and --context, hackbench, sysbench threads, ctx-clock's "
                                   "method, lat_ctx where lmbench is on PATH) in rounds with ctxbench's own ids, "
                                   "each pinned to one CPU and as its docs run it, and say what each one's number "
                                   "is in ctxbench's terms: the ratio to ctxbench's figure for the same quantity, "
                                   "and the parts that account for a difference.")
    keys = tuple(p_.key for p_ in catalogue.PEERS)
    p.add_argument("--peer", type=options.choice_list(keys), metavar="P,...",
                   help=f"peers to run (default: every one installed; known: {', '.join(keys)})")
    p.add_argument("--placement", type=options.choice_list(catalogue.PLACEMENTS), metavar="P,...",
                   help="pinned (one CPU), unpinned (every allowed CPU, as the peers' docs run them), or both "
                        "(default)")
    presets.add_flags(p, "peers")
    p.add_argument("--rounds", type=options.count(1, 1000), metavar="R",
                   help=presets.flag_help("peers", "rounds", "rounds: one launch of each peer and one engine run each"))
    p.add_argument("--launch-ms", type=options.count(10, 60_000), metavar="MS",
                   help=presets.flag_help("peers", "launch_ms", "how long each launch of a peer should last"))
    options.add_cpu(p, "the CPU pinned peers and ctxbench's same-CPU ids run on")
    options.add_host(p)
    options.add_output(p)
    options.add_plot(p, "the figure (peers)")
    p.set_defaults(func=run)


@dataclass(frozen=True)
class Plan:
    """What a run measures, decided before anything is launched."""
    knobs: SimpleNamespace                      # the preset's settings, flags applied
    cpu: int                                    # pinned peers' and ctxbench's same-CPU ids' CPU
    cross: int | None                           # ctxbench's cross-CPU ids' second CPU
    allowed: frozenset[int]                     # the engine's CPUs: where unpinned peers run
    placements: list[str]
    rows: list[tuple[catalogue.Peer, str]]      # (peer, placement), each a row
    present: dict[str, tuple[str, str]]         # {peer: (program, version)}
    absent: list[dict]
    ids: list[str]                              # ctxbench's own ids, measured each round
    opts: EngineOptions
    rounds: int
    launch_s: float                             # how long a sized launch should last
    engine: Engine                              # the command's engine context (args.engine)


@dataclass
class Measured:
    """What the pilots and the rounds gathered, added to as they go."""
    header: dict = field(default_factory=dict)
    counts: dict[tuple[str, str], int] = field(default_factory=dict)     # each row's sized count
    pilots: list[dict] = field(default_factory=list)
    engine_rounds: list[list[dict]] = field(default_factory=list)
    engine_failures: list[dict] = field(default_factory=list)           # one for each id the engine lost
    by_row: dict[tuple[str, str], list[dict]] = field(default_factory=dict)  # each row's launches
    failures: list[dict] = field(default_factory=list)                  # rows that failed
    failed: set[str] = field(default_factory=set)

    def fail(self, peer: catalogue.Peer, place: str, e: Exception) -> None:
        """A row failed: it is not launched again, and its launches go."""
        rid = f"peers/{peer.key}/{place}"
        self.failures.append({"id": rid, "error": str(e.why if isinstance(e, UserError) else e)})
        self.failed.add(rid)
        self.by_row.pop((peer.key, place), None)


def run(args) -> int:
    """The command, with SIGTERM an interruption throughout (not only while
    a peer or the engine runs)."""
    old = launch.on_sigterm_interrupt()
    try:
        return _run(args)
    finally:
        signal.signal(signal.SIGTERM, old)


def _run(args) -> int:
    life = Lifecycle("peers", args.output, store=args.store, engine=args.engine)
    plan = _plan(args)
    got = _measure(plan)
    results = [analysis.row(peer, place, got.by_row[(peer.key, place)], plan.present[peer.key][1])
               for peer, place in plan.rows if (peer.key, place) in got.by_row]
    results += [model.analyse(x) for x in _merged(got.engine_rounds, plan.knobs.groups)]
    failures = got.failures + got.engine_failures
    env = model.Document(got.header).environment
    life.write(_document(life, plan, got, results, failures))
    _print_table(life, plan, env, results)
    if args.plot:
        from ctxbench.peers import figures
        life.figures(args.plot, [(figures.NAME, figures.figure(results, env))])
    life.finish()
    life.failed(failures, len(plan.rows) + len(plan.ids))
    return 0


def _plan(args) -> Plan:
    knobs = presets.apply(args, "peers")
    cpu, cross, allowed, host = _machine(args)
    placements = _placements(args.placement, cross)
    wanted = [p for p in catalogue.PEERS if not args.peer or p.key in args.peer]
    present, absent = _programs(args.engine, wanted, host)
    rows = _rows(wanted, placements, present, absent)
    listed = {b["id"] for b in args.engine.list_benchmarks(all_=True)}
    ids = [i for i in parts.IDS if i in listed and (cross is not None or i not in parts.CROSS_IDS)]
    opts = EngineOptions(cpu=cpu, cross_cpu=cross, groups=knobs.groups, iterations=knobs.iterations,
                         min_sample_us=knobs.min_sample_us, warmup_ms=knobs.warmup_ms)
    return Plan(knobs, cpu, cross, allowed, placements, rows, present, absent, ids, opts, args.rounds,
                args.launch_ms / 1000, args.engine)


def _machine(args) -> tuple[int, int | None, frozenset[int], object]:
    """The measured CPU, a second one (None: only one allowed), every CPU the
    engine may use (where unpinned peers run) and the --host session (None:
    here): the one step that reads the engine's state."""
    eng = args.engine
    measured = eng.measured_cpu(args.cpu)
    return measured, eng.second_cpu(measured), eng.allowed_cpus(), eng.remote()


def _placements(asked: list[str] | None, cross: int | None) -> list[str]:
    placements = list(asked or catalogue.PLACEMENTS)
    if catalogue.UNPINNED in placements and cross is None:
        placements.remove(catalogue.UNPINNED)
        print("note: only one CPU is allowed: the unpinned placement is left out", file=sys.stderr)
    if not placements:
        raise UserError("nothing to run: the unpinned placement needs two CPUs, and only one is allowed")
    return placements


def _programs(eng: Engine, wanted: list[catalogue.Peer], host) -> tuple[dict, list[dict]]:
    """{key: (program, version)} of the peers present, and the absent ones
    with the one line that says why (on `host`'s PATH, the --host session,
    or here where None)."""
    present, absent = {}, []
    paths = launch.find(eng, sorted({p.tool for p in wanted if p.tool}))  # on the engine's machine
    versions: dict[tuple[str, ...], str] = {}  # perf and stress-ng serve two rows each: asked once
    for peer in wanted:
        if not peer.tool:  # ctxbench's own equivalent: the engine, started through its seam
            present[peer.key] = ("ctxbench-engine", f"ctxbench's engine: {eng.build()}")
            continue
        prog = paths[peer.tool]
        if prog is None:
            if host is None:
                how = f"Debian package {peer.package}: make peers" if peer.package else "an lmbench build on PATH"
                where = "PATH"
            else:  # the host's programs: make peers installs this machine's
                how = f"Debian package {peer.package} there" if peer.package else "an lmbench build on its PATH"
                where = f"{escaped(host.host.name)}'s PATH"
            absent.append({"peer": peer.key, "why": f"{peer.tool} is not on {where} ({how})"})
            continue
        argv = (prog, *peer.version_argv)
        if peer.version_argv and argv not in versions:
            versions[argv] = launch.version(eng, list(argv))
        present[peer.key] = (prog, versions.get(argv, "unknown"))
    return present, absent


def _absent_line(a: dict) -> str:
    """An absent peer and why: "lat_ctx: lat_ctx is not on PATH (...)"."""
    return f"{a['peer']}: {a['why']}"


def _rows(wanted: list[catalogue.Peer], asked: list[str], present: dict,
          absent: list[dict]) -> list[tuple[catalogue.Peer, str]]:
    """(peer, placement) of every peer present in every placement asked
    that it runs in; an absent peer costs a note, none at all the command."""
    rows = [(p, place) for p in wanted if p.key in present for place in asked if place in p.views]
    if not rows and present:
        runs = sorted({pl for p in wanted if p.key in present for pl in p.views})
        raise UserError(f"peers: {', '.join(present)} run(s) only {', '.join(runs)}"
                        f" (asked: {', '.join(asked)}): nothing to run")
    if not rows:  # one line that says why each is not here and how to get it (no note before it)
        raise UserError(f"peers: none of the peers asked for is here: {'; '.join(map(_absent_line, absent))}:"
                        " nothing to run")
    for a in absent:  # a row each, the others run
        print(f"note: {_absent_line(a)}", file=sys.stderr)
    return rows


def _measure(plan: Plan) -> Measured:
    got = Measured()
    prog = Progress(len(plan.rows) + plan.rounds * (1 + len(plan.rows)), label="peers ")
    _pilots(plan, got, prog)
    for r in range(plan.rounds):
        round_parts = _engine_round(plan, r, got, prog)
        _peers_round(plan, r, round_parts, got, prog)
    prog.close()
    return got


def _pilots(plan: Plan, got: Measured, prog: Progress) -> None:
    """Each row launched once, to size its launches."""
    for peer, place in plan.rows:
        prog.update(f"pilot: {peer.key} {place}")
        try:
            pilot = _one(plan.engine, peer, plan.present[peer.key][0], peer.pilot, place, plan.cpu, plan.allowed,
                         timeout_s=PILOT_TIMEOUT_S)
            count = got.counts[(peer.key, place)] = _sized(pilot, peer.pilot, plan.launch_s)
            got.pilots.append({"peer": peer.key, "placement": place, "count": peer.pilot, "wall_s": pilot["wall_s"],
                               "per_op_ns": pilot["per_op_ns"], "sized_count": count})
        except PEER_FAULTS as e:
            got.fail(peer, place, e)
        prog.step()


def _engine_round(plan: Plan, r: int, got: Measured, prog: Progress) -> dict:
    """ctxbench's ids, one engine run; the round's parts (peers/parts.py)."""
    prog.update(f"round {r + 1}/{plan.rounds}: ctxbench's ids")
    lost: list[dict] = []
    got.header, refs = run_ids(plan.engine, plan.ids, plan.opts, interleave=True, failures=lost)
    got.engine_failures += [f for f in lost if f["id"] not in {x["id"] for x in got.engine_failures}]
    got.engine_rounds.append(refs)
    prog.step()
    return parts.of_round(refs)


def _peers_round(plan: Plan, r: int, round_parts: dict, got: Measured, prog: Progress) -> None:
    """Every row not failed yet, once, in an order rotated from round to
    round: no peer always runs first."""
    order = plan.rows[r % len(plan.rows):] + plan.rows[:r % len(plan.rows)]
    for peer, place in order:
        prog.update(f"round {r + 1}/{plan.rounds}: {peer.key} {place}")
        if f"peers/{peer.key}/{place}" not in got.failed:
            count = got.counts[(peer.key, place)]
            try:
                launched = _one(plan.engine, peer, plan.present[peer.key][0], count, place, plan.cpu, plan.allowed,
                                timeout_s=max(PILOT_TIMEOUT_S, 20 * plan.launch_s))
                got.by_row.setdefault((peer.key, place), []).append(dict(launched, round=r, parts=round_parts))
            except PEER_FAULTS as e:
                got.fail(peer, place, e)
        prog.step()


def _one(eng: Engine, peer: catalogue.Peer, prog: str, count: int, placement: str, cpu: int,
         allowed: frozenset[int], timeout_s: float) -> dict:
    """One launch, parsed: the round's record of it (PeerFailed or
    PeerOutput when it went wrong). The engine's launcher leaves the
    measured CPU while a pinned peer runs there; an unpinned one runs on
    every CPU `allowed`."""
    if peer.engine_id:
        return _in_engine(eng, peer, count, cpu)
    argv = peer.argv(prog, count, cpu)
    cpus = tuple(sorted(allowed)) if placement == catalogue.UNPINNED else (cpu,)
    got = launch.run(eng, argv, cpus, timeout_s)
    p = peer.parse(got.output)
    expected = peer.ops(count)
    if expected is not None and p.ops != expected:
        raise parsers.PeerOutput(f"it says it timed {p.ops} operations where it was asked for {expected}")
    if p.ops and p.per_op_ns * p.ops / 1e9 > got.wall_s * len(cpus) + 0.05:
        raise parsers.PeerOutput(f"its number x its operations ({p.per_op_ns * p.ops / 1e9:.3g} s) is longer than "
                                 f"it ran ({got.wall_s:.3g} s)")
    for key, want in peer.says.items():
        if p.extra.get(key) != want:
            raise parsers.PeerOutput(f"it says {key} {escaped(str(p.extra.get(key)))}, where {want} was asked")
    # where an unpinned peer's tasks ran: each CPU's busy time over the launch (/proc/stat; analysis.py
    # judges a launch that kept one CPU busy and left the others idle a same-CPU one)
    return {"argv": got.argv, "cpus": list(cpus), "count": count, "per_op_ns": p.per_op_ns, "ops": p.ops,
            "wall_s": got.wall_s, "voluntary": got.voluntary, "involuntary": got.involuntary, "said": p.said,
            "extra": p.extra, "cpu_busy_s": list(got.cpu_busy_s)}


def _in_engine(eng: Engine, peer: catalogue.Peer, count: int, cpu: int) -> dict:
    """ctxbench's own equivalent of a peer (ctx-clock's method), measured by
    the engine through core/engine.py like any id: it pins itself, and it
    has no process tree of its own to count switches in (None)."""
    opts = EngineOptions(cpu=cpu, groups=1, iterations=5, n=count, warmup_ms=20)
    t0 = time.monotonic()
    try:
        _, got = run_ids(eng, [peer.engine_id], opts)
    except UserError as e:
        raise launch.PeerFailed(e.why)
    p = peer.parse(json.dumps({"results": [model.results.plain(r) for r in got]}))
    return {"argv": ["ctxbench-engine", "run", peer.engine_id, *opts.args()], "cpus": [cpu], "count": count,
            "per_op_ns": p.per_op_ns, "ops": p.ops, "wall_s": time.monotonic() - t0, "voluntary": None,
            "involuntary": None, "said": p.said, "extra": p.extra, "cpu_busy_s": [None]}


def _sized(pilot: dict, count: int, launch_s: float) -> int:
    """The count that makes a launch last about `launch_s`, from the pilot's
    own timed part (its number x its ops; its wall time where it says no ops)."""
    timed = pilot["per_op_ns"] * pilot["ops"] / 1e9 if pilot["ops"] else pilot["wall_s"]
    if not timed > 0:
        return count * MOST_COUNT_FACTOR
    return int(min(max(1.0, round(count * launch_s / timed)), count * MOST_COUNT_FACTOR))


def _merged(rounds: list[list[dict]], width: int) -> list[dict]:
    """One record per id from the rounds' engine results: samples appended
    in round order, round r's groups numbered after the rounds before."""
    merged: dict[str, dict] = {}
    for r, records in enumerate(rounds):
        for x in records:
            x = model.relabel_groups(x, lambda g, off=r * width: g + off)
            rid = model.Result(x).id
            merged[rid] = model.append_samples(merged[rid], x) if rid in merged else x
    return list(merged.values())


def _document(life: Lifecycle, plan: Plan, got: Measured, results: list[dict], failures: list[dict]):
    return life.document(got.header, results, {
        "preset": plan.knobs.preset, "cpu": plan.cpu, "cross_cpu": plan.cross, "rounds": plan.rounds,
        "launch_s": plan.launch_s, "peers": {k: {"program": v[0], "version": v[1]} for k, v in plan.present.items()},
        "absent": plan.absent, "pilots": got.pilots, "tolerance": analysis.AGREE, "engine_args": plan.opts.args()},
        **({"failures": failures} if failures else {}))


def _print_table(life: Lifecycle, plan: Plan, env, results: list[dict]) -> None:
    where = sys.stderr if life.out.fd == 1 else sys.stdout  # -o -: the document alone on standard output
    unpinned = catalogue.UNPINNED in plan.placements
    print(f"\nPeers beside ctxbench on {escaped(env.cpu_model or 'an unknown CPU')} (pinned: CPU {plan.cpu}"
          + (f"; unpinned: CPUs {','.join(map(str, sorted(plan.allowed)))}" if unpinned else "")
          + f"; {plan.rounds} round{'s' if plan.rounds != 1 else ''})", file=where)
    print(table.render(results), file=where)
