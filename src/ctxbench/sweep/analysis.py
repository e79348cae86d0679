"""The sweep's numbers: indirect cost per point, counters per thousand
instructions, peaks and the boundaries they sit at, worst CV.

Indirect cost (METHOD.md section 4): indirect(S, D) = total(S, D) - direct,
where direct is the stride-0 cost of the same mechanism.

- Reference. The direct cost does not depend on the size (stride 0 is no
  traversal), but a shared machine drifts. So the reference for (S, D > 0)
  is the pooled stride-0 samples of the same mechanism at S and its two
  neighbouring sizes: measured close in time (the plan is size-major,
  stride 0 first), and one disturbed stride-0 point cannot shift a whole
  column. A stride-0 point's own "indirect cost" is measured against the
  stride-0 points of up to two sizes on each side, *excluding itself*: it
  should be 0, and its CI containing 0 checks the instrument.
- Samples. The indirect cost's samples are the total cost's (verified)
  samples minus the reference's median, so min/max/mean/stdev describe the
  spread of the total cost around a fixed direct cost.
- CI. The two medians come from independent runs, so the interval of their
  difference must carry the uncertainty of both: a percentile bootstrap of
  median(total*) - median(direct*), resampling the two sample sets
  independently (fixed seed, 2000 resamples). Samples of one run are not
  independent of the run, though: on a shared machine two runs of the same
  point differ by more than their within-run spread. The stride-0 points
  of a mechanism are replicates of one quantity, so their medians' offsets
  from the median of medians are an observed sample of that run-to-run
  shift; each bootstrap replicate adds one drawn offset for the total's run
  and one for the direct's (with >= 3 stride-0 points; fewer: within-run
  spread only, and the record says so). Nothing is clipped: a negative
  indirect cost stays negative and gets a warning.
"""
from __future__ import annotations

import math

import numpy as np

from ctxbench.core import model
from ctxbench.stats import resample
from ctxbench.stats import summary as stats
from ctxbench.sweep.plan import boundaries, fmt_size, key

CI_LEVEL = 0.95


def _kept(r: dict) -> np.ndarray:
    """The verified samples of a result (as the model's analyse kept them)."""
    return model.Result(r).kept_samples()


def diff_of_medians_ci(total: np.ndarray, direct: np.ndarray, offsets: np.ndarray | None = None,
                       level: float = CI_LEVEL, resamples: int = stats.BOOTSTRAP_RESAMPLES,
                       seed: int = stats.BOOTSTRAP_SEED) -> tuple[float, float]:
    if total.size == 0 or direct.size == 0:
        return (math.nan, math.nan)
    rng = resample.generator(seed)
    d = resample.medians(total, rng, resamples) - resample.medians(direct, rng, resamples)
    if offsets is not None and offsets.size:
        d = d + offsets[rng.integers(0, offsets.size, resamples)] - offsets[rng.integers(0, offsets.size, resamples)]
    return resample.interval(d, level)


MIN_REPLICATES = 3


def run_offsets(zero_points: list[dict]) -> np.ndarray | None:
    """Run-to-run shifts seen among a mechanism's stride-0 points."""
    meds = [float(np.median(x)) for x in (_kept(r) for r in zero_points) if x.size]
    if len(meds) < MIN_REPLICATES:
        return None
    return np.asarray(meds) - float(np.median(meds))


MIN_CI_SAMPLES = 5  # fewer verified samples: a bootstrap interval would be a fake certainty


def indirect_summary(total: np.ndarray, direct: np.ndarray, ref: dict, offsets: np.ndarray | None = None) -> dict:
    if total.size == 0 or direct.size == 0:
        s = stats.summarize([])
    else:
        s = stats.summarize(total - float(np.median(direct)))
        s["median"] = float(np.median(total) - np.median(direct))
        few = total.size < MIN_CI_SAMPLES or direct.size < MIN_CI_SAMPLES
        s["ci95"] = [math.nan, math.nan] if few else list(diff_of_medians_ci(total, direct, offsets))
        if few:
            s["ci95_note"] = f"no CI: only {total.size} verified samples (at least {MIN_CI_SAMPLES} needed)"
    s["ci95_of"] = ("median(total) - median(direct): independent bootstrap of both"
                    + (f", plus run-to-run shifts seen among {offsets.size} stride-0 runs" if offsets is not None
                       else " (within-run spread only: fewer than 3 stride-0 runs)"))
    s["reference"] = ref
    return s


def add_indirect(results: list[dict], only: set | None = None) -> None:
    """Set `indirect` on every sweep result (or those whose key is in `only`)."""
    zero: dict[str, list[dict]] = {}
    for r in results:
        k = key(r)
        if k and k[2] == 0:
            zero.setdefault(k[0], []).append(r)
    for v in zero.values():
        v.sort(key=lambda x: key(x)[1])
    offsets = {bid: run_offsets(v) for bid, v in zero.items()}
    for r in results:
        k = key(r)
        if not k or (only is not None and k not in only):
            continue
        bid, size, stride = k
        zs = zero.get(bid, [])
        sizes0 = [key(x)[1] for x in zs]
        # position of this size among the stride-0 sizes (insertion point if absent)
        i = sum(1 for x in sizes0 if x < size)
        if stride:
            pool = zs[max(0, i - 1):i + 2] if (i < len(zs) and sizes0[i] == size) else zs[max(0, i - 1):i + 1]
            kind = "stride 0 at this size and its neighbouring sizes"
        else:
            pool = [x for x in zs[max(0, i - 2):i + 3] if x is not r]
            kind = "stride 0 at up to two neighbouring sizes on each side (not this point)"
        if not pool:
            r["indirect"] = None
            continue
        direct = np.concatenate([_kept(x) for x in pool])
        info = {"kind": kind, "sizes": [key(x)[1] for x in pool], "stride": 0, "n": int(direct.size)}
        s = indirect_summary(_kept(r), direct, info, offsets.get(bid))
        r["indirect"] = s
        warn = model.without(r.get("warnings"), "negative_indirect")
        if s["n"] and math.isfinite(s["median"]) and s["median"] < 0 and stride:
            warn.append(model.warning("negative_indirect", "negative indirect cost (printed as measured, not "
                                      "clipped)"))
        r["warnings"] = warn


# ---- counters ---------------------------------------------------------------

MISS_EVENTS = ("l1d_load_misses", "l1i_load_misses", "dtlb_load_misses")


def add_counter_rates(r: dict) -> None:
    """counters.per_kilo_instructions[phase][party][event] = 1000 * misses / instructions."""
    c = r.get("counters")
    if not isinstance(c, dict) or not c.get("available"):
        return
    pki: dict = {}
    for phase in ("single", "switch"):
        for party in ("a", "b"):
            v = (c.get(phase) or {}).get(party) or {}
            ins = v.get("instructions") or 0
            if ins <= 0:
                continue
            pki.setdefault(phase, {})[party] = {e: 1000.0 * v.get(e, 0) / ins for e in MISS_EVENTS if e in v}
        # both parties together: what the caches see in the switching run
        a = (c.get(phase) or {}).get("a") or {}
        b = (c.get(phase) or {}).get("b") or {}
        ins = (a.get("instructions") or 0) + (b.get("instructions") or 0)
        if ins > 0:
            pki.setdefault(phase, {})["both"] = {e: 1000.0 * (a.get(e, 0) + b.get(e, 0)) / ins
                                                  for e in MISS_EVENTS if e in a}
    c["per_kilo_instructions"] = pki


def counters_status(results: list[dict]) -> str | None:
    """One line about counters, or None if no result asked for them."""
    asked = [r.get("counters") for r in results if isinstance(r.get("counters"), dict)]
    if not asked:
        return None
    ok = [c for c in asked if c.get("available")]
    if ok:
        return f"hardware counters recorded for {len(ok)} of {len(results)} points"
    err = next((c.get("error") for c in asked if c.get("error")), "refused")
    return f"hardware counters unavailable here ({err}): measured without them"


# ---- summary ----------------------------------------------------------------

def series(results: list[dict], bid: str, stride: int, what: str = "indirect") -> list[tuple[int, model.Summary]]:
    """[(size, summary)] of one mechanism and stride, by size."""
    out = []
    for r in results:
        k = key(r)
        if k and k[0] == bid and k[2] == stride:
            s = model.Result(r).indirect if what == "indirect" else model.Result(r).summary
            if s and s.n:
                out.append((k[1], s))
    return sorted(out, key=lambda t: t[0])


def where(size: int, env: dict, parties: int = 2) -> str:
    """The boundary nearest (log2) to the combined working set of the parties."""
    bs = boundaries(env)
    ws = size * parties
    if not bs:
        return f"(no cache/TLB sizes known for this machine; both parties together: {fmt_size(ws)})"
    b = min(bs, key=lambda b: abs(math.log2(ws / b["size"])))
    ratio = ws / b["size"]
    rel = ("at" if 0.8 <= ratio <= 1.25 else "just below" if 0.5 <= ratio < 0.8
           else "just past" if 1.25 < ratio <= 2 else "below" if ratio < 1 else "beyond")
    return f"both parties {fmt_size(ws)}: {rel} {b['label']}"


def worst_cv(results: list[dict]) -> tuple[float, dict | None]:
    worst, at = -1.0, None
    for r in results:
        cv = model.Result(r).summary.cv
        if math.isfinite(cv) and abs(cv) > worst:
            worst, at = abs(cv), r
    return (worst if at else math.nan), at


def text_summary(results: list[dict], env: dict, mechs: list[tuple[str, str]], wall_s: float | None,
                 cv_target: float = 0.05) -> str:
    lines = []
    for name, bid in mechs:
        strides = sorted({key(r)[2] for r in results if key(r) and key(r)[0] == bid and key(r)[2]})
        if not strides:
            continue
        lines.append(f"{name} ({bid}):")
        direct = series(results, bid, 0, "summary")
        if direct:
            meds = [s.median for _, s in direct]
            lines.append(f"  direct cost (stride 0): median {np.median(meds):.0f} ns per switch "
                         f"(range over sizes {min(meds):.0f} .. {max(meds):.0f} ns)")
        best = None
        for d in strides:
            ser = series(results, bid, d)
            if not ser:
                continue
            size, s = max(ser, key=lambda t: t[1].median)
            lo, hi = s.ci95
            ci = f"[{lo:.0f}, {hi:.0f}]" if math.isfinite(lo) and math.isfinite(hi) else f"[no CI: n={s.n}]"
            lines.append(f"  stride {d:>3} B: indirect peaks at {fmt_size(size):>5} per party, "
                         f"{s.median:.0f} ns {ci}  ({where(size, env)})")
            if best is None or s.median > best[2].median:
                best = (d, size, s)
        if best:
            d, size, s = best
            edge = max(k[1] for k in (key(r) for r in results) if k and k[0] == bid)
            lines.append(f"  largest: {s.median:.0f} ns per switch at {fmt_size(size)}, stride {d} B "
                         f"({where(size, env)})" + (": the largest size measured, so the cost may still rise"
                                                    if size == edge else ""))
    cv, at = worst_cv(results)
    if at is not None:
        k = key(at)
        cvs = [abs(cv) for cv in (model.Result(r).summary.cv for r in results) if math.isfinite(cv)]
        within = sum(1 for c in cvs if c <= cv_target)
        verdict = "met" if cv <= cv_target else "not met on this machine"
        lines.append(f"worst CV of the total cost: {cv * 100:.1f}% at {k[0]} {fmt_size(k[1])}:{k[2]} "
                     f"(target {cv_target * 100:.0f}%: {verdict}; median CV {np.median(cvs) * 100:.1f}%, "
                     f"{within} of {len(cvs)} points within target)")
    if wall_s is not None:
        lines.append(f"wall time: {wall_s:.0f} s")
    return "\n".join(lines)
