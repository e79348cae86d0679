"""ctxbench compare: per id (and point) present on both sides, the two
medians with each side's spread, the relative change with its interval, a
Mann-Whitney U test and a verdict; what differs between the machines is
listed first. Each side may be several files or runs selected from the
results store (compare/sides.py): their samples are pooled per id, and
their runs are the units the change's interval resamples
(compare/change.py). With --fail-if-slower it is a regression gate
(compare/gate.py).

The U test runs on per-group medians where each side has enough groups:
samples of one group share one stretch of machine state and are not
independent, and testing them one by one calls a VM's minute-to-minute
drift "significant"."""
from __future__ import annotations

import math

from ctxbench.compare import change as changes
from ctxbench.compare import gate, sides
from ctxbench.core import writer
from ctxbench.core.model import Document, Environment
from ctxbench.ui.format import fmt_effect, fmt_time, fmt_value, fmt_vs_fastest
from ctxbench.ui.options import add_store
from ctxbench.stats.rank import ALPHA, MIN_SAMPLES, geomean_ratio, mann_whitney, verdict
from ctxbench.core.errors import UserError, escaped



def add_parser(sub):
    p = sub.add_parser("compare", help="compare two results files (or two groups of runs)",
                       description="Compare results: medians and spread, relative change with its interval, "
                                   "Mann-Whitney U test, verdict; or gate on a slowdown.")
    p.add_argument("base", nargs="?", metavar="BASE.json")
    p.add_argument("new", nargs="?", metavar="NEW.json")
    p.add_argument("--base", dest="base_files", nargs="+", metavar="FILE|KEY=VALUE",
                   help="the base side: files, or runs in the store selected by key=value[,key=value] "
                        f"(keys: {', '.join(sides.KEYS)}; * matches any text)")
    p.add_argument("--new", dest="new_files", nargs="+", metavar="FILE|KEY=VALUE",
                   help="the new side, as --base")
    p.add_argument("--threshold", default="5%", metavar="PCT",
                   help="smallest relative change that counts (default 5%%)")
    p.add_argument("--fail-if-slower", metavar="PCT", type=lambda t: parse_threshold(t, "--fail-if-slower"),
                   help="a regression gate: one line per id, exit 1 when an id is slower by more than PCT "
                        "and more than the comparison's MDE")
    p.add_argument("--junit", metavar="FILE", help="with --fail-if-slower: also write the verdicts as JUnit XML")
    p.add_argument("--unit", choices=UNITS, default="auto",
                   help="what the change is judged in: core cycles where both sides have them, ns elsewhere "
                        "(auto, the default: the host's clock moves between runs); or ns; or cycles only")
    add_store(p)
    p.set_defaults(func=run)


def parse_threshold(text: str, flag: str = "--threshold") -> float:
    t = text.strip()
    try:
        v = float(t[:-1]) / 100 if t.endswith("%") else float(t)
    except ValueError:
        raise UserError(f"{flag}: '{escaped(text)}' is not a percentage (e.g. 5%)")
    if not 0 <= v < 10:
        raise UserError(f"{flag}: '{escaped(text)}' is out of range")
    return v


MIN_GROUPS = 5  # fewer groups on a side: the test falls back to samples
UNITS = ("auto", "cycles", "ns")
REFERENCE = "reference/cpu"  # fixed CPU work: the machine's own speed in each run


def reference_change(pb: dict, pn: dict) -> float | None:
    """new/base ratio of the speed reference's medians, if both sides have it."""
    a, b = pb.get(REFERENCE), pn.get(REFERENCE)
    if not a or not b:
        return None
    ma, mb = float(_median(a)), float(_median(b))
    return mb / ma if ma > 0 and mb > 0 else None


def _env_facts(e: Environment) -> dict:
    return {
        "hostname": e.hostname,
        "CPU": e.cpu_model,
        "kernel": e.kernel_release,
        "mitigations": ", ".join(sorted(k for k, v in e.mitigations.items()
                                        if v and str(v).startswith("Mitigation"))) or "none",
        "governor": ", ".join(sorted({str(v) for v in e.governors.values()})) or "unknown",
        "microcode": e.microcode or "unknown",
        "VM": "yes" if e.is_vm else "no",
        "kernel cmdline": e.cmdline,
    }


def env_differences(base: list[dict], new: list[dict]) -> list[str]:
    def side(docs):
        vals: dict = {}
        for d in docs:
            for k, v in _env_facts(Document(d).environment).items():
                vals.setdefault(k, set()).add(str(v))
        return vals
    b, n = side(base), side(new)
    # the values come from the documents (files, or another client's runs in a shared store): escaped
    return [f"{k}: {' / '.join(map(escaped, sorted(b[k])))}  ->  {' / '.join(map(escaped, sorted(n.get(k, ()))))}"
            for k in b if b[k] != n.get(k)]


def run(args) -> int:
    thr = parse_threshold(args.threshold)
    if (args.base or args.new) and (args.base_files or args.new_files):
        raise UserError("compare: give either two files (BASE NEW) or --base ... --new ..., not both")
    base_specs = (args.base_files or []) + ([args.base] if args.base else [])
    new_specs = (args.new_files or []) + ([args.new] if args.new else [])
    if not base_specs or not new_specs:
        raise UserError("compare: give two files (BASE NEW), or --base FILE|KEY=VALUE... --new FILE|KEY=VALUE...")
    if args.junit and args.fail_if_slower is None:
        raise UserError("compare: --junit writes the gate's verdicts: give --fail-if-slower PCT with it")
    sides.check(base_specs + new_specs)  # keys and dates, before anything is read
    from ctxbench.core.store import choice
    choice.never_onto(args.store, [args.junit])  # the store (read in passing for core clocks, too) is no output
    junit_out = writer.check_writable(args.junit, base_specs + new_specs) if args.junit else None
    store = None
    if any(map(sides.is_selector, base_specs + new_specs)):
        from ctxbench.core.store.db import open_store
        store = open_store(args.store, writes=False, outputs=[args.junit])
    elif args.store is not None:  # named, though only read in passing (core clocks): it must be usable
        choice.decide(args.store, writes=False, outputs=[args.junit])
    bs, ns = sides.resolve(base_specs, store), sides.resolve(new_specs, store)
    base, new = bs.docs, ns.docs
    # kept samples per id, first-seen order, in ns and (where they apply) in core cycles
    sb_ns, sn_ns = changes.side_samples(base), changes.side_samples(new)
    sb_c, sn_c = changes.side_samples(base, "cycles"), changes.side_samples(new, "cycles")
    common = [k for k in sb_ns if k in sn_ns]
    if not common:
        raise UserError("compare: no id is present on both sides")
    in_cycles = {k for k in common if args.unit != "ns" and k in sb_c and k in sn_c}
    if args.unit == "cycles":
        common = [k for k in common if k in in_cycles]
        if not common:
            raise UserError("compare: --unit cycles, but no id has core cycles on both sides (files from before "
                            "the core-clock probe, or only cross-CPU ids)")
    sb = {k: (sb_c if k in in_cycles else sb_ns)[k] for k in common}
    sn = {k: (sn_c if k in in_cycles else sn_ns)[k] for k in common}
    pb, pn = {k: list(s.samples) for k, s in sb.items()}, {k: list(s.samples) for k, s in sn.items()}
    units = {r.point_key: r.unit for d in base + new for r in Document(d).results}
    units.update({k: "cycles" for k in in_cycles})
    found = {k: changes.change(sb[k], sn[k]) for k in common}
    found_ns = {k: changes.change(sb_ns[k], sn_ns[k]) for k in in_cycles}

    diffs = env_differences(base, new)
    print(f"base: {_side_label(bs)}\n      {speed_line(base, args.store)}")
    print(f"new:  {_side_label(ns)}\n      {speed_line(new, args.store)}")
    if diffs:
        print("environment differences that matter:")
        for d in diffs:
            print(f"  {d}")
    else:
        print("environment: same kernel, CPU, microcode, mitigations, governor and VM on both sides")
    from ctxbench.core.store.between import doc_ghz
    fb, fn = ([g for g in map(doc_ghz, docs) if g is not None] for docs in (base, new))
    if fb and fn:
        print(f"core clock: new/base {_median(fn) / _median(fb) - 1:+.1%} (the probe's medians): in ns, a change of "
              "that size in every CPU-bound id is the host's clock, not the code under test; in cycles it is "
              "taken out")
    ref = reference_change({k: list(v.samples) for k, v in sb_ns.items()},
                           {k: list(v.samples) for k, v in sn_ns.items()})
    if ref is not None:
        # An indicator, not a correction: here it tracked the switch ids in
        # some pairs of runs and not in others (cache contention from a VM's
        # neighbours moves the switches but not this L1-resident work).
        print(f"machine speed: {REFERENCE} (fixed CPU work) changed by {ref - 1:+.1%} in ns"
              + (f", {found[REFERENCE].rel:+.1%} in cycles" if REFERENCE in in_cycles and found[REFERENCE].has_ratio
                 else "")
              + ": what the clock does not explain (a busy neighbour's cache traffic, an SMT sibling) moves it in "
                "cycles too")
    print()
    if args.fail_if_slower is not None:
        return _gate(common, found, args.fail_if_slower, junit_out, bs, ns, in_cycles)
    w = max(len(escaped(k)) for k in common)
    print(f"{'id':<{w}}  {'unit':<6}  {'base median':>12}  {'±%sd':>6}  {'new median':>12}  {'±%sd':>6}  "
          f"{'change [95% CI]':>24}  {'in ns':>7}  {'p (U test)':>10}  verdict")
    ratios, few, on_samples, no_ratio = [], [], [], []
    for k in common:
        a, b = pb[k], pn[k]
        c = found[k]
        ma, mb = c.base, c.new
        ua, ub = sb[k].group_medians(), sn[k].group_medians()
        if min(len(ua), len(ub)) < MIN_GROUPS:
            ua, ub = a, b
            on_samples.append(k)
        _, p = mann_whitney(ua, ub)
        v = verdict(ma, mb, p, thr, len(ua), len(ub)) if c.has_ratio else _difference_verdict(c, p, len(ua), len(ub))
        if c.has_ratio and k != REFERENCE:
            ratios.append(mb / ma)
        elif not c.has_ratio:
            no_ratio.append(k)
        note = ""
        if min(len(a), len(b)) < MIN_SAMPLES:
            few.append(k)
            note = f"  (too few samples: {len(a)} vs {len(b)})"
        in_ns = "" if k not in found_ns else f"{found_ns[k].rel:+.1%}" if found_ns[k].has_ratio else "n/a"
        print(f"{escaped(k):<{w}}  {'cycles' if k in in_cycles else 'ns':<6}  {fmt_value(ma, units.get(k, 'ns')):>12}  "
              f"{_pct(c.sd_base):>6}  {fmt_value(mb, units.get(k, 'ns')):>12}  {_pct(c.sd_new):>6}  "
              f"{_change(c, units.get(k, 'ns')):>24}  {in_ns:>7}  {(f'{p:.3g}' if math.isfinite(p) else 'n/a'):>10}  {v}{note}")
    only = len(set(pb) ^ set(pn))
    g = geomean_ratio(ratios)
    print()
    print(f"geometric mean of new/base medians over {len(ratios)} ids: "
          + (f"{g:.3f} ({g - 1:+.1%})" if math.isfinite(g) else "n/a")
          + f"; threshold {thr:.0%}, Mann-Whitney U (two-sided, alpha 0.05) on per-group medians")
    print(_units_note(found))
    print(_cycles_note(in_cycles, common, args.unit))
    if no_ratio:
        print(f"note: {len(no_ratio)} id(s) have no ratio (a median, or a resampled one, at or below 0: a "
              "baseline's residue after the timer's overhead is subtracted; or a ratio past a float's range): their "
              "change is new - base in their unit, with its 95% interval, and they are left out of the geometric "
              "mean")
    if on_samples:
        print(f"note: {len(on_samples)} id(s) have fewer than {MIN_GROUPS} groups on a side: tested on single "
              "samples, which overstates significance when the machine drifts")
    if few:
        print(f"warning: {len(few)} id(s) have fewer than {MIN_SAMPLES} samples on a side; their verdict is weak")
    if only:
        print(f"note: {only} id(s) present on one side only were skipped")
    if len(base) == 1 and len(new) == 1:
        cov = interval_coverage(base[0], new[0], in_cycles)
        if cov["points"]:
            print(f"intervals: base's 95% interval holds new's median at {cov['base_holds_new']} of {cov['points']} "
                  f"points, new's holds base's at {cov['new_holds_base']} of {cov['points']}"
                  + (" (each made to hold another run's median)" if cov["for_another_run"] else
                     " (intervals of one run's median: they hold another run's less often than 95%)"))
    _compare_anatomies(base, new)
    return 0


def _side_label(side: sides.Side) -> str:
    files = [escaped(s) for s in side.specs if not sides.is_selector(s)]
    picked = [s for s in side.specs if sides.is_selector(s)]
    return ", ".join(files + ([f"{', '.join(map(escaped, picked))} ({side.stored} run(s) from the store)"]
                              if picked else []))


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


def _units_note(found: dict) -> str:
    """What the intervals and spreads were made over."""
    kinds = {u for c in found.values() for u in c.units}
    text = ("±%sd: the sd of each side's unit medians over their mean; change: new/base - 1 of the pooled medians, "
            "its 95% interval resampled over " + " and ".join(sorted(kinds)))
    if kinds - {"runs"}:
        text += ("; a side of one run has only what moved within it in its interval, not what moves between runs "
                 "(measure each side several times)")
    return text


def speed_line(docs: list[dict], store_flag: str | None) -> str:
    """The core clock each run of a side got (core/cycles.py), and how far
    below the fastest its host has recorded in the store."""
    from ctxbench.core.store import between
    clocks = [(Document(d).environment.hostname, between.doc_ghz(d)) for d in docs]
    have = [(h, g) for h, g in clocks if g is not None]
    if not have:
        return "core clock: not measured (files from before the core-clock probe)"
    text = "core clock " + ", ".join(f"{g:.3f}" for _, g in have[:6]) + (" ..." if len(have) > 6 else "") + " GHz"
    fastest = between.fastest_recorded(store_flag, {h for h, _ in have})
    said = sorted({fmt_vs_fastest(g, fastest[h]) for h, g in have if fastest.get(h)})
    if said:
        text += "; " + ", ".join(said[:3]) + (" ..." if len(said) > 3 else "") + " for its host in the store"
    return text


def _cycles_note(in_cycles: set, common: list[str], asked: str) -> str:
    if asked == "ns":
        return "unit: ns for every id (--unit ns)"
    if not in_cycles:
        return "unit: ns for every id (no id has core cycles on both sides: files from before the probe, or cross-CPU ids)"
    return (f"unit: core cycles for {len(in_cycles)} of {len(common)} ids (each sample's ns x its group's core clock: "
            "the host's clock, which moves between runs, taken out; 'in ns' is the same change in time); ns for "
            "the rest (cross-CPU wake-ups and results without the probe)")


def _gate(common: list[str], found: dict, pct: float, junit_out, bs: sides.Side, ns: sides.Side,
          in_cycles: set) -> int:
    verdicts = [gate.judge(k, found[k], pct, "cycles" if k in in_cycles else "ns") for k in common if k != REFERENCE]
    w = max(len(escaped(v.key)) for v in verdicts) if verdicts else 2
    for v in verdicts:
        print(gate.line(v, w))
    failed = [v for v in verdicts if v.status == gate.FAIL]
    unresolved = [v for v in verdicts if v.status == gate.UNRESOLVED]
    print(f"\ngate: {len(failed)} of {len(verdicts)} id(s) slower by more than {pct:.1%} and their MDE"
          + (f"; {len(unresolved)} could not be judged at {pct:.1%}" if unresolved else "")
          + f". {_units_note(found)}. {_cycles_note(in_cycles, common, 'auto')}")
    if junit_out is not None:
        try:
            junit_out.write(gate.junit(verdicts, f"ctxbench compare {' '.join(bs.specs)} -> {' '.join(ns.specs)}"))
        except OSError as e:
            raise UserError(f"cannot write {escaped(junit_out.path)} ({e.strerror or e})", code=1)
        print(f"JUnit XML: {escaped(junit_out.path)}")
    return 1 if failed else 0


def interval_coverage(base: dict, new: dict, in_cycles: set = frozenset()) -> dict:
    """Over the points in both files with a finite median and interval:
    how often each side's interval holds the other side's median (two runs
    of one command: does an interval describe the next run?), in cycles
    for the points in `in_cycles`."""
    def points(doc):
        out = {}
        for r in Document(doc).results:
            s = r.cycles.summary if r.point_key in in_cycles else r.summary
            lo, hi = s.ci95
            if all(math.isfinite(x) for x in (lo, hi, s.median)):
                out[r.point_key] = (s.median, lo, hi, r.summary.ci95_for)
        return out
    pb, pn = points(base), points(new)
    keys = [k for k in pb if k in pn]
    return {"points": len(keys),
            "base_holds_new": sum(pb[k][1] <= pn[k][0] <= pb[k][2] for k in keys),
            "new_holds_base": sum(pn[k][1] <= pb[k][0] <= pn[k][2] for k in keys),
            "for_another_run": bool(keys) and all(pb[k][3] and pn[k][3] for k in keys)}


def _compare_anatomies(base: list[dict], new: list[dict]) -> None:
    """Two anatomy files (one a side): their parts, re-derived from the
    rungs, side by side, with the change's interval."""
    if len(base) != 1 or len(new) != 1:
        return
    from ctxbench.anatomy import analysis as anatomy
    rb, rn = anatomy.rungs_of(Document(base[0]).records), anatomy.rungs_of(Document(new[0]).records)
    for m in [m for m in rb if m in rn]:
        rows = anatomy.compare_parts(anatomy.anatomy(rb[m], [], m), anatomy.anatomy(rn[m], [], m))
        if not rows:
            continue
        print(f"\nanatomy ({m}), part by part (change = new - base, 95% interval of two independent runs):")
        w = max(len(r["name"]) for r in rows)
        for r in rows:
            print(f"  {r['name']:<{w}}  {fmt_time(r['base_ns']):>9}  {fmt_time(r['new_ns']):>9}  "
                  f"change {fmt_effect(r)}")


def _median(xs):
    import numpy as np
    return np.median(xs) if xs else math.nan
