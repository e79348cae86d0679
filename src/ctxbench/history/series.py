"""The runs of one id as a series, read from the results store: one point
per run (its time, host, kernel, versions, commit, median and interval),
filtered by host, kernel and date, split by host (a series that mixes
machines shows the machines, not a change)."""
from __future__ import annotations

import datetime
import fnmatch
from dataclasses import dataclass, replace

from sqlalchemy import select

from ctxbench.core import host_state
from ctxbench.core.store import query
from ctxbench.core.store.tables import results, runs


@dataclass(frozen=True)
class Point:
    run_id: int
    started: datetime.datetime | None
    host: str
    cpu_model: str
    microcode: str
    kernel: str
    mitigations: str
    runtime_version: str
    ctxbench_version: str
    git_commit: str
    median: float
    ci_lo: float | None
    ci_hi: float | None
    mde: float | None
    ok: bool | None
    unit: str
    cycles_median: float | None = None
    cycles_ci_lo: float | None = None
    cycles_ci_hi: float | None = None
    cycles_mde: float | None = None
    core_ghz: float | None = None
    # the host's sensors while the run ran (core/host_state.NAMES, ns; None: not timed), issue 48
    sensors: tuple = ()

    def key(self, by: str) -> str:
        """The point's value of the --by key (time is its date and time)."""
        if by == "time":
            return self.started.isoformat(sep=" ", timespec="minutes") if self.started else "?"
        return str(getattr(self, by) or "?")


@dataclass(frozen=True)
class Filters:
    host: str | None = None
    kernel: str | None = None
    since: str | None = None    # as given: a date names its whole day (core/store/query.py)
    until: str | None = None


UNITS = ("auto", "cycles", "ns")


def in_unit(points: list[Point], unit: str) -> list[Point]:
    """The points in `unit`: "ns" as stored, "cycles" with the median,
    interval and MDE in core cycles (every point must have them), "auto"
    in cycles where every point has them (the host's clock, which moves
    between runs, taken out), else in ns."""
    has = bool(points) and all(p.cycles_median is not None for p in points)
    if unit == "ns" or (unit == "auto" and not has):
        return points
    if not has:
        return []
    return [replace(p, median=p.cycles_median, ci_lo=p.cycles_ci_lo, ci_hi=p.cycles_ci_hi, mde=p.cycles_mde,
                    unit="cycles") for p in points]


def ids_matching(conn, patterns: list[str]) -> list[str]:
    """Point keys that match any pattern (shell-style: `kernel/*/pipe/*`)."""
    keys = conn.execute(select(results.c.point_key).distinct()).scalars().all()
    return sorted(k for k in keys if any(fnmatch.fnmatchcase(k, p) for p in patterns))


def load(conn, point_key: str, f: Filters) -> dict[str, list[Point]]:
    """{host: points in time order} for one id."""
    q = (select(runs.c.id, runs.c.started, runs.c.host, runs.c.cpu_model, runs.c.microcode, runs.c.kernel,
                runs.c.mitigations, runs.c.ctxbench_version, runs.c.git_commit, runs.c.core_ghz,
                results.c.runtime_version, results.c.median, results.c.ci_lo, results.c.ci_hi, results.c.mde,
                results.c.ok, results.c.unit, results.c.cycles_median, results.c.cycles_ci_lo,
                results.c.cycles_ci_hi, results.c.cycles_mde, *(runs.c[f"{k}_ns"] for k in host_state.NAMES))
         .join(results, results.c.run_id == runs.c.id).where(results.c.point_key == point_key))
    if f.host is not None:
        q = q.where(query.matches(conn, runs.c.host, f.host))
    if f.kernel is not None:
        q = q.where(query.matches(conn, runs.c.kernel, f.kernel))
    if f.since:
        q = q.where(query.since(runs.c.started, f.since))
    if f.until:
        q = q.where(query.until(runs.c.started, f.until))
    out: dict[str, list[Point]] = {}
    for r in conn.execute(q.order_by(runs.c.started, runs.c.id)).all():
        if r.median is None:
            continue
        out.setdefault(r.host or "?", []).append(Point(
            r.id, r.started, r.host or "?", r.cpu_model or "?", r.microcode or "?", r.kernel or "?",
            r.mitigations or "", r.runtime_version or "", r.ctxbench_version or "", r.git_commit or "",
            float(r.median), r.ci_lo, r.ci_hi, r.mde, r.ok, r.unit or "ns", r.cycles_median, r.cycles_ci_lo,
            r.cycles_ci_hi, r.cycles_mde, r.core_ghz, tuple(r[-len(host_state.NAMES):])))
    return out


def host_moved(points: list[Point]) -> list[str]:
    """Per point, the sensors that read at least host_state.MOVED slower
    than the best of the series' runs on the same kernel, mitigations,
    microcode and CPU ("kernel entry and exit +37%"), "" where none: a
    point the host's state moved, not the code. On another kernel the
    system call's path is another's, so runs there are not held against it."""
    def same(p: Point) -> tuple:
        return p.kernel, p.mitigations, p.microcode, p.cpu_model

    def reading(p: Point, i: int):
        x = p.sensors[i] if len(p.sensors) > i else None
        return float(x) if host_state.plausible_ns(x) else None

    best: dict[tuple, float] = {}
    for p in points:
        for i in range(len(host_state.NAMES)):
            x = reading(p, i)
            if x is not None:
                best[(same(p), i)] = min(x, best.get((same(p), i), x))
    out = []
    for p in points:
        said = [f"{host_state.WHAT[k]} {x / best[(same(p), i)] - 1:+.0%}" for i, k in enumerate(host_state.NAMES)
                if (x := reading(p, i)) is not None and x / best[(same(p), i)] - 1 >= host_state.MOVED]
        out.append("; ".join(said))
    return out
