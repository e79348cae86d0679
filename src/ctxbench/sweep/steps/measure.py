"""Rounds measured, one engine process per mechanism for all of them (the
pilot's and the allocation's): what each process answers is noted while it
measures, merged into the points once it ends (also on Ctrl-C or at the
deadline), and saved."""
from __future__ import annotations

import sys

from ctxbench.core import model
from ctxbench.core.errors import UserError
from ctxbench.records import RECORDS
from ctxbench.sweep import analysis as sweep_analysis
from ctxbench.sweep import plan as sweep_plan
from ctxbench.sweep import rounds
from ctxbench.sweep.steps.save import save
from ctxbench.sweep.steps.state import Sweep
from ctxbench.ui.progress import Progress

# CPU warm-up per engine process (ms). The pilot's rounds, samples per
# round, shortest sample and the budget are the presets' (ui/presets.py).
WARMUP_MS = 200

Plan = list[dict[str, list[tuple[int, int]]]]  # per round: mechanism -> its points
Points = list[tuple[int, tuple[int, int]]]  # (round, (size, stride)) in the order measured


class EngineProcess:
    """One engine process of the sweep: its callbacks note what it answers
    and when (take() merges it once the process has ended)."""

    def __init__(self, sw: Sweep, name: str, prog: Progress, t_call: float):
        self.sw, self.name, self.prog, self.t_call = sw, name, prog, t_call
        self.t_prev = t_call  # when the last point ended: a point's cost runs from there
        self.arrived: list[tuple[dict | None, float]] = []  # (result or None if it failed, when)

    def on_header(self, h: dict) -> None:
        # the engine probed the machine and calibrated; the CPU warm-up follows
        self.t_prev = self.sw.now() + WARMUP_MS / 1000
        self.sw.engine_start_s = self.t_prev - self.t_call
        got = model.Document(h)
        if got.environment.as_dict() and not self.sw.old_doc:
            self.sw.env = got.environment.as_dict()
        if got.tool:
            self.sw.tool = got.tool

    def on_result(self, raw: dict) -> None:
        # Only note it while the engine measures: merging and analysing here would run
        # beside the next point, maybe on its CPU, a third task the switch counts miss
        # (it inflated later stride-0 points by 40% in one run).
        self.arrived.append((raw, self.sw.now()))
        p = model.Result(raw).params
        self.prog.step(f"{self.name} {sweep_plan.fmt_size(int(p.get('size', 0)))}:{p.get('stride', '?')}")

    def on_failed_job(self, failed) -> None:
        # a failed point holds its place, so that the next results stay paired with their points
        self.arrived.append((None, self.sw.now()))


def measure_rounds(sw: Sweep, plan: Plan, phase: str, until: float | None = None) -> bool:
    """Consecutive rounds, one engine process per mechanism for all of
    them: round j measures plan[j][mechanism]'s points (references
    added), size by size. False if the budget ended during them, or
    `until` (monotonic time, shared out among the mechanisms still to
    measure by what their points are predicted to take) stopped one of
    them."""
    first = sw.next_round
    sw.next_round += len(plan)
    per_mech = {bid: [(first + j, pt) for j, rnd in enumerate(plan) if rnd.get(bid)
                      for pt in sweep_plan.round_points(rnd[bid])] for bid in sw.ids}
    label = f"sweep {phase} round{'s' if len(plan) > 1 else ''} {first}" + (
        f"-{first + len(plan) - 1}" if len(plan) > 1 else "")
    prog = Progress(sum(len(v) for v in per_mech.values()), label=label + " ")
    for j, rnd in enumerate(plan):
        sw.log.append({"round": first + j, "phase": phase,
                       "points": sum(len(sweep_plan.round_points(v)) for v in rnd.values() if v)})
    complete = True
    for i, (name, bid) in enumerate(sw.mechs):
        plist = per_mech.get(bid)
        if not plist:
            continue
        proc = EngineProcess(sw, name, prog, sw.now())
        limit = _time_limit(sw, per_mech, sw.mechs[i:], bid, until, proc.t_call)
        if _measure(sw, proc, bid, plist, phase, limit):
            continue
        prog.close()
        _stopped(sw, plist, proc.arrived)
        complete = False
        if until is None or sw.left() <= 0:
            return False
    prog.close()
    return complete


def _time_limit(sw: Sweep, per_mech: dict[str, Points], rest: list[tuple[str, str]], bid: str, until: float | None,
                t0: float) -> float:
    """Seconds mechanism `bid`'s engine process may take from `t0`: what is
    left, and with `until` its share of the time to then among the
    mechanisms still to measure (`rest`), by what their points are
    predicted to take."""
    limit = sw.left()
    if until is not None:
        pred = {b: sw.engine_start_s + sum(sw.cost(b, s, d) for _, (s, d) in per_mech[b])
                for _, b in rest if per_mech.get(b)}
        limit = min(limit, (until - t0) * pred[bid] / sum(pred.values()))
    return limit


def _measure(sw: Sweep, proc: EngineProcess, bid: str, plist: Points, phase: str, limit: float) -> bool:
    """One engine process measures `plist`; what arrived is kept, also when
    Ctrl-C ends it. False if the deadline stopped it."""
    proc.prog.update(f"{proc.name} starting")
    points = ",".join(f"{s}:{d}" for _, (s, d) in plist)
    finished = False
    try:
        finished = _stream(sw, proc, bid, points, limit)
    finally:
        take(sw, proc, bid, plist, phase)
    return finished


def _stream(sw: Sweep, proc: EngineProcess, bid: str, points: str, limit: float) -> bool:
    """The engine call: `bid` at `points` ("size:stride,..."), stopped at `limit` seconds."""
    return sw.args.engine.stream([bid], sw.opts, proc.on_header, proc.on_result, points=points,
                                 deadline_s=max(limit, 0.0), on_failed_job=proc.on_failed_job)


def _stopped(sw: Sweep, plist: Points, arrived: list) -> None:
    """The deadline stopped an engine process: the rounds it did not finish are marked."""
    sw.stopped_at_deadline += 1
    cut = plist[len(arrived)][0] if len(arrived) < len(plist) else plist[-1][0]
    for e in sw.log:
        if e["round"] >= cut:
            e["stopped_at_deadline"] = True


def take(sw: Sweep, proc: EngineProcess, bid: str, plist: Points, phase: str) -> None:
    """Merge what one engine process answered into the points, and save."""
    got = set()
    # The engine measures the points in the order given, one result each: the i-th
    # result is plist[i] (the same point recurs once per round).
    for (raw, now), (rno, (size, stride)) in zip(proc.arrived, plist):
        if raw is None:  # the engine failed this point: its own message ends the sweep (stream)
            proc.t_prev = now
            continue
        k = (bid, size, stride)
        params = _params(sw, raw, proc.name, k)
        cost = now - proc.t_prev
        proc.t_prev = now
        sw.by_key[k] = rounds.merge(sw.by_key.get(k), dict(raw, params=params), rno, max(cost, 0.0))
        got.add(k)
    # once per point and engine process (its summary's bootstrap took 30 ms a point, and
    # per result that was half of one default sweep's time)
    for k in got:
        r = sw.by_key[k] = sweep_analysis.with_counter_rates(model.analyse(sw.by_key[k], RECORDS.Result))
        _say_counters(sw, r, proc.prog)
    if phase != "pilot":  # the pilot is analysed once, at its end (a bootstrap per point costs time)
        sw.with_indirect(only=got)
    save(sw)


def _params(sw: Sweep, raw: dict, name: str, k: tuple[str, int, int]) -> dict:
    """The result's params, checked against the point asked for, with what the sweep adds."""
    bid, size, stride = k
    params = dict(model.Result(raw).params.items())
    if "size" in params and "stride" in params:
        if (int(params["size"]), int(params["stride"])) != (size, stride):
            raise UserError(f"engine answered point {params['size']}:{params['stride']}, "
                            f"not {size}:{stride} as asked for {bid}", code=1)
    else:  # an id that does not echo size/stride
        params.update(size=size, stride=stride)
    params["mechanism_name"] = name
    # where both parties' arrays fit: past the LLC the misses go to DRAM, whose latency is
    # time, not core cycles (core/cycles.py keeps such points in ns)
    params["working_set_level"] = sw.model.host.level(2 * size) if stride else "none"
    return params


def _say_counters(sw: Sweep, r: dict, prog: Progress) -> None:
    """Hardware counters the engine could not have: said once."""
    if not sw.counters_said and model.Result(r).counters:
        sw.counters_said = True
        c = model.Result(r).counters
        if not c.get("available"):
            prog.close()
            print(f"note: hardware counters unavailable ({c.get('error') or 'refused'}): "
                  f"the sweep runs without them", file=sys.stderr)
