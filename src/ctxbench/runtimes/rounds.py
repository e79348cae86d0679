"""A runtimes run in rounds: every harness and the engine's reference rows
measured a few groups at a time, round after round, so that each row's
groups are spread over the whole run.

Why: on a shared host the speed drifts between two levels for tens of
seconds at a time (a Go channel hand-off read 156 ns in one run and 293 ns
in the next, pinned, each run's interval a few percent wide). A harness
that measured all its groups in one stretch lands wholly in one level; the
engine interleaves its ids group by group for the same reason, but a
harness is another process and its start-up (a JVM) is too dear to pay per
group, so the front end interleaves whole harness runs instead. The
groups of each round keep their own numbers (round r's group g is
r * per_round + g), so the interval over groups resamples rounds too."""
from __future__ import annotations

import math

import numpy as np

from ctxbench.core import model
from ctxbench.core.model import Result


def split(groups: int, rounds: int) -> list[int]:
    """Groups per round: `groups` over at most `rounds` rounds, as even as
    can be, every round at least one group."""
    rounds = max(1, min(rounds, groups))
    base, extra = divmod(groups, rounds)
    return [base + (1 if r < extra else 0) for r in range(rounds)]


def _key(r: dict) -> tuple[str, object]:
    return Result(r).id, Result(r).params.get("delay_ns")


def _renumbered(r: dict, offset: int) -> dict:
    groups = Result(r).groups
    return model.relabel_groups(r, lambda g: g + offset) if groups is not None and offset else r


def launches(r: dict, values: list[float] | None = None) -> list[list[float]]:
    """A merged record's group medians (of kept samples) by launch
    (params.launch_groups: the groups each launch measured, in order); one
    launch for a record measured once or written before rounds. `values`:
    the samples in another unit (core cycles), one per sample."""
    v = Result(r)
    xs = v.samples if values is None else values
    by: dict[int, list[float]] = {}
    for x, g, k in zip(xs, v.groups or [0] * len(xs), v.keep):
        if k and x is not None and math.isfinite(float(x)):
            by.setdefault(int(g), []).append(float(x))
    medians = {g: float(np.median(x)) for g, x in by.items()}
    widths = v.params.get("launch_groups")
    if not isinstance(widths, list) or len(widths) < 2:
        return [list(medians.values())] if medians else []
    out: list[list[float]] = []
    start = 0
    for w in widths:
        out.append([m for g, m in sorted(medians.items()) if start <= g < start + int(w)])
        start += int(w)
    return [x for x in out if x]


PER_LAUNCH = ("others_share", "machine_share", "launches_tried")  # params a launch sets, kept per launch in a merged record


def merge(rounds: list[list[dict]], per_round: list[int]) -> list[dict]:
    """One raw record per id (and delay) from the rounds' records: their
    samples appended in round order, groups renumbered after the rounds
    before. What differs per round is kept per round (the calibrated
    round trips per sample, JFR's pinned count summed); an id a round did
    not measure (spawn and memory are measured once) is simply shorter."""
    merged: dict[tuple, dict] = {}
    n_per_round: dict[tuple, list] = {}
    per_launch: dict[tuple, list] = {}
    offset = 0
    for records, width in zip(rounds, per_round):
        for r in records:
            k = _key(r)
            r = _renumbered(r, offset)
            n_per_round.setdefault(k, []).append(Result(r).params.get("n"))
            for name in PER_LAUNCH:
                per_launch.setdefault((k, name), []).append(Result(r).params.get(name))
            if k not in merged:
                merged[k] = r
                continue
            a = merged[k]
            out = model.append_samples(a, r)
            jfr = [Result(x).jfr for x in (a, r)]
            pinned = [x.get("virtual_thread_pinned") for x in jfr]
            if all(isinstance(p, int) for p in pinned):
                both = dict(jfr[0], virtual_thread_pinned=sum(pinned))
                cost = [x.get("ns_per_handoff_while_recording") for x in jfr]
                if all(isinstance(c, list) for c in cost):  # one per launch: what a recording costs
                    both["ns_per_handoff_while_recording"] = cost[0] + cost[1]
                out["jfr"] = both
            merged[k] = out
        offset += width
    out = []
    for k, r in merged.items():
        # which groups came from which launch: the rounds that measured it
        widths = [w for records, w in zip(rounds, per_round) if any(_key(x) == k for x in records)]
        params = dict(Result(r).params.items(), rounds=len(n_per_round[k]), launch_groups=widths)
        if Result(r).quantity == "handoff":
            params["n_per_round"] = n_per_round[k]
        for name in PER_LAUNCH:  # what the front end measured around each launch (contention.py)
            if any(x is not None for x in per_launch.get((k, name), [])):
                params[f"{name}_per_round"] = per_launch[(k, name)]
        out.append(model.with_members(r, params=params))
    return out
