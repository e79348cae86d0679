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
from ctxbench.ui.format import fmt_effect, fmt_time, fmt_value
from ctxbench.ui.options import add_store
from ctxbench.stats.rank import MIN_SAMPLES, geomean_ratio, mann_whitney, verdict
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
        "kernel cmdline": e.get("kernel.cmdline"),
    }


def env_differences(base: list[dict], new: list[dict]) -> list[str]:
    def side(docs):
        vals: dict = {}
        for d in docs:
            for k, v in _env_facts(Document(d).environment).items():
                vals.setdefault(k, set()).add(str(v))
        return vals
    b, n = side(base), side(new)
    return [f"{k}: {' / '.join(sorted(b[k]))}  ->  {' / '.join(sorted(n[k]))}" for k in b if b[k] != n.get(k)]


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
    junit_out = writer.check_writable(args.junit, base_specs + new_specs) if args.junit else None
    bs, ns = sides.resolve(base_specs, args.store), sides.resolve(new_specs, args.store)
    base, new = bs.docs, ns.docs
    sb, sn = changes.side_samples(base), changes.side_samples(new)  # kept samples per id, first-seen order
    pb, pn = {k: list(s.samples) for k, s in sb.items()}, {k: list(s.samples) for k, s in sn.items()}
    common = [k for k in pb if k in pn]
    units = {r.point_key: r.unit for d in base + new for r in Document(d).results}
    if not common:
        raise UserError("compare: no id is present on both sides")
    found = {k: changes.change(sb[k], sn[k]) for k in common}

    diffs = env_differences(base, new)
    print(f"base: {_side_label(bs)}\nnew:  {_side_label(ns)}")
    if diffs:
        print("environment differences that matter:")
        for d in diffs:
            print(f"  {d}")
    else:
        print("environment: same kernel, CPU, microcode, mitigations, governor and VM on both sides")
    ref = reference_change(pb, pn)
    if ref is not None:
        # An indicator, not a correction: here it tracked the switch ids in
        # some pairs of runs and not in others (cache contention from a VM's
        # neighbours moves the switches but not this L1-resident work).
        print(f"machine speed: {REFERENCE} (fixed CPU work) changed by {ref - 1:+.1%}: a change of that size in "
              "every id is the machine, not the code under test")
    print()
    if args.fail_if_slower is not None:
        return _gate(common, found, args.fail_if_slower, junit_out, bs, ns)
    w = max(len(k) for k in common)
    print(f"{'id':<{w}}  {'base median':>12}  {'±%sd':>6}  {'new median':>12}  {'±%sd':>6}  "
          f"{'change [95% CI]':>24}  {'p (U test)':>10}  verdict")
    ratios, few, on_samples = [], [], []
    for k in common:
        a, b = pb[k], pn[k]
        c = found[k]
        ma, mb = c.base, c.new
        ua, ub = sb[k].group_medians(), sn[k].group_medians()
        if min(len(ua), len(ub)) < MIN_GROUPS:
            ua, ub = a, b
            on_samples.append(k)
        _, p = mann_whitney(ua, ub)
        v = verdict(ma, mb, p, thr, len(ua), len(ub))
        if ma > 0 and mb > 0 and k != REFERENCE:
            ratios.append(mb / ma)
        note = ""
        if min(len(a), len(b)) < MIN_SAMPLES:
            few.append(k)
            note = f"  (too few samples: {len(a)} vs {len(b)})"
        print(f"{k:<{w}}  {fmt_value(ma, units.get(k, 'ns')):>12}  {_pct(c.sd_base):>6}  "
              f"{fmt_value(mb, units.get(k, 'ns')):>12}  {_pct(c.sd_new):>6}  {_change(c):>24}  "
              f"{(f'{p:.3g}' if math.isfinite(p) else 'n/a'):>10}  {v}{note}")
    only = len(set(pb) ^ set(pn))
    g = geomean_ratio(ratios)
    print()
    print(f"geometric mean of new/base medians over {len(ratios)} ids: "
          + (f"{g:.3f} ({g - 1:+.1%})" if math.isfinite(g) else "n/a")
          + f"; threshold {thr:.0%}, Mann-Whitney U (two-sided, alpha 0.05) on per-group medians")
    print(_units_note(found))
    if on_samples:
        print(f"note: {len(on_samples)} id(s) have fewer than {MIN_GROUPS} groups on a side: tested on single "
              "samples, which overstates significance when the machine drifts")
    if few:
        print(f"warning: {len(few)} id(s) have fewer than {MIN_SAMPLES} samples on a side; their verdict is weak")
    if only:
        print(f"note: {only} id(s) present on one side only were skipped")
    if len(base) == 1 and len(new) == 1:
        cov = interval_coverage(base[0], new[0])
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
    return f"{x:.1%}" if math.isfinite(x) else "-"


def _change(c: changes.Change) -> str:
    if not math.isfinite(c.rel) or abs(c.rel) >= 1e4:
        return "n/a"
    ci = f" [{c.ci[0]:+.1%}, {c.ci[1]:+.1%}]" if all(math.isfinite(x) for x in c.ci) else " [n/a]"
    return f"{c.rel:+.1%}{ci}"


def _units_note(found: dict) -> str:
    """What the intervals and spreads were made over."""
    kinds = {u for c in found.values() for u in c.units}
    text = ("±%sd: the sd of each side's unit medians over their mean; change: new/base - 1 of the pooled medians, "
            "its 95% interval resampled over " + " and ".join(sorted(kinds)))
    if kinds - {"runs"}:
        text += ("; a side of one run has only what moved within it in its interval, not what moves between runs "
                 "(measure each side several times)")
    return text


def _gate(common: list[str], found: dict, pct: float, junit_out, bs: sides.Side, ns: sides.Side) -> int:
    verdicts = [gate.judge(k, found[k], pct) for k in common if k != REFERENCE]
    w = max(len(v.key) for v in verdicts) if verdicts else 2
    for v in verdicts:
        print(gate.line(v, w))
    failed = [v for v in verdicts if v.status == gate.FAIL]
    unresolved = [v for v in verdicts if v.status == gate.UNRESOLVED]
    print(f"\ngate: {len(failed)} of {len(verdicts)} id(s) slower by more than {pct:.1%} and their MDE"
          + (f"; {len(unresolved)} could not be judged at {pct:.1%}" if unresolved else "")
          + f". {_units_note(found)}")
    if junit_out is not None:
        try:
            junit_out.write(gate.junit(verdicts, f"ctxbench compare {' '.join(bs.specs)} -> {' '.join(ns.specs)}"))
        except OSError as e:
            raise UserError(f"cannot write {escaped(junit_out.path)} ({e.strerror or e})", code=1)
        print(f"JUnit XML: {escaped(junit_out.path)}")
    return 1 if failed else 0


def interval_coverage(base: dict, new: dict) -> dict:
    """Over the points in both files with a finite median and interval:
    how often each side's interval holds the other side's median (two runs
    of one command: does an interval describe the next run?)."""
    def points(doc):
        out = {}
        for r in Document(doc).results:
            lo, hi = r.summary.ci95
            if all(math.isfinite(x) for x in (lo, hi, r.summary.median)):
                out[r.point_key] = (r.summary.median, lo, hi, r.summary.d.get("ci95_for"))
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
    rb, rn = anatomy.rungs_of(base[0].get("results") or []), anatomy.rungs_of(new[0].get("results") or [])
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
