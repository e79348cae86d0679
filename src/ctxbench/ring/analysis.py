"""The ring's arithmetic on one interleaved run (every ring point and the
two-party ping-pong of each kind x mechanism measured group by group: group
g of every job is round g).

- A point's own value is its median cost per hand-off; its interval is
  the one that holds another run's median (model.apply_next_run,
  stats/drift.py): whole rounds resampled, the drift common to every point
  and the point's own drift, for two runs, not one.
- `rounds.paired_difference(a, b)`: a - b from the rounds both were
  measured in, as a power.effect (interval over rounds, MDE). It is the
  N = 2 check (ring minus the ping-pong of the same mechanism: 0 if the
  ring generalises the ping-pong), each point's cost above the ping-pong,
  and the known answer (the spinning ring minus the plain one).
- `paired_twin(a, b)`: the same difference with its twin in core cycles
  (each sample's ns times its group's f, the engine's core-clock probe;
  the ring's group and the ping-pong's of one round are timed apart, each
  with its own clock), and the unit its verdict uses: the one whose MDE is
  smaller (core/cycles.py `twin`).
- `derived(results)`: all the ring derives from its analysed results (each
  point's `above_pingpong`, the N = 2 checks), one function for the
  command when it measures and for `ctxbench reanalyse` (reanalysis.py);
  `above_phrase` and `n2_cells` say them as the command prints them, and
  the report and reanalyse's notes say them so too.
"""
from __future__ import annotations

import math

import numpy as np

from ctxbench.core import cycles
from ctxbench.core.model import Result, with_members
from ctxbench.rounds import paired_difference
from ctxbench.stats import power
from ctxbench.ui.format import fmt_time
from ctxbench.ui.twin import fmt_twin, mde_note, short_note

# |ring / ping-pong - 1| above this at N = 2 is a failed check: the ring at
# N = 2 makes the ping-pong's system calls and switches, and nothing else.
N2_TOLERANCE = 0.10


def pingpong_id(kind: str, mechanism: str) -> str:
    return f"kernel/{kind}/{mechanism}/same-cpu"


def _key(r: dict) -> tuple:
    p = Result(r).params
    return str(p.kind), str(p.mechanism)


EFFECT_KEYS = ("estimate_ns", "ci95", "se_ns", "mde_ns", "resolved", "below_mde", "df")
TWIN_KEYS = ("cycles", "cycles_why", "ghz", "mde_ratio", "unit")


def paired_twin(a: dict, b: dict) -> dict:
    """a - b per round, in ns (rounds.paired_difference: with the ratio of
    the medians) and in core cycles (the rounds' medians of each sample's
    cycles, the same rounds), as one record (core/cycles.py twin)."""
    e = paired_difference(a, b)
    va, vb = Result(a), Result(b)
    cyc, why = None, cycles.NO_PROBE
    if va.cycles.applies and vb.cycles.applies:
        ra, rb = va.round_medians(va.cycles.samples), vb.round_medians(vb.cycles.samples)
        common = sorted(set(ra) & set(rb))
        cyc = power.paired_mean([ra[g] - rb[g] for g in common], clusters=common)
        why = ""
    else:
        why = va.cycles.why or vb.cycles.why or why
    ghz = cycles.run_ghz([cycles.group_clock(cycles.probe_of(x)) for x in (a, b)])
    return cycles.twin(e, cyc, ghz, why)


def rings(results: list[dict]) -> list[dict]:
    return [r for r in results if Result(r).id.startswith("ring/")]


def n2_checks(results: list[dict]) -> list[dict]:
    """Per kind x mechanism: the ring at N = 2, footprint 0, against the
    ping-pong measured in the same rounds."""
    refs = {_key(r): r for r in results if Result(r).id.startswith("kernel/")}
    out = []
    for r in rings(results):
        p = Result(r).params
        if p.parties != 2 or p.footprint != 0 or _key(r) not in refs:
            continue
        ref = refs[_key(r)]
        e = paired_twin(r, ref)
        ok = math.isfinite(e["ratio"]) and abs(e["ratio"] - 1) <= N2_TOLERANCE
        out.append({"kind": p.kind, "mechanism": p.mechanism, "ring_id": Result(r).id, "pingpong_id": Result(ref).id,
                    "ring_ns": Result(r).summary.median, "pingpong_ns": Result(ref).summary.median,
                    "difference": {k: e[k] for k in EFFECT_KEYS + TWIN_KEYS if k in e},
                    "ratio": e["ratio"], "ratio_ci95": e["ratio_ci95"], "rounds": e["rounds"],
                    "tolerance": N2_TOLERANCE, "ok": bool(ok)})
    return out


def with_above_pingpong(results: list[dict]) -> list[dict]:
    """The results, each ring point a new one with its cost above the
    ping-pong of its kind x mechanism (what N parties and their footprints
    add to a switch) as a paired effect, `above_pingpong`; `results` is
    not changed."""
    refs = {_key(r): r for r in results if Result(r).id.startswith("kernel/")}
    ring_points = {id(r) for r in rings(results)}
    out = []
    for r in results:
        ref = refs.get(_key(r)) if id(r) in ring_points else None
        if ref is not None:
            e = paired_twin(r, ref)
            r = with_members(r, above_pingpong={k: e[k] for k in EFFECT_KEYS + TWIN_KEYS + ("ratio", "ratio_ci95", "rounds")
                                        if k in e})
        out.append(r)
    return out


def derived(results: list) -> tuple[list, list[dict]]:
    """What `ring` derives from its analysed results (the drift applied):
    the results, each ring point a new one with its cost above the
    ping-pong (with_above_pingpong), and the N = 2 checks (n2_checks);
    `results` is not changed."""
    res = with_above_pingpong(results)
    return res, n2_checks(res)


def above_phrase(above: dict | None) -> tuple[str, str]:
    """A point's cost above the ping-pong as printed: the effect in the
    unit its verdict uses, and that unit ('-', '-' without one)."""
    return (fmt_twin(above), short_note(above)) if above else ("-", "-")


N2_HEADER = ("ring", "ping-pong", "ratio [95% CI]", "difference [95% CI]", "verdict")


def _ratio(x) -> str:
    return f"{x:.3f}" if isinstance(x, (int, float)) and math.isfinite(x) else "n/a"


def n2_cells(c: dict) -> list[str]:
    """One N = 2 check as printed (N2_HEADER): both medians, the ratio
    with its interval, the difference (and the unit of its verdict), the
    verdict; 'n/a' for what it lacks (nan is null in a file)."""
    lo, hi = c.get("ratio_ci95") or (None, None)
    d = c.get("difference")
    tol = c.get("tolerance", N2_TOLERANCE)
    return [fmt_time(c.get("ring_ns")), fmt_time(c.get("pingpong_ns")),
            f"{_ratio(c.get('ratio'))} [{_ratio(lo)}, {_ratio(hi)}]",
            f"{fmt_twin(d)} ({mde_note(d)})" if isinstance(d, dict) else "n/a",
            "ok" if c.get("ok") else f"FAILED (more than {tol:.0%} apart)"]


def settle_record(results: list[dict]) -> dict:
    """How the groups started: the wait for a quiet CPU (engine --settle-us)
    over every group of every job."""
    waited, quiet, sw, gaps = [], [], 0, 0
    for r in results:
        s = Result(r).settle
        if s is None:
            continue
        waited += [float(x) for x in s.get("waited_ns") or []]
        quiet += [bool(x) for x in s.get("quiet") or []]
        sw += sum(int(x) for x in s.get("switches") or [])
        gaps += sum(int(x) for x in s.get("gaps") or [])
    if not waited:
        return {"groups": 0}
    w = np.asarray(waited)
    return {"groups": int(w.size), "quiet": int(sum(quiet)), "waited_median_ns": float(np.median(w)),
            "waited_p90_ns": float(np.percentile(w, 90)), "waited_max_ns": float(w.max()),
            "switches_seen": sw, "gaps_seen": gaps}
