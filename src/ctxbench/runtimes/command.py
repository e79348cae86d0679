"""ctxbench runtimes: what a hand-off costs in the runtimes people write
(Go, Rust/tokio, Java virtual threads, Python, Node, C++ coroutines), each
measured by a small harness in its own language (runtimes/<runtime>/,
protocol: runtimes/PROTOCOL.md), side by side with ctxbench's own asm
switch and kernel-thread pipe measured by the engine in the same run.

Each harness runs twice: pinned (one CPU, the runtime limited to one
worker: a same-CPU hand-off) and default (two CPUs, the runtime's own
choices: possibly a cross-CPU wake-up). A runtime whose toolchain or
harness is missing costs one line, never the command."""
from __future__ import annotations

import os
import sys
from dataclasses import replace

from ctxbench.core import engine
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


def _cpus(args) -> tuple[int, int | None]:
    measured = args.cpu if args.cpu is not None else max(engine.ALLOWED)
    if args.cross_cpu is not None:
        if args.cross_cpu == measured:
            raise UserError(f"--cross-cpu {args.cross_cpu} is the measured CPU: the default placement "
                            "needs a second CPU")
        return measured, args.cross_cpu
    others = sorted(engine.ALLOWED - {measured})
    return measured, (others[-1] if others else None)


def _probe(cpu: int, notes: list[str]) -> dict | None:
    """The core-clock readings around a launch, or None (said once: the
    rows of a launch without them keep ns only)."""
    try:
        return probe.read(cpu)
    except UserError as e:
        if not notes:
            print(f"note: core-clock probe failed ({e}): the runtimes' rows it missed keep ns only", file=sys.stderr)
        notes.append(str(e))
        return None


def _launch(found: harness.Found, cmd: harness.Command, deadline_s: float, cpu: int, notes: list[str],
            wait_s: float):
    """One launch of a harness: its CPUs settled, the core-clock readings
    around a pinned one, the front end off the measured CPU while it runs
    where another CPU is allowed, and what others took of its CPUs
    (contention.Window). (header, results, skipped, before, after, window)."""
    pinned = cmd.placement == "pinned"
    home = os.sched_getaffinity(0)
    rest = tuple(sorted(set(home) - set(cmd.cpus)))
    # the measured CPU quiet first, and for a pinned launch the rest of the machine (a default launch runs on it)
    waited = contention.settle((cpu,), rest if pinned else (), most_s=wait_s) if wait_s > 0 else 0.0
    before = _probe(cpu, notes) if pinned else None  # the engine pins itself: run it with every CPU allowed
    if rest:
        os.sched_setaffinity(0, rest)
    try:
        window = contention.Window(tuple(cmd.cpus), front_end_there=not rest, rest=rest).start()
        head, got, skip = harness.run(found, cmd, deadline_s)
        window_rec = dict(window.stop(), settle_s=waited, quiet_before=wait_s == 0 or waited < wait_s)
    finally:
        os.sched_setaffinity(0, home)
    after = _probe(cpu, notes) if before else None
    return head, got, skip, before, after, window_rec


def _no_host(text: str):
    raise options.Bad("the runtimes' harnesses are built and run with this machine's toolchains (Go, Rust, Java, "
                      "Python, Node, C++), so they cannot run on another host: run ctxbench on that host")


def run(args) -> int:
    life = Lifecycle("runtimes", args.output, store=args.store)
    knobs = presets.apply(args, "runtimes")
    groups, iterations, min_us = knobs.groups, knobs.iterations, knobs.min_sample_us
    cpu, cross = _cpus(args)
    placements = list(args.placement or PLACEMENTS)
    if "default" in placements and cross is None:
        placements.remove("default")
        print("note: only one CPU is allowed: the default placement (two CPUs) is left out", file=sys.stderr)
    if not placements:
        raise UserError("nothing to measure: the default placement needs two CPUs, and only one is allowed")
    wanted = [rt for rt in harness.runtimes() if not args.runtime or rt.name in args.runtime]
    found_all = [harness.find(rt) for rt in wanted]
    present = [f for f in found_all if f.present]
    absent = [f for f in found_all if not f.present]
    for f in absent:
        print(f"note: {f.missing}", file=sys.stderr)
    if args.runtime and not present:  # only absent runtimes were asked for: nothing of theirs to measure
        raise UserError(f"runtimes: {', '.join(f.runtime.name for f in absent)} asked for, and not here "
                        "(see the note above): nothing to measure")

    # round after round, the engine's reference rows and then every
    # harness, a few groups each (runtimes/rounds.py says why)
    ref_ids = [i for i in references.ENGINE_IDS if "cross-cpu" not in i or cross is not None]
    per_round = rounds.split(groups, knobs.rounds)
    opts = EngineOptions(cpu=cpu, cross_cpu=cross, groups=groups, iterations=iterations, min_sample_us=min_us,
                         warmup_ms=knobs.warmup_ms_no_jit)  # C: no JIT
    prog = Progress(len(per_round) * (1 + len(present) * len(placements)), label="runtimes ")
    header: dict = {}
    engine_rounds, handoff_rounds = [], []
    measured: dict[tuple[str, str], list[list[dict]]] = {}
    versions, skipped, failures = {}, [], []
    probe_notes: list[str] = []
    relaunched: list[dict] = []
    steady: list[dict] = []  # disturbed launches not launched again: the wait before them gave up
    for r, width in enumerate(per_round):
        prog.update(f"round {r + 1}/{len(per_round)}: engine references")
        header, refs = run_ids(ref_ids, replace(opts, groups=width), interleave=True)
        engine_rounds.append(refs)
        handoff_rounds.append([x for x in map(references.handoff_record, refs) if x])
        prog.step()
        # spawn in the first round; memory too, and in one placement only
        # (what a parked thread holds is the runtime's, not where it runs;
        # parking 10^5 of them is most of a harness's time)
        first = harness.Settings(groups=width, iterations=iterations, min_sample_us=min_us,
                                 warmup_ms=knobs.warmup_ms, spawn=knobs.spawn if r == 0 else 0)
        for found in present:
            rt = found.runtime
            for place in placements:
                prog.update(f"round {r + 1}/{len(per_round)}: {rt.name} {place}")
                key = (rt.name, place)
                if key in {(f["runtime"], f["placement"]) for f in failures}:
                    prog.step()
                    continue
                cpus = (cpu,) if place == "pinned" else (cpu, cross)
                settings = replace(first, warmup_ms=knobs.warmup_ms if rt.jit else knobs.warmup_ms_no_jit)
                if r == 0 and place == placements[0]:
                    settings = replace(settings, park=knobs.park)
                try:
                    cmd = harness.command(found, place, cpus, rt.mechanisms, settings)
                    # a pinned launch others disturbed is launched again (runtimes/contention.py); a default
                    # one shares the other CPU with whatever else the machine runs, and is only counted. Not
                    # again when the CPUs never were quiet before it (the wait gave up): the load is steady,
                    # and another launch would wait as long and meet it again
                    tries = []
                    for _ in range(1 + (contention.RELAUNCHES if place == "pinned" else 0)):
                        tries.append(_launch(found, cmd, settings.deadline_s(len(rt.mechanisms)), cpu, probe_notes,
                                             args.quiet_wait))
                        if not contention.disturbed(tries[-1][-1]) or not tries[-1][-1]["quiet_before"]:
                            break
                except UserError as e:  # one runtime's failure costs its own rows
                    failures.append({"id": f"runtimes/{rt.name}/{place}", "runtime": rt.name, "placement": place,
                                     "error": str(e)})
                    measured.pop(key, None)
                    prog.step()
                    continue
                kept = min(range(len(tries)), key=lambda i: contention.score(tries[i][-1]))  # the least disturbed
                head, got, skip, before, after, window = tries[kept]
                last = tries[-1][-1]
                if place == "pinned" and contention.disturbed(last) and not last["quiet_before"] \
                        and len(tries) <= contention.RELAUNCHES:
                    steady.append({"runtime": rt.name, "placement": place, "round": r + 1,
                                   "settle_s": last["settle_s"], "others_share": last.get("others_share"),
                                   "machine_share": last.get("machine_share")})
                if len(tries) > 1:
                    relaunched.append({"runtime": rt.name, "placement": place, "round": r + 1, "kept": kept,
                                       "others_share": [t[-1].get("others_share") for t in tries],
                                       "machine_share": [t[-1].get("machine_share") for t in tries]})
                versions[rt.name] = dict(head.get("runtime") or {}, toolchain=found.version)
                got = [dict(raw, params=dict(Result(raw).params.items(),
                                             version=versions[rt.name].get("version") or found.version,
                                             flags=versions[rt.name].get("flags") or {}, cpus=list(cpus),
                                             others_share=window.get("others_share"),
                                             machine_share=window.get("machine_share"), launches_tried=len(tries)))
                       for raw in probe.attach(got, before, after)]
                measured.setdefault(key, [[] for _ in per_round])[r] = got
                if r == 0:
                    skipped += [dict(s, runtime=rt.name, placement=place) for s in skip]
                prog.step()
    prog.close()
    results = [analysis.row_of(x) for x in rounds.merge(handoff_rounds, per_round)]
    for by_round in measured.values():
        results += [analysis.row_of(x) for x in rounds.merge(by_round, per_round)]
    results += [model.analyse(x) for x in rounds.merge(engine_rounds, per_round)]

    env = model.Document(header).environment
    extra = {"failures": failures} if failures else {}
    if probe_notes:
        extra["clock_probe_failures"] = probe_notes
    doc = life.document(header, results, {
        "preset": knobs.preset, "placements": placements, "cpu": cpu, "cross_cpu": cross, "runtimes": versions,
        "absent": [{"runtime": f.runtime.name, "why": f.missing} for f in absent], "skipped": skipped,
        "rounds": len(per_round), "groups_per_round": per_round, "clock_probe": probe.WHERE,
        "user_level_below": analysis.USER_LEVEL_BELOW, "engine_args": opts.args()},
        contention={"quiet": contention.QUIET, "machine_quiet": contention.MACHINE_QUIET,
                    "relaunches": contention.RELAUNCHES, "relaunched": relaunched, "quiet_wait_s": args.quiet_wait,
                    # disturbed, not launched again: the CPUs were never quiet before (contention.py)
                    "not_relaunched_steady_load": steady,
                    "method": "others' share of a launch's CPUs (others_share) and of the machine's other "
                              "allowed CPUs (machine_share): busy time (/proc/stat) less the harness's and the "
                              "front end's CPU time, over wall time x CPUs"}, **extra)
    life.write(doc)
    cpu_model = env.cpu_model or "unknown CPU"
    print(f"\nHand-offs by runtime on {cpu_model} (measured CPU {cpu}"
          + (f", second CPU {cross}" if cross is not None else "") + ")")
    print(table.render(results))
    for s in skipped:
        print(f"note: {s['runtime']} {s.get('skipped')} ({s['placement']}): {s.get('why')}")
    if args.plot:  # matplotlib only when figures are asked for (start-up time)
        from ctxbench.runtimes import figures
        life.figures(args.plot, [(figures.NAME, figures.figure(results, env))])
    life.finish()
    life.failed(failures, len(present) * len(placements))
    return 0
