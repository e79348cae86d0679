"""A peer's row: its launches turned into ctxbench's unit, and set beside
the part of ctxbench's ids that measures the same thing, round by round.

Each round holds one launch of every peer and one engine run of
ctxbench's ids (peers/command.py); the row's ratio is the median of the
rounds' ratios, with a bootstrap of whole rounds (_ratio says why the
median), and each side's own number is the mean over the rounds with
Student's t interval (stats/launches.py: a launch is the unit of
variation).

    converted  = peer's number per op / units per op       (catalogue.Peer)
    match      = the same quantity from ctxbench's ids       (View.match)
    predicted  = sum of ctxbench's parts the op contains     (View.predict)
    ratio      = converted / match,  explained = converted / predicted

`verdict`: "agrees" when the ratio is within AGREE of 1, "accounted for"
when it is not but the prediction from parts is, else "not accounted
for"; where the interval is wider than AGREE the run cannot tell and
says "not resolved" (know your power). The switches the peer's process
tree made per op (getrusage) are set beside those its contents imply."""
from __future__ import annotations

import math

import numpy as np

from ctxbench.core import model
from ctxbench.core.model import Result
from ctxbench.peers import catalogue, parts
from ctxbench.stats import resample
from ctxbench.stats.launches import interval as launch_interval
from ctxbench.records import RECORDS

AGREE = 0.10            # the issue's tolerance: within 10% of ctxbench's figure, or of its parts' sum
MIN_ROUNDS = 5          # fewer rounds' bootstrap is the range of a few ratios, not an interval
SWITCH_TOLERANCE = 0.10  # the peer's switches per op against its contents (setup switches are a few per launch)
# An unpinned launch ran on one CPU when one CPU did this share of the busy time of all and was busy for at
# least ONE_CPU_BUSY of the launch: a cross-CPU ping-pong leaves both CPUs mostly idle and alike, two tasks
# that the scheduler kept together keep one CPU busy throughout and the others idle.
ONE_CPU_SHARE = 0.9
ONE_CPU_BUSY = 0.5


def one_cpu(busy: list, wall_s: float) -> bool | None:
    """Whether a launch's tasks ran on one CPU (busy: each CPU's busy
    seconds over the launch); None where it cannot say."""
    if len(busy) < 2 or any(b is None for b in busy) or wall_s <= 0:
        return None
    total, top = sum(busy), max(busy)
    if total <= 0:
        return None
    return top >= ONE_CPU_SHARE * total and top >= ONE_CPU_BUSY * wall_s


def record(peer: catalogue.Peer, placement: str, launches: list[dict], version: str) -> dict:
    """The raw row from its launches: [{round, argv, cpus, per_op_ns,
    ops, wall_s, voluntary, involuntary, said, parts: {name: ns}}]."""
    view = peer.views[placement]
    rounds = [int(x["round"]) for x in launches]
    conv = [float(x["per_op_ns"]) / peer.units for x in launches]

    def series(fn) -> list:
        out = []
        for x in launches:
            v = fn(x["parts"])
            out.append(float(v) if v is not None and math.isfinite(v) else None)
        return out

    match = series(lambda p: p.get(view.match) if view.match else None)
    sw = [((x["voluntary"] + x["involuntary"]) / x["ops"]) if x["ops"] and x["voluntary"] is not None else None
          for x in launches]
    pred = []
    for x, s in zip(launches, sw):
        base = parts.combine(view.predict, x["parts"]) if view.predict else None
        extra = parts.combine(view.switch_parts, x["parts"]) if view.switch_parts else 0.0
        pred.append(None if base is None or extra is None or (view.switch_parts and s is None)
                    else base + (s or 0.0) * extra / peer.units)
    last = launches[-1]
    return {
        "id": f"peers/{peer.key}/{placement}", "quantity": "peer", "unit": "ns",
        "doc": f"{peer.title}, {placement}: ns per {peer.unit} ({peer.op})",
        "params": {"peer": peer.key, "title": peer.title, "placement": placement, "label": view.label,
                   "version": version, "argv": list(last["argv"]), "cpus": list(last["cpus"]),
                   "count": int(last.get("count") or 0), "op": peer.op, "contents": dict(peer.contents),
                   "units_per_op": peer.units, "per": peer.unit, "match": view.match,
                   "match_name": parts.NAMES.get(view.match or "", None),
                   "predict": [[c, n] for c, n in view.predict], "switch_parts": [[c, n] for c, n in view.switch_parts],
                   "switches_per_op_expected": view.switches_per_op, "why": view.why,
                   "placement_seen": view.placement_seen, "scale_only": view.scale_only,
                   "said": [x["said"] for x in launches]},
        "samples": conv, "group": rounds,
        "raw": {"per_op_ns": [float(x["per_op_ns"]) for x in launches], "ops": [float(x["ops"]) for x in launches],
                "wall_s": [float(x["wall_s"]) for x in launches],
                "voluntary": [x["voluntary"] for x in launches],  # None: not counted (an engine id)
                "involuntary": [x["involuntary"] for x in launches],
                "match_ns": match, "predicted_ns": pred,
                # per launch and CPU of params.cpus, flattened (len(cpus) numbers a launch): where it ran
                "cpu_busy_s": [b for x in launches for b in x.get("cpu_busy_s") or [None] * len(x["cpus"])]},
        "warnings": []}


def _ratio(num: list, den: list) -> dict | None:
    """The median of the rounds' ratios num / den, over the rounds where
    both are known, with a percentile bootstrap of whole rounds.

    Each ratio is taken within a round, so the host's drift between rounds
    cancels in it. The median, not the ratio of sums or a mean: this
    guest's host slows it for windows of tens to hundreds of milliseconds,
    and a window hits one side of a round and not the other. In such a
    window every syscall loop slows by a third (ctxbench's t_single with
    its t_switch), and so does the probe's branchy walk, while the add
    chain does not: contention for the core's caches from outside the
    guest, not its clock (docs/peers.md). A sum carries such a round in
    full; the median does not."""
    q = [a / b for a, b in zip(num, den) if a is not None and b is not None and math.isfinite(a)
         and math.isfinite(b) and b > 0]
    if not q:
        return None
    x = np.array(q, dtype=float)
    est = float(np.median(x))
    if x.size < 2:
        return {"point": est, "statistic": "median", "ci95": None, "rounds": 1, "method": RATIO_METHOD}
    lo, hi = resample.interval(resample.medians(x, resample.generator()))
    return {"point": est, "statistic": "median", "ci95": [lo, hi], "rounds": int(x.size), "method": RATIO_METHOD}


RATIO_METHOD = ("the median of the rounds' ratios, with a 95% percentile bootstrap of whole rounds "
                f"({resample.RESAMPLES} resamples, seed {resample.SEED})")


def _interval(xs: list[float]) -> dict | None:
    if not xs:
        return None
    iv = launch_interval(xs)
    if iv is None:  # one round: the value, no interval
        return {"point": float(xs[0]), "statistic": "mean", "ci95": None, "rounds": 1}
    return {"point": iv["mean"], "statistic": "mean", "ci95": [float(v) for v in iv["ci95"]], "rounds": iv["launches"], "sd": iv["sd"]}


def _inside(iv: dict) -> bool:
    lo, hi = iv["ci95"]
    return 1 - AGREE <= lo and hi <= 1 + AGREE


def _outside(iv: dict) -> bool:
    lo, hi = iv["ci95"]
    return hi < 1 - AGREE or lo > 1 + AGREE


def verdict(ratio: dict | None, explained: dict | None, adds: bool, has_match: bool,
            scale_only: bool) -> tuple[str, str | None]:
    """(verdict, why it is not resolved): an equivalence judgement on the
    intervals, not on the point estimates. A ratio "agrees" when its whole
    95% interval lies within 1 +- AGREE; a difference is claimed when the
    interval lies wholly outside; an interval across the band's edge, or
    from fewer than MIN_ROUNDS rounds, cannot tell (know your power)."""
    if ratio is None:
        return ("no ctxbench equivalent" if not has_match else "no ctxbench figure this run"), None
    if scale_only:
        return "no ctxbench equivalent (shown for scale)", None
    if not ratio.get("ci95") or ratio["rounds"] < MIN_ROUNDS:
        return "not resolved", (f"{ratio['rounds']} round(s): an interval needs {MIN_ROUNDS} at least (--rounds)")
    if _inside(ratio):
        return "agrees", None
    if adds and explained and explained.get("ci95") and _inside(explained):
        return "accounted for", None
    if _outside(ratio) and (not adds or (explained and explained.get("ci95") and _outside(explained))):
        return ("not accounted for" if adds else "differs (no part accounts for it)"), None
    return "not resolved", (f"an interval crosses the edge of ±{AGREE:.0%}: more rounds (--rounds) are needed "
                            "to tell agreement from a difference of that size")


def comparison(r: dict) -> dict:
    """The row's comparison with ctxbench, from its raw per-round numbers:
    made when the row is measured and kept in it (`comparison`), made
    again only by reanalyse (judged)."""
    v = Result(r)
    conv = [float(x) for x in v.samples]
    match = [float(x) if math.isfinite(x) else None for x in v.raw("match_ns")]
    pred = [float(x) if math.isfinite(x) else None for x in v.raw("predicted_ns")]
    ratio = _ratio(conv, match)
    explained = _ratio(conv, pred)
    # whether the prediction adds a part to the match (else it is the match, and cannot account for a difference)
    adds = bool(v.params.get("switch_parts")) or \
        [n for _, n in v.params.get("predict") or []] not in ([], [v.params.get("match")])
    sw = [(a + b) / n for a, b, n in zip(v.raw("voluntary"), v.raw("involuntary"), v.raw("ops"))
          if n and math.isfinite(a + b)]
    expected = v.params.get("switches_per_op_expected")
    cpus = v.params.get("cpus") or []
    busy = list(v.raw("cpu_busy_s"))
    walls = list(v.raw("wall_s"))
    if v.params.get("label") == catalogue.CROSS_CPU and v.params.get("placement_seen") is not False \
            and len(cpus) >= 2 and len(busy) == len(cpus) * len(walls):
        kinds = [one_cpu([None if not math.isfinite(b) else b for b in busy[i * len(cpus):(i + 1) * len(cpus)]], w)
                 for i, w in enumerate(walls)]
        one_cpu_rounds = sum(1 for k in kinds if k)
    else:
        kinds, one_cpu_rounds = [], None
    out = {"converted": _interval(conv), "match": _interval([m for m in match if m is not None]),
           "predicted": _interval([p for p in pred if p is not None]), "ratio": ratio, "explained": explained,
           "switches_per_op": float(np.median(sw)) if sw else None, "switches_per_op_expected": expected,
           "tolerance": AGREE, "one_cpu_rounds": one_cpu_rounds, "rounds_judged": sum(1 for k in kinds if k is not None)}
    if sw and isinstance(expected, (int, float)):
        got = out["switches_per_op"]
        out["switches_ok"] = abs(got - expected) <= max(SWITCH_TOLERANCE * expected, 0.05)
    out["verdict"], why = verdict(ratio, explained, adds, bool(v.params.get("match")),
                                  bool(v.params.get("scale_only")))
    if why:
        out["resolution"] = why
    return out


# the warnings judged() makes of a row's comparison (a row judged again loses the ones it had)
JUDGED_WARNINGS = ("peer_switches", "peer_one_cpu")


def judged(r):
    """An analysed row with its comparison, from its per-round numbers,
    and the warnings the comparison makes: what the command keeps when it
    measures, and what reanalyse makes again of a row analysed again."""
    c = comparison(r)
    v = Result(r)
    warnings = v.warnings_stored(*JUDGED_WARNINGS)
    if c.get("switches_ok") is False:
        warnings.append(model.warning(
            "peer_switches", f"{c['switches_per_op']:.2f} switches per op counted in the peer's processes, where "
                             f"one op ({v.params.get('op')}) holds {c['switches_per_op_expected']:g}: it did not do "
                             "what its docs say here", got=c["switches_per_op"], expected=c["switches_per_op_expected"]))
    if c.get("one_cpu_rounds"):
        warnings.append(model.warning(
            "peer_one_cpu", f"in {c['one_cpu_rounds']} of {c['rounds_judged']} rounds the peer's tasks ran on one "
                            "CPU (one CPU busy throughout, the others idle): those rounds measured a same-CPU "
                            "switch, not a cross-CPU wake-up, and the row mixes the two",
            rounds=c["one_cpu_rounds"], judged=c["rounds_judged"]))
    return model.with_members(r, comparison=c, warnings=warnings)


def row(peer: catalogue.Peer, placement: str, launches: list[dict], version: str) -> dict:
    """The analysed row: model.analyse's summary of the converted numbers
    (one per round), its comparison and the warnings that makes."""
    return judged(dict(model.results.plain(model.analyse(record(peer, placement, launches, version), RECORDS.Result))))
