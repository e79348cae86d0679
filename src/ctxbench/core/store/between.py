"""What earlier runs of this host say about the next one (issue 32): how
far an id's median has moved between runs here, in ns and in core cycles,
and how fast this host's core clock has run. A run's own interval holds
what moved within it; on a shared host the clock the host gives a run
moves every id by 10-15% between runs, which no single run can see. The
store's earlier runs of the same host, kernel and command can."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sqlalchemy import select

from ctxbench.core.store.tables import results, runs
from ctxbench.stats.numbers import is_finite

LAST_RUNS = 30  # the most recent runs that speak for "another run here"
MIN_RUNS = 2    # fewer earlier runs: nothing said about the spread


@dataclass(frozen=True)
class Spread:
    runs: int            # earlier runs of this host with the id
    ns: float            # sd of log(median) between them: a relative sd
    cycles: float        # the same in core cycles (nan where they have none)
    tau_ns: float = math.nan      # the between-run part of `ns`: what a run's own interval cannot hold
    tau_cycles: float = math.nan  # the same in cycles


def between_part(rows: list[tuple]) -> float:
    """The relative sd between runs beyond what each run's own interval
    holds, from (median, ci_lo, ci_hi) rows: the variance of the log
    medians less the runs' mean own variance (their 95% intervals' half
    widths / 1.96, relative), 0 where the runs agree within their own
    error (the method of moments behind a random-effects pool); nan
    under MIN_RUNS."""
    ok = [(m, lo, hi) for m, lo, hi in rows if is_finite(m) and is_finite(lo) and is_finite(hi) and m > 0 and hi >= lo]
    if len(ok) < MIN_RUNS:
        return math.nan
    own = float(np.mean([((hi - lo) / 2 / 1.959963984540054 / m) ** 2 for m, lo, hi in ok]))
    total = float(np.var(np.log([m for m, _, _ in ok]), ddof=1))
    return math.sqrt(max(total - own, 0.0))


@dataclass(frozen=True)
class HostSpeed:
    runs: int            # earlier runs of this host with a core clock
    fastest_ghz: float
    median_ghz: float


def rel_sd(values: list[float]) -> float:
    """The sd of the logs of positive values (a relative sd); nan under MIN_RUNS."""
    x = np.array([v for v in values if is_finite(v) and v > 0], dtype=float)
    return float(np.std(np.log(x), ddof=1)) if x.size >= MIN_RUNS else math.nan


def _runs(conn, host: str, kernel: str | None, command: str | None):
    q = select(runs.c.id).where(runs.c.host == host)
    if kernel:
        q = q.where(runs.c.kernel == kernel)
    if command:
        q = q.where(runs.c.command == command)
    return list(conn.execute(q.order_by(runs.c.started.desc(), runs.c.id.desc()).limit(LAST_RUNS)).scalars())


def spreads(conn, host: str, kernel: str | None, command: str | None, keys: list[str]) -> dict[str, Spread]:
    """Per point key: the spread of its medians over this host's last
    LAST_RUNS runs of the command on the kernel, in ns and in cycles."""
    ids = _runs(conn, host, kernel, command)
    if not ids:
        return {}
    q = (select(results.c.point_key, results.c.median, results.c.ci_lo, results.c.ci_hi, results.c.cycles_median,
                results.c.cycles_ci_lo, results.c.cycles_ci_hi)
         .where(results.c.run_id.in_(ids)).where(results.c.point_key.in_(keys)))
    by: dict[str, list[tuple]] = {}
    for key, *row in conn.execute(q).all():
        by.setdefault(key, []).append(tuple(row))
    return {k: Spread(len(v), *(_bounded(x) for x in (rel_sd([r[0] for r in v]), rel_sd([r[3] for r in v]),
                                                      between_part([r[:3] for r in v]),
                                                      between_part([r[3:] for r in v]))))
            for k, v in by.items()}


def _bounded(rel: float) -> float:
    """A relative sd between runs, nan beyond any host's (a damaged store's
    medians): the run neither widens by it nor records it (stats/drift.MAX_REL_SD)."""
    from ctxbench.stats.drift import MAX_REL_SD
    return rel if 0 <= rel <= MAX_REL_SD else math.nan


def doc_ghz(doc: dict) -> float | None:
    """The core clock a run got: the median of its results' clocks."""
    from ctxbench.core.model import Document
    ghz = [r.cycles.ghz for r in Document(doc).results if math.isfinite(r.cycles.ghz)]
    return float(np.median(ghz)) if ghz else None


def fastest_recorded(store_flag: str | None, hosts: set[str]) -> dict[str, float]:
    """{host: the fastest core clock the store has recorded for it}, from a
    store that exists (a reader never creates one); {} where there is none
    or it cannot be read."""
    from ctxbench.core.errors import UserError
    from ctxbench.core.store import db
    try:
        store = db.existing(store_flag)
        if store is None:
            return {}
        with store.begin() as conn:
            out = {}
            for h in hosts:
                s = host_speed(conn, h)
                if s:
                    out[h] = s.fastest_ghz
            return out
    except UserError:
        return {}


def host_speed(conn, host: str) -> HostSpeed | None:
    """This host's recorded core clocks: the fastest and the median."""
    ghz = [float(g) for g in conn.execute(select(runs.c.core_ghz).where(runs.c.host == host)
                                          .where(runs.c.core_ghz.is_not(None))).scalars() if is_finite(g) and g > 0]
    return HostSpeed(len(ghz), max(ghz), float(np.median(ghz))) if ghz else None


@dataclass(frozen=True)
class HostBest:
    runs: int                # earlier runs of this host with the sensors
    ns: dict[str, float]     # sensor -> the least (the best) it read over them, ns


def host_best(conn, host: str, same: dict[str, str | None]) -> HostBest | None:
    """The best (least) reading of each sensor this host has recorded
    (core/host_state.py), over its runs with the sensors on the same
    kernel, mitigations, microcode and CPU (`same`: runs' columns and their
    values): on another kernel the system call's path is another's."""
    from ctxbench.core import host_state
    q = select(*(runs.c[f"{k}_ns"] for k in host_state.NAMES)).where(runs.c.host == host)
    for col, value in same.items():
        q = q.where(runs.c[col] == value if value is not None else runs.c[col].is_(None))
    rows = conn.execute(q.where(runs.c.syscall_ns.is_not(None))).all()
    best, used = {}, 0
    for k, values in zip(host_state.NAMES, zip(*rows)):
        ok = [float(v) for v in values if host_state.plausible_ns(v)]
        used = max(used, len(ok))
        if ok:
            best[k] = min(ok)
    return HostBest(used, best) if best else None
