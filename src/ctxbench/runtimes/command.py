"""ctxbench runtimes: what a hand-off costs in the runtimes people write
(Go, Rust/tokio, Java virtual threads, Python, Node, C++ coroutines), each
measured by a small harness in its own language (runtimes/<runtime>/,
protocol: runtimes/PROTOCOL.md), side by side with ctxbench's own asm
switch and kernel-thread pipe measured by the engine in the same run.

Each harness runs twice: pinned (one CPU, the runtime limited to one
worker: a same-CPU hand-off) and default (two CPUs, the runtime's own
choices: possibly a cross-CPU wake-up). A runtime whose toolchain or
harness is missing costs one line, never the command.

The steps (run): the plan (what to measure, on which CPUs), the rounds
(the engine's reference rows, then every harness's launches), the rows
merged over the rounds, the document, the table."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from types import SimpleNamespace

from ctxbench.core.engine import Engine
from ctxbench.core.errors import UserError
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.core import model
from ctxbench.core.model import Result
from ctxbench.lifecycle import Lifecycle
from ctxbench.runtimes import analysis, contention, harness, probe, references, rounds, table
from ctxbench.ui import options, presets
from ctxbench.ui.progress import Progress

PLACEMENTS = ("pinned", "default")


def add_parser(sub):
    p = sub.add_parser("runtimes", help="hand-off cost in Go, Rust, Java, Python, Node, C++ vs kernel threads",
                       description="Measure a hand-off (two parties passing control back and forth) in each "
                                   "language runtime present, pinned and default, with the kernel switches "
                                   "per hand-off, spawn cost and memory per lightweight thread, beside "
                                   "ctxbench's own asm switch and kernel-thread pipe.")
    names = [rt.name for rt in harness.runtimes()]
    p.add_argument("--runtime", type=options.choice_list(tuple(names)), metavar="R,...",
                   help=f"runtimes to measure (default: every one present; known: {', '.join(names)})")
    p.add_argument("--placement", type=options.choice_list(PLACEMENTS), metavar="P,...",
                   help="pinned (one CPU, one worker), default (two CPUs), or both (default)")
    presets.add_flags(p, "runtimes")
    options.add_cpu(p, "the measured CPU (pinned rows run there)")
    p.add_argument("--host", type=_no_host, metavar="[USER@]HOST[:PORT]",
                   help="not taken: the harnesses are built and run with this machine's toolchains")
    p.add_argument("--cross-cpu", type=options.cpu, metavar="M",
                   help="the second CPU of the default placement (default: another allowed CPU)")
    p.add_argument("--quiet-wait", type=options.real(0, 600), metavar="S", default=contention.SETTLE_MOST_S,
                   help="the most to wait before each launch for its CPUs to be quiet, in seconds; a pinned launch "
                        "others disturbed is launched again only if they were (0: no wait, and a disturbed launch "
                        f"is launched again; default {contention.SETTLE_MOST_S:g})")
    options.add_output(p)
    options.add_plot(p, "the figure (runtimes)")
    p.set_defaults(func=run)


def _no_host(text: str):
    raise options.Bad("the runtimes' harnesses are built and run with this machine's toolchains (Go, Rust, Java, "
                      "Python, Node, C++), so they cannot run on another host: run ctxbench on that host")


@dataclass(frozen=True)
class Plan:
    """What a run measures, decided before anything is launched."""
    knobs: SimpleNamespace              # the preset's settings, flags applied
    cpu: int                            # the measured CPU
    cross: int | None                   # the default placement's second CPU
    placements: list[str]
    present: list[harness.Found]        # the runtimes measured
    absent: list[harness.Found]
    per_round: list[int]                # each round's groups
    ref_ids: list[str]                  # the engine's reference rows
    opts: EngineOptions                 # the engine's options for them
    quiet_wait: float                   # --quiet-wait
    engine: Engine                      # the command's engine context (args.engine)


@dataclass
class Measured:
    """What the rounds gathered, added to round by round."""
    header: dict = field(default_factory=dict)
    engine_rounds: list[list[dict]] = field(default_factory=list)
    handoff_rounds: list[list[dict]] = field(default_factory=list)
    by_launch: dict[tuple[str, str], list[list[dict]]] = field(default_factory=dict)  # (runtime, placement)
    versions: dict[str, dict] = field(default_factory=dict)
    skipped: list[dict] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)
    probe_notes: list[str] = field(default_factory=list)
    relaunched: list[dict] = field(default_factory=list)
    steady: list[dict] = field(default_factory=list)  # disturbed launches not launched again: the wait gave up

    def failed(self, runtime: str, placement: str) -> bool:
        return any(f["runtime"] == runtime and f["placement"] == placement for f in self.failures)


def run(args) -> int:
    life = Lifecycle("runtimes", args.output, store=args.store, engine=args.engine)
    plan = _plan(args)
    got = _measure(plan)
    results = _rows(plan, got)
    env = model.Document(got.header).environment
    life.write(_document(life, plan, got, results))
    _print_table(plan, env, results, got.skipped)
    if args.plot:  # matplotlib only when figures are asked for (start-up time)
        from ctxbench.runtimes import figures
        life.figures(args.plot, [(figures.NAME, figures.figure(results, env))])
    life.finish()
    life.failed(got.failures, len(plan.present) * len(plan.placements))
    return 0


def _plan(args) -> Plan:
    knobs = presets.apply(args, "runtimes")
    cpu, cross = _cpus(args)
    placements = _placements(args.placement, cross)
    present, absent = _harnesses(args.runtime)
    # round after round, the engine's reference rows and then every
    # harness, a few groups each (runtimes/rounds.py says why)
    ref_ids = [i for i in references.ENGINE_IDS if "cross-cpu" not in i or cross is not None]
    opts = EngineOptions(cpu=cpu, cross_cpu=cross, groups=knobs.groups, iterations=knobs.iterations,
                         min_sample_us=knobs.min_sample_us, warmup_ms=knobs.warmup_ms_no_jit)  # C: no JIT
    return Plan(knobs, cpu, cross, placements, present, absent, rounds.split(knobs.groups, knobs.rounds),
                ref_ids, opts, args.quiet_wait, args.engine)


def _cpus(args) -> tuple[int, int | None]:
    """The measured CPU and the default placement's second one: the one
    step that reads the engine's CPUs."""
    measured = args.engine.measured_cpu(args.cpu)
    if args.cross_cpu is not None:
        if args.cross_cpu == measured:
            raise UserError(f"--cross-cpu {args.cross_cpu} is the measured CPU: the default placement "
                            "needs a second CPU")
        return measured, args.cross_cpu
    return measured, args.engine.second_cpu(measured)


def _placements(asked: list[str] | None, cross: int | None) -> list[str]:
    placements = list(asked or PLACEMENTS)
    if "default" in placements and cross is None:
        placements.remove("default")
        print("note: only one CPU is allowed: the default placement (two CPUs) is left out", file=sys.stderr)
    if not placements:
        raise UserError("nothing to measure: the default placement needs two CPUs, and only one is allowed")
    return placements


def _harnesses(asked: list[str] | None) -> tuple[list[harness.Found], list[harness.Found]]:
    """The runtimes asked for that are here, and those that are not (a note
    each)."""
    found_all = [harness.find(rt) for rt in harness.runtimes() if not asked or rt.name in asked]
    present = [f for f in found_all if f.present]
    absent = [f for f in found_all if not f.present]
    for f in absent:
        print(f"note: {f.missing}", file=sys.stderr)
    if asked and not present:  # only absent runtimes were asked for: nothing of theirs to measure
        raise UserError(f"runtimes: {', '.join(f.runtime.name for f in absent)} asked for, and not here "
                        "(see the note above): nothing to measure")
    return present, absent


def _measure(plan: Plan) -> Measured:
    got = Measured()
    prog = Progress(len(plan.per_round) * (1 + len(plan.present) * len(plan.placements)), label="runtimes ")
    for r, width in enumerate(plan.per_round):
        _engine_round(plan, r, width, got, prog)
        _harness_round(plan, r, width, got, prog)
    prog.close()
    return got


def _engine_round(plan: Plan, r: int, width: int, got: Measured, prog: Progress) -> None:
    prog.update(f"round {r + 1}/{len(plan.per_round)}: engine references")
    got.header, refs = run_ids(plan.engine, plan.ref_ids, replace(plan.opts, groups=width), interleave=True)
    got.engine_rounds.append(refs)
    got.handoff_rounds.append([x for x in map(references.handoff_record, refs) if x])
    prog.step()


def _harness_round(plan: Plan, r: int, width: int, got: Measured, prog: Progress) -> None:
    """Every runtime present in every placement, once; one that failed in an
    earlier round is not launched again."""
    # spawn in the first round; memory too, and in one placement only
    # (what a parked thread holds is the runtime's, not where it runs;
    # parking 10^5 of them is most of a harness's time)
    k = plan.knobs
    first = harness.Settings(groups=width, iterations=k.iterations, min_sample_us=k.min_sample_us,
                             warmup_ms=k.warmup_ms, spawn=k.spawn if r == 0 else 0)
    for found in plan.present:
        for place in plan.placements:
            prog.update(f"round {r + 1}/{len(plan.per_round)}: {found.runtime.name} {place}")
            if not got.failed(found.runtime.name, place):
                _harness_launches(plan, r, found, place, first, got)
            prog.step()


def _harness_launches(plan: Plan, r: int, found: harness.Found, place: str, first: harness.Settings,
                      got: Measured) -> None:
    """One runtime in one placement in round r: its launches, and the least
    disturbed one kept; its failure costs its own rows."""
    rt = found.runtime
    cpus = (plan.cpu,) if place == "pinned" else (plan.cpu, plan.cross)
    settings = replace(first, warmup_ms=plan.knobs.warmup_ms if rt.jit else plan.knobs.warmup_ms_no_jit)
    if r == 0 and place == plan.placements[0]:
        settings = replace(settings, park=plan.knobs.park)
    try:
        cmd = harness.command(found, place, cpus, rt.mechanisms, settings)
        tries = _tries(found, cmd, place, settings.deadline_s(len(rt.mechanisms)), plan, got.probe_notes)
    except UserError as e:  # one runtime's failure costs its own rows
        got.failures.append({"id": f"runtimes/{rt.name}/{place}", "runtime": rt.name, "placement": place,
                             "error": str(e)})
        got.by_launch.pop((rt.name, place), None)
        return
    _keep(plan, r, found, place, cpus, tries, got)


def _tries(found: harness.Found, cmd: harness.Command, place: str, deadline_s: float, plan: Plan,
           notes: list[str]) -> list[tuple]:
    """A pinned launch others disturbed is launched again (runtimes/
    contention.py); a default one shares the other CPU with whatever else
    the machine runs, and is only counted. Not again when the CPUs never
    were quiet before it (the wait gave up): the load is steady, and
    another launch would wait as long and meet it again."""
    tries = []
    for _ in range(1 + (contention.RELAUNCHES if place == "pinned" else 0)):
        tries.append(_launch(plan.engine, found, cmd, deadline_s, plan.cpu, notes, plan.quiet_wait))
        if not contention.disturbed(tries[-1][-1]) or not tries[-1][-1]["quiet_before"]:
            break
    return tries


def _launch(eng: Engine, found: harness.Found, cmd: harness.Command, deadline_s: float, cpu: int,
            notes: list[str], wait_s: float):
    """One launch of a harness: its CPUs settled, the core-clock readings
    around a pinned one, the front end off the measured CPU while it runs
    where another CPU is allowed, and what others took of its CPUs
    (contention.Window). (header, results, skipped, before, after, window)."""
    pinned = cmd.placement == "pinned"
    home = os.sched_getaffinity(0)
    rest = tuple(sorted(set(home) - set(cmd.cpus)))
    # the measured CPU quiet first, and for a pinned launch the rest of the machine (a default launch runs on it)
    waited = contention.settle((cpu,), rest if pinned else (), most_s=wait_s) if wait_s > 0 else 0.0
    before = _probe(eng, cpu, notes) if pinned else None  # the engine pins itself: run it with every CPU allowed
    if rest:
        os.sched_setaffinity(0, rest)
    try:
        window = contention.Window(tuple(cmd.cpus), front_end_there=not rest, rest=rest).start()
        head, got, skip = harness.run(found, cmd, deadline_s)
        window_rec = dict(window.stop(), settle_s=waited, quiet_before=wait_s == 0 or waited < wait_s)
    finally:
        os.sched_setaffinity(0, home)
    after = _probe(eng, cpu, notes) if before else None
    return head, got, skip, before, after, window_rec


def _probe(eng: Engine, cpu: int, notes: list[str]) -> dict | None:
    """The core-clock readings around a launch, or None (said once: the
    rows of a launch without them keep ns only)."""
    try:
        return probe.read(eng, cpu)
    except UserError as e:
        if not notes:
            print(f"note: core-clock probe failed ({e}): the runtimes' rows it missed keep ns only", file=sys.stderr)
        notes.append(str(e))
        return None


def _keep(plan: Plan, r: int, found: harness.Found, place: str, cpus: tuple, tries: list[tuple],
          got: Measured) -> None:
    """The least disturbed launch's records, each with its runtime's version,
    its CPUs and what others took of them; the launches tried listed."""
    rt = found.runtime
    kept = min(range(len(tries)), key=lambda i: contention.score(tries[i][-1]))
    head, records, skip, before, after, window = tries[kept]
    _note_launches(r, rt.name, place, tries, kept, got)
    version = got.versions[rt.name] = dict(head.get("runtime") or {}, toolchain=found.version)
    records = [dict(raw, params=dict(Result(raw).params.items(), version=version.get("version") or found.version,
                                     flags=version.get("flags") or {}, cpus=list(cpus),
                                     others_share=window.get("others_share"),
                                     machine_share=window.get("machine_share"), launches_tried=len(tries)))
               for raw in probe.attach(records, before, after)]
    got.by_launch.setdefault((rt.name, place), [[] for _ in plan.per_round])[r] = records
    if r == 0:
        got.skipped += [dict(s, runtime=rt.name, placement=place) for s in skip]


def _note_launches(r: int, name: str, place: str, tries: list[tuple], kept: int, got: Measured) -> None:
    """A launch launched again, and a disturbed pinned one that was not (the
    wait before it gave up: steady load)."""
    last = tries[-1][-1]
    if place == "pinned" and contention.disturbed(last) and not last["quiet_before"] \
            and len(tries) <= contention.RELAUNCHES:
        got.steady.append({"runtime": name, "placement": place, "round": r + 1, "settle_s": last["settle_s"],
                           "others_share": last.get("others_share"), "machine_share": last.get("machine_share")})
    if len(tries) > 1:
        got.relaunched.append({"runtime": name, "placement": place, "round": r + 1, "kept": kept,
                               "others_share": [t[-1].get("others_share") for t in tries],
                               "machine_share": [t[-1].get("machine_share") for t in tries]})


def _rows(plan: Plan, got: Measured) -> list[dict]:
    """The rounds merged and analysed: the engine's hand-offs, every
    runtime's rows, the engine's own ids."""
    results = [analysis.row_of(x) for x in rounds.merge(got.handoff_rounds, plan.per_round)]
    for by_round in got.by_launch.values():
        results += [analysis.row_of(x) for x in rounds.merge(by_round, plan.per_round)]
    return results + [model.analyse(x) for x in rounds.merge(got.engine_rounds, plan.per_round)]


def _document(life: Lifecycle, plan: Plan, got: Measured, results: list[dict]):
    extra = {"failures": got.failures} if got.failures else {}
    if got.probe_notes:
        extra["clock_probe_failures"] = got.probe_notes
    return life.document(got.header, results, {
        "preset": plan.knobs.preset, "placements": plan.placements, "cpu": plan.cpu, "cross_cpu": plan.cross,
        "runtimes": got.versions, "absent": [{"runtime": f.runtime.name, "why": f.missing} for f in plan.absent],
        "skipped": got.skipped, "rounds": len(plan.per_round), "groups_per_round": plan.per_round,
        "clock_probe": probe.WHERE, "user_level_below": analysis.USER_LEVEL_BELOW, "engine_args": plan.opts.args()},
        contention={"quiet": contention.QUIET, "machine_quiet": contention.MACHINE_QUIET,
                    "relaunches": contention.RELAUNCHES, "relaunched": got.relaunched,
                    "quiet_wait_s": plan.quiet_wait,
                    # disturbed, not launched again: the CPUs were never quiet before (contention.py)
                    "not_relaunched_steady_load": got.steady,
                    "method": "others' share of a launch's CPUs (others_share) and of the machine's other "
                              "allowed CPUs (machine_share): busy time (/proc/stat) less the harness's and the "
                              "front end's CPU time, over wall time x CPUs"}, **extra)


def _print_table(plan: Plan, env, results: list[dict], skipped: list[dict]) -> None:
    print(f"\nHand-offs by runtime on {env.cpu_model or 'unknown CPU'} (measured CPU {plan.cpu}"
          + (f", second CPU {plan.cross}" if plan.cross is not None else "") + ")")
    print(table.render(results))
    for s in skipped:
        print(f"note: {s['runtime']} {s.get('skipped')} ({s['placement']}): {s.get('why')}")
