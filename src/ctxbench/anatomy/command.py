"""ctxbench anatomy: where the nanoseconds of one switch go (issue 12).

One interleaved engine run on one CPU measures a ladder of configurations
that differ in one thing each (ladder.py); each difference is a part of the
switch with its 95% interval and MDE (analysis.py). Rungs this machine
cannot run (a prctl the kernel refuses, no writable cgroup hierarchy, one
CPU) are found first by a short probe each and listed with the reason; the
rest runs. Where perf events allow, the thread rung is also sampled by the
cpu-clock event and its time attributed to kernel functions
(attribution.py), beside the unsampled rung that measures the sampling's
own cost."""
from __future__ import annotations

import sys

from ctxbench.anatomy import analysis, ladder
from ctxbench.core import checks
from ctxbench.core import model
from ctxbench.core.errors import UserError
from ctxbench.core.engine import Engine
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.core.model import Result
from ctxbench.ui import options, presets
from ctxbench.lifecycle import Lifecycle
from ctxbench.ui.format import fmt_effect, fmt_time
from ctxbench.ui.progress import Progress

# Before each group, a window this long in which nothing else ran on the CPU
# (engine --settle-us): the previous rung's exiting parties are not measured.
SETTLE_US = 500
WARMUP_MS = 200


def add_parser(sub):
    p = sub.add_parser("anatomy", help="where the time of one switch goes: a ladder of configurations, with figure",
                       description="Measure, in one interleaved run on one CPU, configurations that differ in one "
                                   "thing each (system calls, thread switch, address space, vector state, "
                                   "scheduling class, mitigations, cgroups) and report each difference as a part "
                                   "of the switch, with its 95% interval.")
    p.add_argument("--mechanism", choices=ladder.MECHANISMS, default="pipe",
                   help="how the parties hand off (default pipe)")
    p.add_argument("--rungs", type=options.choice_list(ladder.DEFAULT), metavar="R,...",
                   help=f"rungs to measure (default: all; known: {', '.join(ladder.DEFAULT)}); "
                        "syscall, thread and process are always measured")
    p.add_argument("--test-rung", action="store_true", help="(tests) add the known-answer rung")
    options.add_output(p)
    options.add_plot(p, "the waterfall figure (anatomy)")
    options.add_cpu(p, "CPU the parties run on")
    options.add_host(p)
    presets.add_flags(p, "anatomy")
    options.add_samples(p, "anatomy")
    p.set_defaults(func=run)


def _wanted(args) -> list[ladder.Rung]:
    names = set(args.rungs or ladder.DEFAULT) | {"syscall", "thread", "process"}
    if "cgroup-split" in names or "cgroup-same" in names:
        names |= {"cgroup-split", "cgroup-same"}  # one part needs both
    if args.test_rung:
        if args.mechanism != "pipe":
            raise UserError("--test-rung: the known-answer rung is a pipe ping-pong; use it with --mechanism pipe")
        names.add("test-busy")
    return [r for r in ladder.RUNGS if r.name in names]


def _probe(eng: Engine, rung: ladder.Rung, eid: str, cpu: int | None) -> str | None:
    """None if the rung runs here, else the engine's one-line reason."""
    opts = EngineOptions(cpu=cpu, groups=1, iterations=1, min_sample_us=100, warmup_ms=0)
    try:
        eng.stream([eid], opts, lambda h: None, lambda r: None)
    except UserError as e:
        return str(e).removeprefix(f"{eid}: ")
    return None


def run(args) -> int:
    life = Lifecycle("anatomy", args.output, store=args.store, engine=args.engine)
    knobs = presets.apply(args, "anatomy")
    m = args.mechanism
    known = {b["id"] for b in args.engine.list_benchmarks(all_=True)}
    skipped: list[dict] = []
    rungs: list[ladder.Rung] = []
    for r in _wanted(args):
        eid = r.engine_id(m)
        if eid not in known:
            skipped.append({"rung": r.name, "id": eid, "reason": "not in this engine build"})
        elif r.optional and (why := _probe(args.engine, r, eid, args.cpu)):
            skipped.append({"rung": r.name, "id": eid, "reason": why if "not available" in why
                            else f"not available here: {why}"})
        else:
            rungs.append(r)
    for s in skipped:
        print(f"  skipped {s['rung']}: {s['reason']}", file=sys.stderr)
    if not {"syscall", "thread", "process"} <= {r.name for r in rungs}:
        raise UserError("the ladder's base rungs (syscall, thread, process) cannot run here: "
                        + "; ".join(s["reason"] for s in skipped), code=1)

    ids = [r.engine_id(m) for r in rungs]
    opts = EngineOptions(cpu=args.cpu, groups=knobs.groups, iterations=knobs.iterations,
                         min_sample_us=knobs.min_sample_us, warmup_ms=WARMUP_MS, extra=["--settle-us", str(SETTLE_US)])
    prog = Progress(len(ids) * (opts.groups + 1), label="anatomy ")
    try:
        header, res = run_ids(args.engine, ids, opts, prog, interleave=True)
    finally:
        prog.close()
    res, drift = model.apply_drift(res)
    by_rung = analysis.measured_rungs(res, m)
    if "profiled" in by_rung:  # names now: the addresses move with every boot
        from ctxbench.anatomy import attribution
        profiled = by_rung["profiled"]
        by_rung["profiled"] = model.with_members(profiled, profile=attribution.named_chains(Result(profiled).profile,
                                                                                           engine=args.engine))
        res = [by_rung["profiled"] if r is profiled else r for r in res]
    anatomy = analysis.anatomy(by_rung, skipped, m)
    env = model.Document(header).environment
    flags = env.cpu_flags
    anatomy["pcid"] = ("pcid" in flags) if isinstance(flags, list) else None  # x86: lets switch_mm keep the TLB

    findings = checks.environment_findings(env, cpus=sorted({Result(r).params.cpu for r in res} - {None}))
    for r in res:
        findings += checks.result_findings(r)
    doc = life.document(header, res, {"command": "anatomy", "preset": knobs.preset, "mechanism": m,
                                      "rungs": [{"name": r.name, "id": r.engine_id(m), "what": r.what}
                                                for r in rungs],
                                      "engine_args": opts.args(), "order": "interleaved by group",
                                      "drift": drift, **anatomy},
                        checks=[f.as_dict() for f in findings])
    life.write(doc)
    if args.plot:  # matplotlib only when asked (start-up time)
        from ctxbench.anatomy import figures as anatomy_figures
        life.figures(args.plot, [("anatomy", anatomy_figures.waterfall(anatomy, env))])
    print(render(anatomy, res))
    life.finish()
    return 0


def render(a: dict, res: list[dict]) -> str:
    """The table: each part with its interval, the sum check, the cross-CPU
    wake-up apart, and what was not measured."""
    lines = [f"{'part of one hand-off':<40} {'estimate [95% CI] (or below its MDE)':<52} measured as"]
    for p in analysis.shown_parts(a):
        mark = "  " if p["chain"] else "+ "
        lines.append(f"{mark}{p['name']:<38} {fmt_effect(p):<52} {analysis.measured_as(p, a.get('pcid'))}")
    sc = a.get("sum_check")
    if sc:
        t = sc["total"]
        lo, hi = t["ci95"]
        lines.append(f"  {'= measured hand-off (' + t['id'] + ')':<38} {fmt_time(t['estimate_ns'])} "
                     f"[{fmt_time(lo)}, {fmt_time(hi)}]")
        verdict = ("the parts add up (their sum is inside the total's interval)" if sc["within_total_interval"]
                   else "the parts do not add up: the gap is shown")
        lines.append(f"  sum of the chain's parts {fmt_time(sc['parts_sum_ns'])}: {verdict}; "
                     f"not attributed {fmt_effect(sc['gap'])}")
    lines.append("  (lines marked + are what one more property adds to its reference, off the chain)")
    x = a.get("cross_cpu")
    if x:
        lines.append(f"Cross-CPU, a different quantity: {x['quantity']}: {analysis.cross_cpu_cell(x)} ({x['id']})")
    at = a.get("attribution")
    if at:
        lines.append(render_attribution(at))
    for s in a.get("not_available") or []:
        lines.append(f"not measured: {s['rung']}: {s['reason']}")
    failed = [f"{v.id}: {v.verified[0]}" for v in map(Result, res) if v.verified[1]]
    for f in failed:
        lines.append(f"  warning: {f}")
    return "\n".join(lines)


def render_attribution(at: dict) -> str:
    if at.get("error"):
        return f"In-kernel attribution: not available: {at['error']}"
    scope = "the measured CPU sampled as a whole" if at.get("scope") == "cpu" else \
        "each party sampled (the switch path between their events is not seen)"
    lines = [f"In-kernel attribution of the thread hand-off ({fmt_time(at['handoff_ns'])} measured with sampling on; "
             f"{at.get('samples', 0)} cpu-clock samples every {fmt_time(at['period_ns'])}, {scope}):"]
    for g in at.get("groups") or []:
        lo, hi = g.get("ns_ci95") or [float("nan")] * 2
        lines.append(f"  {g['group']:<26} {g['share']:6.1%}  {fmt_time(g['ns']):>9} [{fmt_time(lo)}, {fmt_time(hi)}]")
    cov = at.get("coverage")
    if cov is not None:
        lines.append(f"  sum check: the samples cover {cov:.1%} of the switching windows' time "
                     f"(not sampled: {fmt_time(at['not_sampled_ns'])} per hand-off)"
                     + (f"; {at['lost']} records lost" if at.get("lost") else ""))
    top = ", ".join(f"{t['function']} {t['share']:.0%}" for t in (at.get("top_functions") or [])[:5])
    if top:
        lines.append(f"  top functions (leaf): {top}")
    pert = at.get("perturbation")
    if pert:
        lines.append(f"  the sampling's own cost (profiled - plain thread rung): {fmt_effect(pert)} per switch")
    return "\n".join(lines)
