"""ctxbench tasks: David et al.'s task pairs with n context switches
(docs/method.md#task-pairs): R_total, R'_total, C, I and its breakdown
per task, and the indirect cost PER SWITCH: the slope over thousands of
switches, measured in rounds that interleave the n values and the empty
pair (tasks/analysis.py).

Power before precision: a pilot of a few rounds per pair measures the noise
and the time a round takes; the command then gives each pair the rounds its
share of the budget allows, and says at the start the MDE that buys and
what +-25% would need. The effort never depends on the pilot's estimate:
fewer rounds for a pair whose pilot read high kept that lucky start in the
answer (one default run here: a pilot of 1.95 µs per switch cut aes+deflate
to 12 rounds, and it read 1.49 µs [1.15, 1.86] against 942 ns [712, 1230]
in the run before)."""
from __future__ import annotations

import math

from ctxbench.core import clock, cycles, model, workloads
from ctxbench.core.errors import UserError
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.stats import power
from ctxbench.tasks import analysis as tasks_analysis
from ctxbench.ui import options, presets
from ctxbench.lifecycle import Lifecycle
from ctxbench.ui.format import fmt_time
from ctxbench.ui.twin import fmt_in, fmt_twin, mde_note, ns_view, short_note
from ctxbench.ui.progress import Progress
from ctxbench.ui.warnings import print_warnings

MAX_SWITCHES = 100000
PILOT_ROUNDS = 3
MIN_ROUNDS = 12  # fewer: a bootstrap over rounds says too little about their spread
MAX_ROUNDS = 400
TARGET = 0.25  # the pilot says how many rounds +-25% would need (advice only: it never sets the effort)
# hidden pairs with a known answer (engine/src/tasks/pair.c)
TEST_PAIRS = ("empty+empty/burn-5us",)


def add_parser(sub):
    p = sub.add_parser("tasks", help="indirect cost of n switches between two real tasks (David et al. 2007)",
                       description="Two tasks (sort, deflate, aes, crc) in two processes on one CPU, "
                                   "switching cooperatively exactly n times, n values interleaved in rounds "
                                   "with the empty pair: the indirect cost per switch (slope over n), per "
                                   "task, and David et al.'s I = R'_total - (R_total - C) - n*C.")
    p.add_argument("--pair", metavar="A+B,...", type=options.nonempty_list,
                   help=presets.flag_help("tasks", "pair", "task pairs ('all': the six of David et al. 2007)"))
    p.add_argument("--switches", metavar="SPEC", type=options.int_list_type(1, MAX_SWITCHES),
                   help=presets.flag_help("tasks", "switches", "values of n, at most 15, 1 always added: the slope "
                                          "needs a wide range"))
    p.add_argument("--budget", type=options.count(10, 24 * 3600), metavar="S",
                   help=presets.flag_help("tasks", "budget", "seconds of measuring for all pairs, pilot included"))
    p.add_argument("--rounds", type=options.count(2, MAX_ROUNDS), metavar="R",
                   help="rounds per pair, fixed (no pilot, no budget)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--cold", dest="cold", action="store_true", default=True,
                   help="start each run with caches and TLB emptied as far as user space can (default)")
    g.add_argument("--warm", dest="cold", action="store_false", help="skip the cache flush")
    options.add_scale(p, "tasks")
    presets.add_flags(p, "tasks")
    options.add_cpu(p, "CPU for the pair")
    options.add_host(p)
    options.add_output(p)
    options.add_plot(p, "Figures 2 and 3 of David et al. 2007")
    p.set_defaults(func=run)


def _pairs(spec: str | None) -> list[str]:
    if spec and spec.strip() in TEST_PAIRS:
        return [spec.strip()]
    return workloads.pairs(spec)


def _measure(pair: str, ns: list[int], rounds: int, args, suffix: str, first: bool) -> tuple[dict, list[dict]]:
    """One engine job: the pair and the empty pair, `rounds` groups of one
    run at each n, interleaved group by group."""
    pid = f"tasks/{pair}" + ("" if "/" in pair else suffix)
    eid = f"tasks/empty+empty{suffix}"
    opts = EngineOptions(cpu=args.cpu, groups=rounds, iterations=len(ns), task_scale=args.scale,
                         warmup_ms=None if first else 0, extra=["--n-list", ",".join(map(str, ns))])
    h, res = run_ids([pid, eid], opts, None, interleave=True)
    by = {model.Result(r).id: r for r in res}
    return h, [by[pid], by[eid]]


def _merge(a: dict, b: dict) -> dict:
    """Two jobs' results of one id as one (b's rounds numbered after a's)."""
    shift = 1 + max(model.Result(a).groups or [-1])
    return model.analyse(model.append_samples(a, model.relabel_groups(b, lambda g: g + shift)))


def run(args) -> int:
    preset = presets.apply(args, "tasks").preset
    pairs = _pairs(args.pair)
    ns = sorted(set(args.switches) | {1})
    if len(ns) > 16:
        raise UserError("--switches: at most 15 values besides 1")
    if len(ns) < 2:
        raise UserError("--switches: at least one value besides 1 (the slope needs two)")
    life = Lifecycle("tasks", args.output, store=args.store)
    suffix = "" if args.cold else "/warm"
    t0 = clock.now()
    pilot = args.rounds or PILOT_ROUNDS
    prog = Progress(len(pairs) * 2, label="tasks ")
    header: dict = {}
    raw: dict[str, list[dict]] = {}
    plan: dict[str, dict] = {}
    for k, pair in enumerate(pairs):
        prog.update(f"{pair}: pilot, {pilot} rounds" if not args.rounds else f"{pair}: {pilot} rounds")
        ts = clock.now()
        h, res = _measure(pair, ns, pilot, args, suffix, k == 0)
        header = header or h
        raw[pair] = res
        plan[pair] = {"pilot_rounds": pilot, "round_s": (clock.now() - ts) / pilot}
        prog.step(pair)
    if not args.rounds:
        left = max(0.0, args.budget - (clock.now() - t0))
        lines = _choose(pairs, raw, plan, left)
        prog.close()
        print("\n".join(lines))
        prog = Progress(len(pairs), label="tasks ")
        for pair in pairs:
            more = plan[pair]["rounds"] - pilot
            if more > 0:
                prog.update(f"{pair}: {more} more rounds")
                _, res = _measure(pair, ns, more, args, suffix, False)
                raw[pair] = [_merge(a, b) for a, b in zip(raw[pair], res)]
            prog.step(pair)
    prog.close()

    by_pair, per_pair, points = {}, {}, []
    for pair in pairs:
        a = tasks_analysis.analyse_pair(*raw[pair])
        by_pair[pair] = a.points
        per_pair[pair] = dict(a.effects, **plan[pair])
        points += a.points
    maxcv = tasks_analysis.max_cv(points)
    # the runs themselves (the pair's and the empty pair's), so that the report
    # re-derives the per-switch effects from the file (tasks_analysis.runs_in)
    c_results = [r for p in pairs for r in (raw[p][0], model.with_members(raw[p][1], id=tasks_analysis.EMPTY_WITH + p))]
    env = model.Document(header).environment
    doc = life.document(header, points + c_results, {
        "preset": preset, "pairs": pairs, "switches": ns, "cold": args.cold, "scale": args.scale, "budget_s": args.budget,
        "wall_s": clock.now() - t0, "per_pair": per_pair, "max_cv": maxcv,
        "C_from": "empty tasks, same runner, slope of R'_total over n, in the same rounds",
        "design": "n values (and the empty pair) interleaved in rounds, order rotated; slopes over n; "
                  "bootstrap of whole rounds"})
    life.write(doc)
    if args.plot:  # matplotlib only when figures are asked for (start-up time)
        from ctxbench.tasks import figures as tasks_figures
        life.figures(args.plot, [(tasks_figures.FIG2, tasks_figures.figure2(by_pair, env, maxcv, per_pair)),
                                 (tasks_figures.FIG3, tasks_figures.figure3(by_pair, env, maxcv, per_pair))])

    print(render(by_pair, per_pair, maxcv))
    print_warnings([(f"{p.params.pair} n={p.params.n}", p.warnings_stored()) for p in map(model.Result, points)])
    life.finish()
    return 0


def _choose(pairs: list[str], raw: dict, plan: dict, left_s: float) -> list[str]:
    """Rounds per pair: its share of what is left of the budget (the pilot
    gives the time a round takes), whatever the pilot's estimate; the MDE
    that buys (from the pilot's standard error) and, as advice, the rounds
    +-TARGET would need."""
    lines = ["pilot (the per-switch cost this run can resolve):"]
    share = left_s / max(1, len(pairs))
    for pair in pairs:
        pl = plan[pair]
        e = tasks_analysis.analyse_pair(*raw[pair], resamples=400).effects["per_switch"]
        afford = pl["pilot_rounds"] + int(share / max(pl["round_s"], 1e-3))
        v = ns_view(e)  # the unit the verdict uses (ns or core cycles), read in ns at the run's clock
        est, se, m = abs(v["estimate"]), v["se"], v["mde"]
        # +-TARGET: 1.96 se <= TARGET * est
        need = power.rounds_for(se, pl["pilot_rounds"], TARGET * est / 1.96, MAX_ROUNDS) if est > 0 else MAX_ROUNDS
        rounds = max(pl["pilot_rounds"], min(afford, MAX_ROUNDS))
        pl["rounds"] = rounds
        mde = m * math.sqrt(pl["pilot_rounds"] / rounds) if math.isfinite(m) else math.nan
        pl["planned_mde_ns"] = mde
        msg = (f"  {pair}: pilot {fmt_time(v['estimate'])} per switch; {rounds} rounds "
               f"(~{rounds * pl['round_s']:.0f} s) -> MDE ~{fmt_time(mde)}")
        if rounds < MIN_ROUNDS:
            msg += f"; fewer than {MIN_ROUNDS} rounds: the interval says little about their spread (raise --budget)"
        if need > afford and est > 0:
            msg += (f"; +-{TARGET:.0%} would need ~{need} rounds (~{need * pl['round_s'] / 60:.0f} min): a longer "
                    "--budget, fewer pairs, or an isolated CPU")
        lines.append(msg)
    return lines


def _i_cells(q: dict) -> tuple[str, str, str]:
    """A point's I, its 95% interval and its unit note, in the unit its
    verdict uses (core/cycles.py twin: the one whose MDE is smaller)."""
    v = cycles.chosen(q["I"])
    mean = q["I"]["mean"] if v["unit"] == "ns" else v["estimate"]
    lo, hi = v["ci95"]
    ci = f"[{fmt_in(lo, v['unit'])}, {fmt_in(hi, v['unit'])}]" if math.isfinite(lo) else ""
    return fmt_in(mean, v["unit"]), ci, short_note(q["I"])


def render(by_pair: dict, per_pair: dict, maxcv: float) -> str:
    lines = []
    hdr = (f"{'pair':<22}{'n':>6}  {'R_prime mean':>13} {'CV':>6}  {'direct n*C':>11}  {'indirect I':>11} "
           f"{'95% CI':<26}{'I %':>8}  unit (MDE vs ns)")
    lines.append(hdr)
    lines.append("-" * len(hdr))
    for pair, pts in by_pair.items():
        for p in map(model.Result, pts):
            q = p.effects
            i, ci, unit = _i_cells(q)
            lines.append(f"{pair:<22}{p.params.n:>6}  {fmt_time(q['R_prime']['mean']):>13} "
                         f"{q['R_prime']['cv']:>6.2%}  {fmt_time(q['direct']['mean']):>11}  "
                         f"{i:>11} {ci:<26}{q['I_pct']['mean']:>7.3f}%  {unit}")
    lines.append(f"\nMax CV (R'_total, over all points) = {maxcv:.2%}")
    lines.append("\nIndirect cost per switch (slope of R'_total over n minus the empty pair's, 95% CI over rounds: "
                 "it covers this run's rounds, not how the host's caches change between runs; each in the unit, ns "
                 "or core cycles, whose MDE is smaller):")
    for pair, s in per_pair.items():
        ta, tb = list(s["per_task"])[:2]
        lines.append(f"  {pair:<22} {fmt_twin(s['per_switch'])}   (C = {fmt_twin(s['C'])}; "
                     f"{s['rounds']} rounds; {mde_note(s['per_switch'])})")
        lines.append(f"  {'':<22}   paid by {ta}: {fmt_twin(s['per_task'][ta])}; by {tb}: "
                     f"{fmt_twin(s['per_task'][tb])}; the switch itself: {fmt_twin(s['switch_inflation'])}")
        if s.get("marginal"):
            lines.append(f"  {'':<22}   one more switch, by n: {tasks_analysis.marginal_text(s)}")
    for pair, pts in by_pair.items():
        last = model.Result(pts[-1])
        lines.append(f"{pair}: at n = {last.params.n}, I = {last.effects['I_pct']['mean']:.3f}% of the "
                     f"combined running time (David et al. 2007: 0.10%-0.18% at 99)")
    return "\n".join(lines)
