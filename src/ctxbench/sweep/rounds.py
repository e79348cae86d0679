"""A sweep point measured over rounds: each round is one engine group of the
point, run by a separate engine process; the point's result holds all its
rounds, with `group` set to the round number, so that the results model
reads it as one result (summary, verification) and analysis.py pairs it
with its stride-0 reference round by round.
"""
from __future__ import annotations

from ctxbench.core import model

PER_SAMPLE = ("samples", "group", "sample_n")


def rounds_of(r: dict | None) -> set[int]:
    """The rounds a point was measured in."""
    g = model.Result(r).groups if r else None
    return set(int(x) for x in g) if g else set()


def merge(old: dict | None, raw: dict, round_no: int, cost_s: float) -> dict:
    """`raw` (one engine result, one group) as round `round_no` of the point,
    appended to `old` (the same point's earlier rounds, or None). Params,
    counters and timing are the first round's (n per sample in `sample_n`); `round_cost_s` lists what
    each round took (the allocation's cost)."""
    v = model.Result(raw)
    new = model.relabel_groups(raw, lambda g: round_no)
    new["group"] = [round_no] * len(v.samples)
    # n (messages per sample) is calibrated anew in every round: kept per sample
    new["sample_n"] = [v.params.get("n")] * len(v.samples)
    new["round_cost_s"] = [float(cost_s)]
    if not old:
        return new
    out = model.append_samples(old, new, PER_SAMPLE)
    out["round_cost_s"] = model.Result(old).round_cost_s + [float(cost_s)]
    if not model.Result(out).counters.get("available") and model.Result(new).counters:
        out["counters"] = model.Result(new).counters
    warns = model.Result(out).warnings_stored()
    out["warnings"] = warns + [w for w in model.Result(new).warnings_stored() if w not in warns]
    return out


def cost(r: dict | None) -> float | None:
    """Seconds one round of the point takes (median of its rounds)."""
    c = sorted(model.Result(r).round_cost_s if r else [])
    return c[len(c) // 2] if c else None
