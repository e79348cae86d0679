"""ctxbench irq: the indirect cost of interrupts at a controlled rate
(docs/method.md#interrupts; David et al. 2007, section 4): a task runs
with and without a timer signal whose handler only counts;
I = R'_task - R_task - k*D.

One engine process measures rounds (every task at every rate once, and D
after every pair) interleaved; a pilot of a few rounds measures the noise,
and the command chooses how many rounds its budget allows and says at the
start what it cannot resolve (irq/analysis.py, stats/power.py)."""
from __future__ import annotations

import argparse
import math
import sys

from ctxbench.core import chunks, cycles, model, workloads
from ctxbench.core.model import Document, Result
from ctxbench.core.errors import UserError
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.irq import analysis
from ctxbench.irq import chunked as irq_chunked
from ctxbench.stats import power
from ctxbench.ui import options, presets
from ctxbench.lifecycle import Lifecycle
from ctxbench.ui.format import fmt_effect, fmt_time
from ctxbench.ui.twin import fmt_in, fmt_twin, mde_note, ns_view, short_note
from ctxbench.ui.progress import Progress
from ctxbench.ui.warnings import print_warnings

MAX_RATE_HZ = 100000
MAX_RATES = 16  # the engine's RUN_MAX_N_LIST
PILOT_ROUNDS = 3
MAX_ROUNDS = 10000
# The resolution sought: the per-interrupt indirect cost's MDE at most this
# fraction of D, so that "D agrees with the slope within 10%" is decidable.
TARGET_OF_D = 0.10
FEW_ROUNDS = 10  # below this a bootstrap over rounds has too few distinct resamples to trust its interval
BATCHES = 4  # the rounds after the pilot, in about this many engine runs (the budget is checked between them)


def add_parser(sub):
    p = sub.add_parser("irq", help="indirect cost of timer interrupts (signals) at controlled rates (David et al. 2007)",
                       description="Each task runs without and with a POSIX timer signal at each rate, in "
                                   "rounds; the handler only increments a counter. D = direct cost of servicing "
                                   "one (gap loop, measured after every pair); I = R'_task - R_task - k*D; "
                                   "per interrupt: the slope of R' - R over k, minus D.")
    p.add_argument("--task", metavar="T,...", type=options.nonempty_list,
                   help=presets.flag_help("irq", "task", f"tasks, of {', '.join(workloads.TASKS)} or all"))
    p.add_argument("--rates", metavar="HZ,...", type=options.int_list_type(1, MAX_RATE_HZ),
                   help=presets.flag_help("irq", "rates", "timer signals per second"))
    p.add_argument("--budget", type=options.count(10, 24 * 3600), metavar="S",
                   help=presets.flag_help("irq", "budget", "seconds of measuring the pilot may plan for"))
    p.add_argument("--rounds", type=options.count(2, MAX_ROUNDS), metavar="N",
                   help="measure exactly N rounds (no pilot, no budget)")
    # known-answer mode (tests): the handler also spins d us of wall time
    p.add_argument("--burn-us", type=options.count(0, 10000), default=0, help=argparse.SUPPRESS)
    options.add_scale(p, "irq")
    presets.add_flags(p, "irq")
    options.add_cpu(p, "CPU to run on")
    options.add_host(p)
    options.add_output(p)
    options.add_plot(p, "Figure 5 of David et al. 2007 and the recovery curves")
    p.set_defaults(func=run)


def _engine(ids, args, rounds, rates, first: bool):
    opts = EngineOptions(cpu=args.cpu, groups=rounds, iterations=len(rates), n=rates[0],
                         warmup_ms=None if first else 0, task_scale=args.scale,
                         extra=["--n-list", ",".join(map(str, rates))]
                         + (["--irq-burn-us", str(args.burn_us)] if args.burn_us else []))
    prog = Progress(len(ids) * (rounds + 1), label="irq ")
    try:
        return run_ids(args.engine, ids, opts, prog, interleave=True)
    finally:
        prog.close()


def _plan(pilot: dict, args, t_round: float, spent: float) -> tuple[int, str]:
    """Rounds in all, and the line that says what they can resolve: enough
    for the per-interrupt MDE to reach TARGET_OF_D of D, and for every point
    whose pilot I could be resolved within the budget (its MDE, falling as
    1/sqrt(rounds), below |I|): the pilot's MDE decides the effort."""
    # each effect in the unit its verdict uses, read in ns at the run's clock (ui/twin.py)
    d = ns_view(pilot["D"])["estimate"]
    target = TARGET_OF_D * d / power.MDE_FACTOR
    ses = [ns_view(f["per_interrupt"])["se"] for f in pilot["per_task"].values()]
    se = max((s for s in ses if math.isfinite(s)), default=math.nan)
    most = PILOT_ROUNDS + max(0, int((args.budget - spent) / t_round))
    total = power.rounds_for(se, PILOT_ROUNDS, target, most) if math.isfinite(d) and d > 0 else most
    reach, beyond = _reachable(pilot, most)
    total = max([total] + list(reach.values()))
    exp_mde = power.mde(se * math.sqrt(PILOT_ROUNDS / total)) if math.isfinite(se) else math.nan
    line = (f"pilot ({PILOT_ROUNDS} rounds, {t_round:.1f} s each): D ~ {fmt_time(d)}, per-interrupt SE "
            f"{fmt_time(se)}; {total} rounds in all, expected MDE per interrupt {fmt_time(exp_mde)}; "
            f"{len(reach)} of {len(reach) + len(beyond)} points resolvable within --budget {args.budget} s by the "
            "pilot's estimates")
    if beyond:
        need = max(beyond.values())
        line += (f"\n  the other {len(beyond)} would need up to {need} rounds (--budget "
                 f"{math.ceil(spent + (need - PILOT_ROUNDS) * t_round)} s) at the pilot's size, or are too close to 0")
    if total < FEW_ROUNDS:
        line += (f"\n  only {total} rounds fit in --budget {args.budget} s: a bootstrap over fewer than "
                 f"{FEW_ROUNDS} rounds understates the uncertainty (intervals too narrow)")
    if math.isfinite(exp_mde) and exp_mde > TARGET_OF_D * d * 1.0001:
        line += (f"\n  cannot resolve a per-interrupt indirect cost below {fmt_time(exp_mde)} "
                 f"({exp_mde / d:.0%} of D) within --budget {args.budget} s: a longer --budget or an "
                 f"isolated, quiet CPU would")
    return total, line


def _reachable(pilot: dict, most: int) -> tuple[dict, dict]:
    """Per task point: the rounds that would bring its MDE below the
    pilot's |I| (MDE ~ 1/sqrt(rounds)); those within `most`, and the rest
    (a pilot I of 0 needs unbounded rounds: counted as MAX_ROUNDS)."""
    reach, beyond = {}, {}
    for pts in pilot["points"].values():
        for p in map(Result, pts):
            i = ns_view(p.effects["I"])
            est, se = abs(i["estimate"]), i["se"]
            key = (p.params.task, p.params.rate_hz)
            if not (math.isfinite(se) and se > 0 and math.isfinite(est)):
                continue
            need = (MAX_ROUNDS if est == 0 else
                    min(MAX_ROUNDS, math.ceil(PILOT_ROUNDS * (power.MDE_FACTOR * se / est) ** 2)))
            (reach if need <= most else beyond)[key] = max(need, PILOT_ROUNDS)
    return reach, beyond


def run(args) -> int:
    preset = presets.apply(args, "irq").preset
    tasks = workloads.tasks(args.task)
    rates = args.rates
    if len(rates) > MAX_RATES:
        raise UserError(f"--rates: at most {MAX_RATES} rates, got {len(rates)}")
    if args.burn_us and 1e6 / max(rates) < 2 * args.burn_us:
        raise UserError(f"--rates: {max(rates)} Hz leaves less than twice the {args.burn_us} us burn per period")
    life = Lifecycle("irq", args.output, store=args.store, engine=args.engine)
    ids = ["irq/direct", "irq/spin"] + [f"irq/{t}" for t in tasks]

    t0 = args.engine.clock.now()
    fixed = args.rounds is not None
    header, res = _engine(ids, args, args.rounds if fixed else PILOT_ROUNDS, rates, True)
    batches = [(0, res)]
    plan_line = f"{args.rounds} rounds (fixed by --rounds)"
    if not fixed:
        spent = args.engine.clock.now() - t0
        pilot = _analyse(batches, tasks, rates, args)
        total, plan_line = _plan(pilot, args, spent / PILOT_ROUNDS, spent)
        print(plan_line, file=sys.stderr)
        done, t_round = PILOT_ROUNDS, spent / PILOT_ROUNDS
        # in a few batches, each sized by the pace of the last, so that a host
        # that slows down after the pilot ends the run at the budget, not past it
        # (a default run here took 370 s of a 240 s budget: rounds of 14 s, pilot 9.6 s)
        while done < total:
            n = min(total - done, int((t0 + args.budget - args.engine.clock.now()) / t_round),
                    max(1, -(-(total - PILOT_ROUNDS) // BATCHES)))
            if n < 1:
                plan_line += (f"\n  stopped at {done} of {total} rounds: --budget {args.budget} s ran out "
                              f"(rounds took {t_round:.1f} s, the pilot's {spent / PILOT_ROUNDS:.1f} s)")
                print(plan_line.splitlines()[-1], file=sys.stderr)
                break
            t1 = args.engine.clock.now()
            _, more = _engine(ids, args, n, rates, False)
            batches.append((done, more))
            done += n
            t_round = (args.engine.clock.now() - t1) / n
    # the file keeps every batch's gap loop (irq/direct), so that the analysis can be made again from it
    direct = _direct(batches)
    tables, _, spin, method = _tables(batches, tasks)
    by_task, about = _chunk_runs(batches)
    an, points = analysis.derive_all(tables, analysis.rows(direct), rates, _params(args), spin, method, by_task, about)
    env = Document(header).environment
    section = {"preset": preset, "tasks": tasks, "rates_hz": rates, "budget_s": args.budget, "scale": args.scale,
               "burn_ns": args.burn_us * 1000, "plan": plan_line, **{k: an[k] for k in analysis.ANALYSED},
               "seconds": round(args.engine.clock.now() - t0, 1)}
    doc = life.document(header, [direct] + points, section)
    life.write(doc)
    if args.plot:  # matplotlib only when figures are asked for (start-up time)
        from ctxbench.irq import figures as irq_figures
        figs = [(irq_figures.NAME, irq_figures.figure5(an["points"], env, an["D"]))]
        if an["chunks"]:
            figs.append((irq_figures.RECOVERY, irq_figures.recovery(an["chunks"], env)))
        life.figures(args.plot, figs)
    print(render(an))
    print_warnings([(f"{p.params.task} {p.params.rate_hz} Hz",
                     p.warnings_stored("untrusted"))  # said once, above the table
                    for p in map(Result, points) if p.params.task != "spin"])
    print("\nThe interrupt is a timer signal delivered to the task's thread (a hardware timer interrupt, then "
          "the kernel's signal delivery and return), not a raw interrupt as in David et al. 2007.")
    life.finish()
    return 1 if an["self_check_failed"] or an["control"]["ok"] is False else 0


def _chunk_runs(batches) -> tuple[dict[str, list], dict]:
    """Every batch's chunk records (rounds numbered on from the batch
    before) by task, and the records' constants."""
    by_task: dict[str, list] = {}
    about: dict = {}
    for round0, res in batches:
        for r in res:
            name = Result(r).id.split("/", 1)[1]
            if name != "direct" and Result(r).chunks:
                by_task.setdefault(name, []).extend(chunks.runs(r, round0))
                about = about or chunks.describe(r)
    return by_task, about


def _direct(batches):
    """irq/direct of every batch as one result, its rounds numbered on
    from the batch before (the rounds the analysis gives its rows)."""
    found = [(round0, next(r for r in res if Result(r).id == "irq/direct")) for round0, res in batches]
    out = found[0][1]
    for round0, r in found[1:]:
        out = model.append_samples(out, model.relabel_groups(r, lambda g, shift=round0: g + shift))
    return model.analyse(out) if len(found) > 1 else out


def _params(args) -> dict:
    """The parameters every point carries."""
    return {"scale": args.scale, "burn_ns": args.burn_us * 1000}


def _tables(batches, tasks) -> tuple[dict, dict | None, dict | None, str]:
    """The runs of every batch as analysis tables: per task, the gap
    loop's (irq/direct), the spin's, and how the core clock was read."""
    tables: dict[str, list] = {t: [] for t in ("direct", "spin", *tasks)}
    for round0, res in batches:
        for r in res:
            tables[Result(r).id.split("/", 1)[1]].append(analysis.rows(r, round0))
    direct, spin = (analysis.merge(tables.pop(k)) or None for k in ("direct", "spin"))
    probes = [cycles.probe_of(r) for _, res in batches for r in res]
    method = "pmu" if probes and all(cycles.method(p) == "pmu" for p in probes) else "probe"
    return {t: analysis.merge(v) for t, v in tables.items()}, direct, spin, method


def _analyse(batches, tasks, rates, args) -> dict:
    tables, direct, spin, method = _tables(batches, tasks)
    return analysis.derive(tables, direct, rates, _params(args), spin, method)


def _cell(e: dict, at: bool = True) -> str:
    """An effect for the table, in the unit its verdict uses (ns or core
    cycles: the smaller MDE): estimate [CI], or 'below MDE'; in cycles,
    with the estimate read in ns at the run's clock (`at`). For I, the
    interval is the simultaneous one (over all points)."""
    v = cycles.chosen(e)
    est, (lo, hi), u = v["estimate"], v.get("ci95_simultaneous") or v["ci95"], v["unit"]
    if est is None or not math.isfinite(est):
        return "n/a"
    ns = f" = {fmt_time(est / e['ghz'])} at {e['ghz']:.2f} GHz" if at and u == "cycles" else ""
    if v["below_mde"]:
        return f"below {fmt_in(v['mde'], u)} ({fmt_in(est, u)}{ns})"
    return f"{fmt_in(est, u)} [{fmt_in(lo, u)}, {fmt_in(hi, u)}]{ns}"


def chunk_lines(ch: dict | None) -> list[str]:
    """The chunk design's lines (irq/chunked.py): D as the chunks see it,
    per task the per-interrupt indirect cost and its verdict, the recovery,
    the far tail, by rate, and the cross-check with the rate slope."""
    from ctxbench.ui.recovery import recovered_text
    if not ch:
        return ["", "Per interrupt where it is paid: no chunk timing in these runs (a file from before it)."]
    d = ch["D"]["estimate_ns"]
    out = ["", "Per interrupt, where it is paid: each task's chunks after a signal against the same chunks of the "
               "sample's run without the timer, the first chunks' excess over the last ones', minus the spin's (D); "
               "the median over a run's signals, Hodges-Lehmann over rounds, 95% CI "
               "(docs/irq.md#the-indirect-cost-where-it-is-paid):",
           f"  D as the chunks see it (irq/spin's excess per signal) = {fmt_effect(ch['D'])}; "
           f"the control's own recovery: {recovered_text(ch['spin_curve'])}"]
    for task, rec in ch["tasks"].items():
        e = rec["per_interrupt"]
        lo, hi = e["ci95"]
        v = rec["verdict"]
        why = {"resolved": "resolved to +-25% or better",
               "bounded": f"bounded: within +-{max(abs(lo), abs(hi)):.0f} ns = "
                          f"{max(abs(lo), abs(hi)) / d:.1%} of D (under {irq_chunked.BOUND_OF_D:.0%})",
               }.get(v, "not resolved, nor within +-5% of D")
        out.append(f"  {task:<8} {fmt_time(e['estimate_ns'])} [{fmt_time(lo)}, {fmt_time(hi)}] per interrupt ({why}; "
                   f"MDE {fmt_time(e['mde_ns'])}, {rec['rounds']} rounds)")
        out.append(f"  {'':<8} of which in the chunks after the signal's: {fmt_effect(rec['after_signal_chunk'])} "
                   "(no D in them: measured in the task's own runs alone)")
        t = rec["tail_share"]
        tail = (f"; far from the signal its chunks differ by {t['estimate_ns']:+.2%} [{t['ci95'][0]:+.2%}, "
                f"{t['ci95'][1]:+.2%}] per chunk (subtracted)" if t["resolved"] else "")
        out.append(f"  {'':<8} {recovered_text(rec['curve'])}{tail}")
        br = rec["by_rate"]
        if br:
            out.append(f"  {'':<8} by rate: " + "; ".join(f"{r} Hz ({b['signals']} signals): {fmt_effect(b)}"
                                                          for r, b in br.items()))
        a = rec.get("agreement")
        if a:
            out.append(f"  {'':<8} in full {fmt_effect(rec['in_full'])} against the rate slope's slope - D: "
                       f"{a['verdict']}")
    return out


def render(an: dict) -> str:
    d = an["D"]
    ctl = an.get("control") or {}
    lines = []
    if ctl.get("ok") is False:  # first: nothing below is a result
        lines += ["CONTROL FAILED: every I of this run is untrusted, not a result.",
                  "  " + ctl["reason"] + ".", ""]
    lines += [f"D (direct cost of one timer signal as a loop in registers pays it: the gap loop's D per round, "
              f"its level set by the spin's rate slope; {an['rounds']} rounds) = {fmt_twin(d)}; {mde_note(d)}"]
    c = an["D_check"]
    if c:
        lines.append(f"  the gap loop alone reads {_cell(an['D_gap'])}; the spin's slope minus it: "
                     f"{_cell(c['per_interrupt'])} (below 0: the gaps charge a signal with a tick served in its "
                     "interrupt or a host stall ending at it, which the plain runs pay too); I uses D")
    if ctl.get("ok"):
        lines.append("Control (irq/spin, true I = 0): its I is consistent with 0 at every rate (simultaneous "
                     "intervals).")
    lines.append("")
    hdr = (f"{'task':<9}{'rate':>8}  {'R_task':>10} {'CV':>6}  {'k':>6}  {'k*D':>10}  "
           f"{'I [simult. 95% CI] or below MDE':<36}{'MDE':>11}{'I %':>9}  unit (MDE vs ns)")
    lines += [hdr, "-" * len(hdr)]
    for task, pts in list(an["points"].items()) + [("spin", an.get("spin_points") or [])]:
        for p in map(Result, pts):
            q = p.effects
            i = q["I"]
            v = cycles.chosen(i)
            cell = _cell(i, at=False)  # the unit column says which
            if any(w.code == "self_check" for w in p.warnings):
                cell = "SELF-CHECK FAILED " + cell
            if task == "spin":
                cell = "control: " + cell
            elif ctl.get("ok") is False:
                cell = f"untrusted ({cell})"
            lines.append(f"{task:<9}{p.params.rate_hz:>6}Hz  {fmt_time(q['R_task']['mean']):>10} "
                         f"{q['R_task']['cv']:>6.2%}  {q['interrupts']['mean']:>6.0f}  "
                         f"{fmt_time(q['direct']['estimate_ns']):>10}  {cell:<36}{fmt_in(v['mde'], v['unit']):>11}"
                         f"{q['I_pct']:>8.3f}%  {short_note(i)}")
    lines.append("'below X': |I| is under its minimum detectable effect X with this run's rounds: not resolved "
                 "(the plan line above says what a longer --budget would resolve).")
    lines.append("I's intervals are simultaneous over all points (Bonferroni, Student's t over the rounds): "
                 "all hold their true values with 95% probability together, so an interval below 0 is a failed "
                 "self-check, not chance (one-point 95% intervals: parts.I.ci95 in the file)")
    lines += chunk_lines(an.get("chunks"))
    lines += ["", "The seed's design, the cross-check. Per interrupt (fits over all rates; slope of R' - R over k = D + "
                  "indirect cost per interrupt; slope - D = the task's slope minus the spin's):"]
    for task, f in an["per_task"].items():
        a = f["agreement"]
        # no verdict here: a task's slope is D plus its own indirect cost per interrupt, so a
        # slope 15% above D (aes here: 1.38 us of cache refill per interrupt) is a finding, not a
        # failed check; D is checked against the register loop's slope below
        lines.append(f"  {task:<8} slope {_cell(f['slope'])}; slope/D = {a['slope_over_D']:.3f}; "
                     f"indirect per interrupt (slope - D) {_cell(f['per_interrupt'])}, "
                     f"{mde_note(f['per_interrupt'])}")
    if c:
        a = c["agreement"]
        lines.append(f"  {'spin':<8} slope {_cell(c['slope'])}; over the gap loop's D {a['slope_over_D']:.3f} "
                     f"({'within' if a['within'] else 'OUTSIDE'} {a['tolerance']:.0%}): a loop in registers (no "
                     "indirect cost) sets D")
    sh = an["shared_cpu"]
    if sh["switches_per_run"] >= 1:
        lines += ["", f"The measured CPU was shared: {sh['switches_per_run']:.0f} switches per run (median), "
                      f"{sh['waited_share']:.0%} of the wall time spent waiting for it. That wait is taken out "
                      "of R and R'; what the other tasks did to the caches is not, and widens every interval: "
                      "an idle CPU (--cpu) resolves more."]
    if an["self_check_failed"]:
        lines += ["", "SELF-CHECK FAILED (not findings: an interrupt cannot make a task faster):"]
        lines += [f"  {c['task']} {c['rate_hz']} Hz: I = {_cell(c['I'])}: {c['diagnosis']}"
                  for c in an["self_check_failed"]]
    return "\n".join(lines)
