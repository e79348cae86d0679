"""Per id, the change from one side to the other with its interval, and
each side's spread, as LKP's ncompare prints them (%change, %stddev).

The unit of resampling is what varies independently: with several runs on
a side, its runs (what moves between runs is carried, as
history --pool carries it); with one run, that run's groups (samples of one
group share one stretch of machine state), which holds what moved within
the run only. The change is new/base - 1 of the pooled medians; its
interval is the project's one method over units (stats.power.effect: the
bootstrap's standard error, Student's t on the smaller side's units - 1),
and its MDE is the smallest change this comparison resolves.

An id has a ratio only where it is a positive quantity on both sides: both
medians, and every resampled median, above 0, and the ratios within a
float's range (a median of 5e-324 against one of 9e18 has none). A baseline's residue after
the timer's overhead is subtracted (baseline/nop, baseline/call) has half
its samples at or below 0: no ratio (rel and its interval are nan, said
"n/a"), and the change is its difference, new - base, in the id's unit,
with its interval over the same resamples."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ctxbench.core.model import Document
from ctxbench.stats import power, resample

MIN_UNITS = 2


@dataclass(frozen=True)
class SideSamples:
    samples: np.ndarray
    units: np.ndarray           # the unit of each sample
    kind: str                   # "runs", "groups" or "samples"
    groups: tuple = ()          # the (run, group) of each sample, None where a file has no groups

    def group_medians(self) -> list[float]:
        """The median of each (run, group) of samples (the U test's units)."""
        by: dict = {}
        for x, g in zip(self.samples, self.groups):
            if g is not None:
                by.setdefault(g, []).append(x)
        return [float(np.median(v)) for v in by.values()]

    @property
    def count(self) -> int:
        return int(np.unique(self.units).size)

    def unit_medians(self) -> np.ndarray:
        return np.array([np.median(self.samples[self.units == u]) for u in np.unique(self.units)])

    def spread(self) -> float:
        """The sd of the units' medians over their mean (LKP's %stddev);
        nan with one unit, and where a unit's median is at or below 0 (a
        share of a mean near 0 is no spread)."""
        m = self.unit_medians()
        if m.size < 2 or not np.all(m > 0):
            return math.nan
        return float(np.std(m, ddof=1) / np.mean(m))


@dataclass(frozen=True)
class Change:
    base: float                 # pooled medians
    new: float
    rel: float                  # new / base - 1; nan where the id has no ratio
    ci: tuple[float, float]     # of rel, 95%
    mde: float                  # of rel: the smallest change the comparison resolves (80% power)
    df: int
    sd_base: float
    sd_new: float
    units: tuple[str, str]      # what was resampled on each side
    # where the id has no ratio: new - base in its unit, its 95% interval and MDE
    diff: float = math.nan
    diff_ci: tuple[float, float] = (math.nan, math.nan)
    diff_mde: float = math.nan

    @property
    def has_ratio(self) -> bool:
        return math.isfinite(self.rel)


def side_samples(docs: list[dict], unit: str = "ns") -> dict[str, SideSamples]:
    """{point key: kept finite samples of the side with their units}; with
    unit "cycles", of the results core cycles apply to in every run of the
    side, their samples in cycles (core/cycles.py)."""
    raw: dict = {}
    skip: set = set()
    for i, d in enumerate(docs):
        for r in Document(d).results:
            if unit == "cycles" and not r.cycles.applies:
                skip.add(r.point_key)
                continue
            xs = r.cycles.samples if unit == "cycles" else r.samples
            groups = r.groups or [None] * len(r.samples)
            for j, (x, g, k) in enumerate(zip(xs, groups, r.keep)):
                if k and isinstance(x, (int, float)) and math.isfinite(x):
                    raw.setdefault(r.point_key, []).append((float(x), i, g, j))
    out = {}
    for key, rows in raw.items():
        if key in skip:  # a run of the side without cycles for it: the side has none
            continue
        runs = {r[1] for r in rows}
        if len(runs) >= MIN_UNITS:
            kind, units = "runs", [r[1] for r in rows]
        elif all(r[2] is not None for r in rows) and len({r[2] for r in rows}) >= MIN_UNITS:
            kind, units = "groups", [hash((r[1], r[2])) for r in rows]
        else:
            kind, units = "samples", [r[3] for r in rows]
        groups = tuple((r[1], r[2]) if r[2] is not None else None for r in rows)
        out[key] = SideSamples(np.array([r[0] for r in rows]), np.array(units), kind, groups)
    return out


def change(a: SideSamples, b: SideSamples) -> Change:
    """The change from side `a` to side `b`: its ratio where the id has
    one, else its difference (the module's docstring)."""
    ma, mb = float(np.median(a.samples)), float(np.median(b.samples))
    units = min(a.count, b.count)
    ba = bb = None
    if units >= MIN_UNITS:
        ba = resample.cluster_medians(a.samples, a.units, resample.generator())
        bb = resample.cluster_medians(b.samples, b.units, resample.generator(resample.SEED + 1))
    sds = (a.spread(), b.spread())
    kinds = (a.kind, b.kind)
    ratios = None
    if ma > 0 and mb > 0 and (ba is None or (np.all(ba > 0) and np.all(bb > 0))):
        with np.errstate(over="ignore"):  # a ratio past float's range (5e-324 to 9e18) is none: checked below
            ratios = (mb / ma - 1, bb / ba - 1 if ba is not None else np.array([]))
    if ratios is not None and math.isfinite(ratios[0]) and np.all(np.isfinite(ratios[1])):
        rel = ratios[0]
        e = power.effect(rel, ratios[1], units) if ba is not None else power.effect(rel, np.array([]), 0)
        lo, hi = e["ci95"]
        return Change(ma, mb, rel, (lo, hi), e["mde_ns"], units - 1, *sds, kinds)
    diff = mb - ma
    d = power.effect(diff, bb - ba, units) if ba is not None else power.effect(diff, np.array([]), 0)
    lo, hi = d["ci95"]
    return Change(ma, mb, math.nan, (math.nan, math.nan), math.nan, units - 1, *sds, kinds,
                  diff=diff, diff_ci=(lo, hi), diff_mde=d["mde_ns"])
