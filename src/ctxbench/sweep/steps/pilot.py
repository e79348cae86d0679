"""The pilot: every point in the same `--groups` rounds (those it lacks),
one engine process per mechanism; a grid fitted to the budget is checked by
its first round first (issue 22: the cost model is another host's)."""
from __future__ import annotations

import sys

from ctxbench.sweep import fit, rounds
from ctxbench.sweep.steps.measure import Plan, measure_rounds
from ctxbench.sweep.steps.save import save
from ctxbench.sweep.steps.state import Sweep, finish_s


def pilot(sw: Sweep) -> bool:
    """The pilot's rounds that the budget pays for. False if the budget
    ended (the allocation that follows it then has nothing)."""
    if sw.fitted and not first_round(sw):
        return False
    plan = _rounds_lacking(sw)
    if not plan:
        return True
    paid = sw.fit(plan, sw.left())
    n_fit = sum(len(v) for rnd in paid for v in rnd.values())
    n_want = sum(len(v) for rnd in plan for v in rnd.values())
    if n_fit < n_want:
        print(f"note: the budget pays for {n_fit} of the pilot's {n_want} point-rounds (the largest "
              f"sizes left out): raise --budget to measure them", file=sys.stderr)
    return bool(paid) and measure_rounds(sw, paid, "pilot", until=sw.deadline - sw.finish_s) and n_fit >= n_want


def _rounds_lacking(sw: Sweep) -> Plan:
    """The pilot's rounds, each with the points that lack it."""
    groups = sw.args.groups
    lacking = {(b, p): groups - len(rounds.rounds_of(sw.by_key.get((b, *p)))) for b in sw.ids for p in sw.pts}
    plan = [{b: [p for p in sw.pts if lacking[(b, p)] > j] for b in sw.ids} for j in range(groups)]
    return [rnd for rnd in plan if any(rnd.values())]


def first_round(sw: Sweep) -> bool:
    """The pilot's first round of a fitted grid, within the share of the
    time that lets the pilot's other rounds follow, then the grid fitted
    again to what the round cost: sizes the round did not reach, and
    points the time left cannot give their rounds, are left out (their
    round is dropped). False if the budget ended."""
    args = sw.args
    measure_rounds(sw, [{b: list(sw.pts) for b in sw.ids}], "pilot", until=sw.now() + sw.left() / args.groups)
    if sw.left() <= 0:
        return False
    old = sw.grid
    new, why, ok = fit.refit(old, lambda b, s, d: (b, s, d) in sw.by_key, sw.ids, sw.cost,
                             sw.deadline - sw.now(), args.budget, args.groups, sw.engine_start_s,
                             sw.env, bool(args.sizes), bool(args.strides), finish_s)
    if why or not ok:
        _say_refit(sw, old, why, ok)
    sw.set_grid(new or old)  # nothing reached: the budget ended, the plan stays as it was
    sw.plan_rec["strides_by_size"] = {str(s): list(d) for s, d in sw.grid.items()}
    keep = set(sw.pts)
    for k in [k for k in sw.by_key if (k[1], k[2]) not in keep]:
        del sw.by_key[k]
    save(sw)
    return True


def _say_refit(sw: Sweep, old: dict, why: list[str], ok: bool) -> None:
    """What the first round's cost left out of the grid, said and recorded (sweep.plan)."""
    done = [(b, s, d) for b in sw.ids for s, d in fit.points_of(old) if (b, s, d) in sw.by_key]
    line = (f"the first pilot round cost {sum(sw.cost(*k) for k in done):.1f} s where it reached "
            f"(the model said {sum(sw.model.round_s(*k) for k in done):.1f} s)"
            + (f": left out {'; '.join(why)}" if why else "")
            + ("" if ok else "; not even the pilot of what is left is sure to fit: raise --budget"))
    print(f"note: {line}", file=sys.stderr)
    sw.plan_rec["refit"].append(line)
    sw.plan_rec["left_out"] = list(sw.plan_rec.get("left_out") or []) + why
