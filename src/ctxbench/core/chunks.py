"""The engine's chunk timing of tasks/ and irq/ runs (engine/src/core/
chunks.h), read: per run that had a reference, each role's reduction of its
chunks paired with the reference run's, per event (a switch-in, a signal).

    excess   per event: the sum over its first W chunks of (t - t_ref) minus
             the same over its last W (W = min(half the event, the cap))
    whole    per event: the sum over all its chunks
    tail     per event: the last W chunks' excess per chunk
    gap      per event: the time from the last chunk before it to its first
    curve    per bucket of positions since the event: the excess per chunk

Each as the engine located it over the run's events (mean, a trimmed mean
`tmean`, median): the front end uses the trimmed mean, the engine's
`trim` at each end, so that the few events a host stall or a tick hit are
set aside within a run; rounds are then combined robustly
(stats.robust). Runs the verification dropped are left out here."""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ctxbench.core import model

STAT = "tmean"  # the location over a run's events the analyses use
# A number a clock can have measured (the results model's bound on samples): beyond it a value is
# a damaged file's, read as missing, so that no arithmetic on it overflows
MEASURABLE = 2.0 ** 63


def _number(v) -> float:
    if isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) <= MEASURABLE:
        return float(v)
    return math.nan


def ratio(a: float, b: float) -> float:
    """a / b, nan where b is 0 or either is not a number (a damaged record's)."""
    return a / b if math.isfinite(a) and math.isfinite(b) and b != 0 else math.nan


class RoleRun(NamedTuple):
    """One role's reduction in one run (a dict as the engine wrote it)."""
    group: int
    key: int          # tasks: n; irq: the rate in Hz
    role: str
    task: str
    s: dict

    def loc(self, name: str, stat: str | None = None) -> float:
        d = self.s.get(name)
        return _number(d.get(stat or STAT) if isinstance(d, dict) else None)

    def num(self, name: str) -> float:
        """A number of the reduction (chunk_ns, ref_chunk_ns, ...), nan if not one."""
        return _number(self.s.get(name))

    @property
    def events(self) -> int:
        v = self.s.get("events")
        return v if isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MEASURABLE else 0

    def curve(self, name: str | None = None) -> np.ndarray:
        c = (self.s.get("curve") or {}).get(name or STAT)
        return _nums(c if isinstance(c, list) else [])


def describe(result) -> dict:
    """The record's constants (clock, tick_ns, trim, window_max, bucket_lo, ...)."""
    return {k: v for k, v in model.Result(result).chunks.items() if k != "runs"}


def _kept_keys(result, key_name: str) -> set:
    """The (group, key, index in group) of the runs the verification kept."""
    r = model.Result(result)
    g = r.groups
    if g is None:
        return set()
    keys = r.raw("n" if key_name == "n" else "rate_hz")
    if keys.size != len(g):
        keys = np.full(len(g), float(r.params.get("n") or 1))
    seen: dict[int, int] = {}
    out = set()
    for x, k, keep in zip(g, keys, r.keep):
        i = seen.get(int(x), 0)
        seen[int(x)] = i + 1
        if keep:
            out.add((int(x), int(k), i))
    return out


def runs(result, round0: int = 0, kept_only: bool = True) -> list[RoleRun]:
    """Every role's reduction of the result's kept runs, rounds numbered from
    round0 (irq's later engine runs continue the first one's rounds);
    `kept_only` False: the runs of the rounds the result holds (a derived
    point keeps only its kept runs' records, and its rounds: a record of
    another round is a damaged file's, left out)."""
    ch = model.Result(result).chunks
    key_name = str(ch.get("key") or "n")
    kept = _kept_keys(result, key_name) if kept_only else set()
    own = {int(g) for g in model.Result(result).rounds if _is_int(g)}
    kept_gk = {(g, k) for g, k, _ in kept}
    out = []
    for x in ch.get("runs") if isinstance(ch.get("runs"), list) else []:
        # a record as the engine writes it, or nothing: a damaged file's runs are left out, not a traceback
        if not isinstance(x, dict) or not all(_is_int(x.get(k)) for k in ("group", key_name)):
            continue
        g, k = int(x["group"]), int(x[key_name])
        i = x.get("sample")  # irq: the run's index in its round; tasks: one run per n and round
        ok = (g, k, int(i)) in kept if isinstance(i, int) else (g, k) in kept_gk
        if (kept_only and not ok) or (not kept_only and g not in own):
            continue
        for ro in x.get("roles") if isinstance(x.get("roles"), list) else []:
            if isinstance(ro, dict) and isinstance(ro.get("curve", {}), dict):
                out.append(RoleRun(g + round0, k, str(ro.get("role")), str(ro.get("task")), ro))
    return out


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def bucket_lo(result) -> list[int]:
    lo = describe(result).get("bucket_lo")
    return [int(x) for x in lo if _is_int(x)] if isinstance(lo, list) else []


def _nums(xs) -> np.ndarray:
    xs = xs if isinstance(xs, list) else []
    return np.array([_number(v) for v in xs], dtype=float)


def curve_rounds(runs: list[RoleRun], at_event: dict | None = None) -> tuple[dict, np.ndarray, np.ndarray]:
    """The runs' curves per round: each run's excess per chunk by bucket
    above its far baseline (its tail per chunk), the runs of one round
    pooled by their events; `at_event` (round -> ns) is taken from the
    first bucket (irq: D, what the signal itself costs). Also each
    bucket's time since the event (the middle of its chunks, in the
    reference run's time: the task's own work, the event's costs left
    out) and its mean chunk, over all runs."""
    nb = max((len(r.curve()) for r in runs), default=0)
    xs, tn, ws = np.zeros(nb), np.zeros(nb), np.zeros(nb)
    by_round: dict[int, list] = {}
    for r in runs:
        c = r.curve() - r.loc("tail")
        cu = r.s.get("curve") or {}
        x, t, cnt = _nums(cu.get("x_ns")), _nums(cu.get("t_ns")), _nums(cu.get("chunks"))
        m = min(len(c), len(x), len(t), len(cnt))
        mid = x[:m] + t[:m] / 2
        ok = np.isfinite(mid) & np.isfinite(cnt[:m])
        xs[:m][ok] += (mid * cnt[:m])[ok]
        tn[:m][ok] += (t[:m] * cnt[:m])[ok]
        ws[:m][ok] += cnt[:m][ok]
        cc = np.full(nb, math.nan)
        cc[:len(c)] = c
        by_round.setdefault(r.group, []).append((r.events, cc))
    per_round = {}
    for g, lst in by_round.items():
        w = np.array([np.where(np.isfinite(cc), e, 0.0) for e, cc in lst], dtype=float)
        v = np.array([np.nan_to_num(cc) for _, cc in lst])
        with np.errstate(all="ignore"):
            pr = (w * v).sum(axis=0) / w.sum(axis=0)
        if at_event is not None and nb:
            pr[0] -= at_event.get(g, math.nan)
        per_round[g] = pr
    with np.errstate(all="ignore"):
        return per_round, np.where(ws > 0, xs / ws, math.nan), np.where(ws > 0, tn / ws, math.nan)


def record(runs_: list[RoleRun], about: dict) -> dict:
    """The engine's record again, of these runs (a derived point keeps its
    own: irq's points, so that `ctxbench reanalyse` derives it again from the file)."""
    key = str(about.get("key") or "n")
    return dict(about, runs=[{"group": r.group, key: r.key, "roles": [r.s]} for r in runs_])
