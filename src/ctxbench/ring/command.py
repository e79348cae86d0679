"""ctxbench ring: cost per switch as the number of parties and their
footprint grow (docs/method.md#rings; Heiser 2009).

One engine run measures every (kind, mechanism, parties, footprint) point
and the two-party ping-pong of each kind x mechanism, interleaved group by
group (round g = group g of every job, in an order drawn per round), so
that every point's samples span the whole run: a host that drifts over
minutes moves every point alike instead of the points measured in its slow
minute. Each point's interval is made to hold another run's median: its
rounds, the common drift and its own drift (model.apply_next_run). Each group starts from a quiet CPU (engine --settle-us: the previous
group's parties reaped, then a window in which nothing else ran on the
CPU), and the wait is recorded. The N = 2 ring must equal the ping-pong."""
from __future__ import annotations

import math

from ctxbench.core import checks
from ctxbench.core import model
from ctxbench.core.model import Result
from ctxbench.core import memory
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.ring import analysis
from ctxbench.ui.format import fmt_time
from ctxbench.ui.twin import fmt_cyc
from ctxbench.ui import options, presets
from ctxbench.lifecycle import Lifecycle
from ctxbench.ui.progress import Progress

MIN_PARTIES, MAX_PARTIES = 2, 1024
KINDS = ("thread", "process")
MECHANISMS = ("pipe", "futex")
# Before each group: a window this long in which nothing else ran on the CPU
# (engine --settle-us; bounded by 50 windows): the previous group's exiting
# parties and the kernel work they leave run before the group, not in it.
SETTLE_US = 1000


def add_parser(sub):
    p = sub.add_parser("ring", help="cost per switch in a ring of N parties with a footprint each",
                       description="N parties pinned to one CPU pass a token round a ring, each touching "
                                   "its own footprint while it holds it; cost per hand-off vs N and footprint.")
    p.add_argument("--parties", metavar="N,...", type=_parties,
                   help=presets.flag_help("ring", "parties", f"parties in the ring, {MIN_PARTIES} to {MAX_PARTIES}"))
    p.add_argument("--footprint", metavar="K,...", type=_footprints,
                   help=presets.flag_help("ring", "footprint", "bytes per party, K/M suffixes, at most 1G"))
    p.add_argument("--kind", default=",".join(KINDS), metavar="K,...", type=options.choice_list(KINDS),
                   help=f"default {','.join(KINDS)}")
    p.add_argument("--mechanism", default=",".join(MECHANISMS), metavar="M,...", type=options.choice_list(MECHANISMS),
                   help=f"default {','.join(MECHANISMS)}")
    options.add_output(p)
    options.add_plot(p, "the figure (ring)")
    options.add_cpu(p, "CPU the ring runs on")
    options.add_host(p)
    presets.add_flags(p, "ring")
    options.add_samples(p, "ring")
    p.set_defaults(func=run)


def _parties(text: str) -> list[int]:
    return options.int_list(text, MIN_PARTIES, MAX_PARTIES)


def _footprints(text: str) -> list[int]:
    out = []
    for x in (t for t in text.split(",") if t.strip()):
        v = options.size(x)
        if v > 1 << 30:
            raise options.Bad(f"'{x}' is larger than 1G")
        if v not in out:
            out.append(v)
    if not out:
        raise options.Bad("empty list")
    return out


def run(args) -> int:
    life = Lifecycle("ring", args.output, store=args.store, engine=args.engine)
    knobs = presets.apply(args, "ring")
    parties, foots, kinds, mechs = knobs.parties, knobs.footprint, args.kind, args.mechanism
    ids = [f"ring/{k}/{m}" for k in kinds for m in mechs]
    refs = [analysis.pingpong_id(k, m) for k in kinds for m in mechs]
    points = [(n, k) for n in parties for k in foots]
    # every party holds its footprint, locked; the thread ring's all in one process
    memory.check([memory.Need(n * k, n * k if kind == "thread" else k, f"{kind} ring of {n} parties x {memory.gib(k)}")
                  for n, k in points for kind in kinds], "ring", "lower --footprint or --parties",
                 eng=args.engine)
    opts = EngineOptions(cpu=args.cpu, groups=knobs.groups, iterations=knobs.iterations,
                         min_sample_us=knobs.min_sample_us, warmup_ms=100,
                         extra=["--ring-points", ",".join(f"{n}:{k}" for n, k in points),
                                "--settle-us", str(SETTLE_US)])
    prog = Progress((len(points) * len(ids) + len(refs)) * (opts.groups + 1), label="ring ")
    failures: list[dict] = []  # ids the engine could not measure: the others are kept
    try:
        header, res = run_ids(args.engine, ids + refs, opts, prog, interleave=True, failures=failures)
    finally:
        prog.close()
    res, drift = model.apply_next_run(res)  # intervals that hold another run's median (stats/drift.py)
    res, n2 = analysis.derived(res)  # each point's cost above the ping-pong, the N = 2 checks
    settle = analysis.settle_record(res)

    env = model.Document(header).environment
    findings = checks.environment_findings(env, cpus=sorted({Result(r).params.cpu for r in res} - {None}))
    for r in res:
        findings += checks.result_findings(r)
    doc = life.document(header, res, {"command": "ring", "preset": knobs.preset, "parties": parties,
                                      "footprints": foots, "kinds": kinds, "mechanisms": mechs,
                                      "engine_args": opts.args(), "order": "interleaved by group",
                                      "drift": drift, "n2_check": n2, "settle": settle},
                        checks=[f.as_dict() for f in findings], **({"failures": failures} if failures else {}))
    life.write(doc)
    if args.plot:  # matplotlib only when figures are asked for (start-up time)
        from ctxbench.ring import figures as ring_figures
        life.figures(args.plot, [("ring", ring_figures.figure(res, env))])

    print(render_table(res))
    print(render_checks(n2, drift, settle))
    bad = [f"{v.id} N={v.params.parties}" for v in map(Result, res) if not v.verification.get("ok")]
    if bad:
        print(f"  warning: switch counts disagree with the method for {len(bad)} point(s): {', '.join(bad[:5])}")
    life.finish()
    life.failed(failures, len(ids + refs))
    return 0


def render_checks(n2: list[dict], drift: dict, settle: dict) -> str:
    """The N = 2 check, what the intervals cover, and how the groups began."""
    lines = ["", "N = 2 check: the two-party ring is the ping-pong (measured in the same rounds)"]
    for c in n2:
        ring, pp, ratio, diff, verdict = analysis.n2_cells(c)
        lines.append(f"  {c['kind']:<8} {c['mechanism']:<6} ring {ring:>9}  ping-pong {pp:>9}  ratio {ratio}  "
                     f"difference {diff}  {verdict}")
    if not n2:
        lines.append("  (no N = 2, footprint 0 point measured)")
    rel, rho = drift.get("relative_sd"), drift.get("persistence")
    if drift.get("rounds", 0) >= 2:
        common = f"sd {rel:.1%} of a value" if rel is not None else "too few rounds to say"
        own = (f"{max(rho, 0):.0%} of a point's own round-to-round variation lasts into the next round"
               if rho is not None else "too few rounds to say")
        lines.append(f"Intervals hold another run's median 95% of the time: sqrt(2) x t({drift['rounds'] - 1}) x "
                     f"(this run's {drift['rounds']} rounds resampled, the drift common to every point ({common}) "
                     f"and each point's own drift ({own})); summary.ci95_within keeps this run's.")
    else:
        lines.append("Intervals: one round only, nothing to resample: they cover this run only.")
    if settle.get("groups"):
        lines.append(f"Groups that began on a quiet CPU: {settle['quiet']} of {settle['groups']} (wait: median "
                     f"{fmt_time(settle['waited_median_ns'])}, 90% {fmt_time(settle['waited_p90_ns'])}, "
                     f"max {fmt_time(settle['waited_max_ns'])}).")
    return "\n".join(lines)


def render_table(res: list[dict]) -> str:
    """One line per ring point: kind/mechanism, N, footprint, median ± the
    interval that holds another run's median (half its width), the median
    in core cycles, the cost above the ping-pong (paired by round, in the
    unit whose MDE is smaller, and which), switches per hand-off."""
    lines = [f"{'id':<20} {'N':>5} {'footprint':>9}  {'median ± next run':>21}  {'cycles':>9}  {'CV':>6}  "
             f"{'above the ping-pong [95% CI]':<52} {'unit':>9} {'sw/hand-off':>11}  verified"]
    rows = [r for r in map(Result, res) if r.id.startswith("ring/")]
    for r in sorted(rows, key=lambda r: (r.id, r.params.footprint or 0, r.params.parties or 0)):
        s = r.summary
        half = (s.ci95[1] - s.ci95[0]) / 2
        spc = r.verification.get("switches_per_handoff")
        above, unit = analysis.above_phrase(r.above_pingpong)
        cv = f"{s.cv:.1%}" if math.isfinite(s.cv) else "n/a"
        cyc = fmt_cyc(r.cycles.summary.median) if r.cycles.applies else "-"
        lines.append(f"{r.id:<20} {r.params.get('parties', '?'):>5} {r.params.get('footprint', '?'):>9}  "
                     f"{fmt_time(s.median) + ' ± ' + fmt_time(half):>21}  {cyc:>9}  {cv:>6}  "
                     f"{above:<52} {unit:>9} "
                     f"{(f'{spc:.2f}' if spc else '-'):>11}  {r.verified[0]}")
    return "\n".join(lines)
