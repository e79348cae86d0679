"""compare's table: one line per id present on both sides (the two medians
with each side's spread, the change with its interval, the U test and a
verdict), then the geometric mean and the notes on what the lines rest on.

The U test runs on per-group medians where each side has enough groups:
samples of one group share one stretch of machine state and are not
independent, and testing them one by one calls a VM's minute-to-minute
drift "significant"."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ctxbench.compare import change as changes
from ctxbench.compare import gate, host
from ctxbench.compare.pairing import REFERENCE, Paired, cycles_note, units_note
from ctxbench.core.errors import escaped
from ctxbench.stats.rank import ALPHA, MIN_SAMPLES, geomean_ratio, mann_whitney, verdict
from ctxbench.ui.format import fmt_value

MIN_GROUPS = 5  # fewer groups on a side: the test falls back to samples


@dataclass(frozen=True)
class Row:
    key: str
    text: str                   # the line printed
    ratio: float | None         # new/base, for the geometric mean (None: no ratio, or the speed reference)
    no_ratio: bool              # its change is a difference (compare/change.py)
    on_samples: bool            # tested on single samples: too few groups on a side
    few: bool                   # too few samples on a side


def print_table(paired: Paired, threshold: float, asked: str) -> None:
    """The table, then the lines on what it rests on."""
    w = max(len(escaped(k)) for k in paired.common)
    print(f"{'id':<{w}}  {'unit':<6}  {'base median':>12}  {'±%sd':>6}  {'new median':>12}  {'±%sd':>6}  "
          f"{'change [95% CI]':>24}  {'in ns':>7}  {'p (U test)':>10}  verdict")
    rows = []
    for k in paired.common:
        rows.append(_row(paired, k, threshold, w))
        print(rows[-1].text)
    _print_notes(paired, rows, threshold, asked)


def _row(paired: Paired, k: str, threshold: float, w: int) -> Row:
    a, b = list(paired.base[k].samples), list(paired.new[k].samples)
    c = paired.found[k]
    ua, ub = paired.base[k].group_medians(), paired.new[k].group_medians()
    on_samples = min(len(ua), len(ub)) < MIN_GROUPS
    if on_samples:
        ua, ub = a, b
    _, p = mann_whitney(ua, ub)
    v = verdict(c.base, c.new, p, threshold, len(ua), len(ub)) if c.has_ratio \
        else _difference_verdict(c, p, len(ua), len(ub))
    v = host.attributed(k, v, c.rel if c.has_ratio else c.diff, paired.host, in_ns=k not in paired.in_cycles)
    few = min(len(a), len(b)) < MIN_SAMPLES
    note = f"  (too few samples: {len(a)} vs {len(b)})" if few else ""
    found_ns = paired.found_ns.get(k)
    in_ns = "" if found_ns is None else f"{found_ns.rel:+.1%}" if found_ns.has_ratio else "n/a"
    unit = paired.units.get(k, "ns")
    text = (f"{escaped(k):<{w}}  {'cycles' if k in paired.in_cycles else 'ns':<6}  {fmt_value(c.base, unit):>12}  "
            f"{_pct(c.sd_base):>6}  {fmt_value(c.new, unit):>12}  {_pct(c.sd_new):>6}  "
            f"{_change(c, unit):>24}  {in_ns:>7}  {(f'{p:.3g}' if math.isfinite(p) else 'n/a'):>10}  {v}{note}")
    return Row(k, text, c.new / c.base if c.has_ratio and k != REFERENCE else None, not c.has_ratio, on_samples, few)


def _print_notes(paired: Paired, rows: list[Row], threshold: float, asked: str) -> None:
    ratios = [r.ratio for r in rows if r.ratio is not None]
    no_ratio = sum(r.no_ratio for r in rows)
    on_samples = sum(r.on_samples for r in rows)
    few = sum(r.few for r in rows)
    g = geomean_ratio(ratios)
    print()
    print(f"geometric mean of new/base medians over {len(ratios)} ids: "
          + (f"{g:.3f} ({g - 1:+.1%})" if math.isfinite(g) else "n/a")
          + f"; threshold {threshold:.0%}, Mann-Whitney U (two-sided, alpha 0.05) on per-group medians")
    print(units_note(paired.found))
    print(cycles_note(paired.in_cycles, paired.common, asked))
    if no_ratio:
        print(f"note: {no_ratio} id(s) have no ratio (a median, or a resampled one, at or below 0: a "
              "baseline's residue after the timer's overhead is subtracted; or a ratio past a float's range): their "
              "change is new - base in their unit, with its 95% interval, and they are left out of the geometric "
              "mean")
    if on_samples:
        print(f"note: {on_samples} id(s) have fewer than {MIN_GROUPS} groups on a side: tested on single "
              "samples, which overstates significance when the machine drifts")
    if few:
        print(f"warning: {few} id(s) have fewer than {MIN_SAMPLES} samples on a side; their verdict is weak")


def _pct(x: float) -> str:
    return f"{x:.1%}" if math.isfinite(x) else "n/a"


def _change(c: changes.Change, unit: str = "ns") -> str:
    """The relative change with its interval; for an id with no ratio,
    its difference new - base in its unit (compare/change.py)."""
    if c.has_ratio:
        ci = f" [{c.ci[0]:+.1%}, {c.ci[1]:+.1%}]" if all(math.isfinite(x) for x in c.ci) else " [n/a]"
        return f"{c.rel:+.1%}{ci}"
    return gate.difference(c, unit)


def _difference_verdict(c: changes.Change, p: float, n_base: int, n_new: int) -> str:
    """The verdict on an id without a ratio: the U test and the
    difference's interval (a threshold in percent has nothing to apply to)."""
    if not math.isfinite(p) or min(n_base, n_new) < 2:
        return "n/a"
    lo, hi = c.diff_ci
    if p < ALPHA and (lo > 0 or hi < 0):
        return "slower" if lo > 0 else "faster"
    return "no significant change"
