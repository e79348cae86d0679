"""What compare adds when each side is one file: how often each side's
interval holds the other's median (two runs of one command: does an
interval describe the next run?), and two anatomies' parts side by side."""
from __future__ import annotations

import math

from ctxbench.compare.pairing import Paired
from ctxbench.core.model import Document
from ctxbench.ui.format import fmt_effect, fmt_time


def print_two_files(paired: Paired) -> None:
    base, new = paired.base_docs, paired.new_docs
    if len(base) != 1 or len(new) != 1:
        return
    cov = interval_coverage(base[0], new[0], paired.in_cycles)
    if cov["points"]:
        print(f"intervals: base's 95% interval holds new's median at {cov['base_holds_new']} of {cov['points']} "
              f"points, new's holds base's at {cov['new_holds_base']} of {cov['points']}"
              + (" (each made to hold another run's median)" if cov["for_another_run"] else
                 " (intervals of one run's median: they hold another run's less often than 95%)"))
    _compare_anatomies(base[0], new[0])


def _points(doc: dict, in_cycles) -> dict:
    """{point: (median, low, high, made for another run)} of the points
    with a finite median and interval, in cycles for those in `in_cycles`."""
    out = {}
    for r in Document(doc).results:
        s = r.cycles.summary if r.point_key in in_cycles else r.summary
        lo, hi = s.ci95
        if all(math.isfinite(x) for x in (lo, hi, s.median)):
            out[r.point_key] = (s.median, lo, hi, r.summary.ci95_for)
    return out


def interval_coverage(base: dict, new: dict, in_cycles: set = frozenset()) -> dict:
    """Over the points in both files with a finite median and interval:
    how often each side's interval holds the other side's median, in cycles
    for the points in `in_cycles`."""
    pb, pn = _points(base, in_cycles), _points(new, in_cycles)
    keys = [k for k in pb if k in pn]
    return {"points": len(keys),
            "base_holds_new": sum(pb[k][1] <= pn[k][0] <= pb[k][2] for k in keys),
            "new_holds_base": sum(pn[k][1] <= pb[k][0] <= pn[k][2] for k in keys),
            "for_another_run": bool(keys) and all(pb[k][3] and pn[k][3] for k in keys)}


def _compare_anatomies(base: dict, new: dict) -> None:
    """Two anatomy files of one mechanism: the parts each kept (what each
    printed), side by side, with the change's interval."""
    from ctxbench.anatomy import analysis as anatomy
    docs = [Document(d) for d in (base, new)]
    if not all(d.command == "anatomy" for d in docs):
        return
    kb, kn = (anatomy.kept(d.section()) for d in docs)
    if kb is None or kn is None:
        print("\nanatomy: a file does not keep its parts (an older ctxbench's): "
              "`ctxbench reanalyse FILE -o NEW` derives them")
        return
    m = kb.get("mechanism") or "?"
    rows = anatomy.compare_parts(kb, kn) if kn.get("mechanism") == kb.get("mechanism") else []
    if rows:
        print(f"\nanatomy ({m}), part by part (change = new - base, 95% interval of two independent runs):")
        w = max(len(r["name"]) for r in rows)
        for r in rows:
            print(f"  {r['name']:<{w}}  {fmt_time(r['base_ns']):>9}  {fmt_time(r['new_ns']):>9}  "
                  f"change {fmt_effect(r)}")
