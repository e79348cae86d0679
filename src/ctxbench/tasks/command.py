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

from ctxbench.core import cycles, model, workloads
from ctxbench.core.errors import UserError
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.stats import power
from ctxbench.tasks import analysis as tasks_analysis
from ctxbench.ui import options, presets
from ctxbench.lifecycle import Lifecycle
from ctxbench.ui.format import fmt_effect, fmt_time
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
    options.add_plot(p, "Figures 2 and 3 of David et al. 2007 and the recovery curves")
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
    h, res = run_ids(args.engine, [pid, eid], opts, None, interleave=True)
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
    life = Lifecycle("tasks", args.output, store=args.store, engine=args.engine)
    suffix = "" if args.cold else "/warm"
    t0 = args.engine.clock.now()
    pilot = args.rounds or PILOT_ROUNDS
    prog = Progress(len(pairs) * 2, label="tasks ")
    header: dict = {}
    raw: dict[str, list[dict]] = {}
    plan: dict[str, dict] = {}
    for k, pair in enumerate(pairs):
        prog.update(f"{pair}: pilot, {pilot} rounds" if not args.rounds else f"{pair}: {pilot} rounds")
        ts = args.engine.clock.now()
        h, res = _measure(pair, ns, pilot, args, suffix, k == 0)
        header = header or h
        raw[pair] = res
        plan[pair] = {"pilot_rounds": pilot, "round_s": (args.engine.clock.now() - ts) / pilot}
        prog.step(pair)
    if not args.rounds:
        left = max(0.0, args.budget - (args.engine.clock.now() - t0))
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

    by_pair, per_pair, points, maxcv = tasks_analysis.derive({p: tuple(raw[p]) for p in pairs}, plan)
    # the runs themselves (the pair's and the empty pair's), so that `ctxbench reanalyse`
    # derives the points and per_pair again from the file (tasks/reanalysis.py)
    c_results = [r for p in pairs for r in (raw[p][0], model.with_members(raw[p][1], id=tasks_analysis.EMPTY_WITH + p))]
    env = model.Document(header).environment
    doc = life.document(header, points + c_results, {
        "preset": preset, "pairs": pairs, "switches": ns, "cold": args.cold, "scale": args.scale, "budget_s": args.budget,
        "wall_s": args.engine.clock.now() - t0, "per_pair": per_pair, "max_cv": maxcv,
        "C_from": "empty tasks, same runner, slope of R'_total over n, in the same rounds",
        "design": "n values (and the empty pair) interleaved in rounds, order rotated; slopes over n; "
                  "bootstrap of whole rounds"})
    life.write(doc)
    if args.plot:  # matplotlib only when figures are asked for (start-up time)
        from ctxbench.tasks import figures as tasks_figures
        figs = [(tasks_figures.FIG2, tasks_figures.figure2(by_pair, env, maxcv, per_pair)),
                (tasks_figures.FIG3, tasks_figures.figure3(by_pair, env, maxcv, per_pair))]
        if any(s.get("chunks") for s in per_pair.values()):  # no empty recovery figure
            figs.append((tasks_figures.RECOVERY, tasks_figures.recovery(per_pair, env)))
        life.figures(args.plot, figs)

    print(render(by_pair, per_pair, maxcv))
    print_warnings([(f"{p.params.pair} n={p.params.n}", p.warnings_stored()) for p in map(model.Result, points)])
    life.finish()
    return 0


def _choose(pairs: list[str], raw: dict, plan: dict, left_s: float) -> list[str]:
    """Rounds per pair: its share of what is left of the budget (the pilot
    gives the time a round takes), whatever the pilot's estimate; the MDE
    that buys (from the pilot's standard error, of the chunk design's per
    switch cost, and of the whole-run slope's) and, as advice, the rounds
    +-TARGET would need."""
    lines = ["pilot (the per-switch cost this run can resolve):"]
    share = left_s / max(1, len(pairs))
    for pair in pairs:
        pl = plan[pair]
        eff = tasks_analysis.analyse_pair(*raw[pair], resamples=400).effects
        whole = ns_view(eff["per_switch"])
        e = (eff.get("chunks") or {}).get("per_switch") or eff["per_switch"]
        afford = pl["pilot_rounds"] + int(share / max(pl["round_s"], 1e-3))
        v = ns_view(e)  # the unit the verdict uses (ns or core cycles), read in ns at the run's clock
        est, se, m = abs(v["estimate"]), v["se"], v["mde"]
        # +-TARGET: 1.96 se <= TARGET * est
        need = power.rounds_for(se, pl["pilot_rounds"], TARGET * est / 1.96, MAX_ROUNDS) if est > 0 else MAX_ROUNDS
        rounds = max(pl["pilot_rounds"], min(afford, MAX_ROUNDS))
        pl["rounds"] = rounds
        shrink = math.sqrt(pl["pilot_rounds"] / rounds)
        mde = m * shrink if math.isfinite(m) else math.nan
        pl["planned_mde_ns"] = mde
        pl["planned_mde_whole_runs_ns"] = whole["mde"] * shrink if math.isfinite(whole["mde"]) else math.nan
        msg = (f"  {pair}: pilot {fmt_time(v['estimate'])} per switch; {rounds} rounds "
               f"(~{rounds * pl['round_s']:.0f} s) -> MDE ~{fmt_time(mde)} (whole runs: "
               f"~{fmt_time(pl['planned_mde_whole_runs_ns'])})")
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


def _verdict(e: dict, whole: dict | None = None) -> str:
    """Resolved (its 95% half-width at most TARGET of the estimate), or the
    bound the interval puts on it; and its MDE against the whole-run
    design's (`whole`), in ns."""
    v, lo, hi = ns_view(e), *e["ci95"]
    est = v["estimate"]
    if not (math.isfinite(lo) and math.isfinite(est)):
        return "no interval (too few rounds)"
    half = (hi - lo) / 2
    if e["resolved"] and half <= TARGET * abs(est):
        out = f"resolved to +-{half / abs(est):.0%}"
    elif e["resolved"]:
        out = f"resolved, but +-{half / abs(est):.0%}: more rounds for +-{TARGET:.0%}"
    else:
        out = f"not resolved: between {fmt_time(lo)} and {fmt_time(hi)}"
    out += f"; MDE {fmt_time(v['mde'])}"
    if whole:
        w = ns_view(whole)["mde"]
        if math.isfinite(w) and v["mde"] > 0:
            out += f" (whole runs: {fmt_time(w)}, {w / v['mde']:.0f}x larger)"
    return out


def chunk_lines(pair: str, s: dict) -> list[str]:
    """The pair's chunk-design lines (tasks/chunked.py): per switch, who
    pays it, the switch itself, where it recovers, the far tail, per n
    with the whole-run cross-check, and the timer's share of a chunk."""
    from ctxbench.ui.recovery import recovered_text
    ch = s.get("chunks")
    if not ch:
        why = s.get("chunks_why") or "no chunk timing in these runs (a file from before it)"
        return [f"  {pair:<22} {why}: the seed's design below only"]
    ta, tb = list(s["per_task"])[:2]
    names = {"a": ta, "b": tb}
    ns_ = ch["n_values"]
    lines = [f"  {pair:<22} {fmt_twin(ch['per_switch'])}  ({_verdict(ch['per_switch'], s['per_switch'])}; "
             f"{ch['rounds']} rounds, n = {', '.join(map(str, ns_))})"]
    pad = " " * 25
    lines.append(pad + "; ".join(f"paid by {names[r]}: {fmt_twin(ch['paid_by'][r])} ({fmt_twin(ch['per_switch_in'][r])} "
                                 f"per switch-in of {names[r]})" for r in ("a", "b"))
                 + f"; the switch itself: {fmt_twin(ch['switch_inflation'])} (hand-off "
                 f"{fmt_time(ch['hand_off_ns'])} in the empty pair)")
    lines.append(pad + "; ".join(f"{names[r]}: {recovered_text(ch['curve'][r])}" for r in ("a", "b")))
    tails = []
    for r in ("a", "b"):
        t = ch["tail_share"][r]
        if t["resolved"]:
            tails.append(f"{names[r]} {t['estimate_ns']:+.2%} [{t['ci95'][0]:+.2%}, {t['ci95'][1]:+.2%}]")
    if tails:
        lines.append(pad + "far from any switch the switched runs' chunks differ from the n = 1 run's by "
                     + ", ".join(tails) + " per chunk: not a cost of one switch (the same at every n), subtracted "
                     "above; 'in full' below keeps it, as a difference of whole runs does")
    for n, b in ch["by_n"].items():
        w, a = b.get("whole_runs"), b.get("agreement") or {}
        cross = (f"; in full {fmt_twin(b['in_full'])} vs whole runs {fmt_effect(w)}: {a.get('verdict')}"
                 if w else "")
        lines.append(pad + f"n = {n} ({b['switches']} switch-ins): {fmt_twin(b['per_switch'])}" + cross)
    tm = ch["timer_ns"]
    lines.append(pad + f"timer: {fmt_time(tm)} per chunk (the empty pair's chunk), "
                 + ", ".join(f"{tm / ch['chunk_ns'][r]:.1%} of {names[r]}'s {fmt_time(ch['chunk_ns'][r])}"
                             for r in ("a", "b") if ch["chunk_ns"][r] > 0)
                 + ": in both runs of every pairing, so it cancels")
    return lines


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
    lines.append("\nIndirect cost per switch, where it is paid: each task's chunks after a switch-in against the same "
                 "chunks of the round's n = 1 run, its first chunks' excess over its last ones' (Hodges-Lehmann over "
                 "rounds, 95% CI over rounds: it covers this run's rounds, not how the host's caches change between "
                 "runs; docs/tasks.md#the-indirect-cost-where-it-is-paid):")
    lines.append("")
    for pair, s in per_pair.items():
        lines += chunk_lines(pair, s)
    lines.append("\nThe seed's design, the cross-check: indirect cost per switch as the slope of R'_total over n minus "
                 "the empty pair's (95% CI over rounds; each in the unit, ns or core cycles, whose MDE is smaller):")
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
