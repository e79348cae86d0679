"""Do a run's numbers hold on the next run? (issue 32)

Measures (or reads) several default `ctxbench run`s some minutes apart and
prints, per same-CPU kernel id and user-level id:
- the spread of its medians over the runs (max/min - 1) in ns, in core
  cycles (each sample's ns x its group's probe clock), and divided by the
  run's `reference/cpu` (the other candidate correction: a branchy L1 walk
  measured in the same run, a unit of its own, not cycles);
- how often one run's 95% interval holds another run's median, in ns and
  in cycles (all ordered pairs of runs);
and the probe's clock per run beside the kernel's reported MHz.

    python bench/run_to_run.py --runs 3 --gap 300            # measure: ~17 minutes
    python bench/run_to_run.py results/run-*.json           # read runs already made

The verdicts (issue 32's done-when): every id within 2% in cycles; the
cycles intervals hold the other runs' medians in at least 90% of pairs. A
benchmark, not a test: it reports this host, and `make bench` runs it
through bench/test_run_to_run.py.
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np  # noqa: E402

from ctxbench.core import cycles  # noqa: E402
from ctxbench.core.model import Document, Result  # noqa: E402

SPREAD_LIMIT = 0.02   # max/min - 1 in cycles, per id
COVER_LIMIT = 0.90    # share of ordered pairs whose interval holds the other's median
REFERENCE = "reference/cpu"


def measured_ids(doc: dict) -> list[str]:
    """The same-CPU kernel ids and the user-level ids of a run."""
    return [r.id for r in Document(doc).results
            if (r.id.startswith("kernel/") and r.quantity == "switch") or r.id.startswith("user/")]


def measure(runs: int, gap: float, out_dir: Path, extra: list[str], command: str = "run") -> list[Path]:
    """`runs` runs of `ctxbench <command> --no-store`, `gap` seconds apart,
    into out_dir/<command>-<k>.json (bench/runtimes_run_to_run.py too)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(runs):
        if k:
            print(f"waiting {gap:.0f} s before run {k + 1} ...", flush=True)
            time.sleep(gap)
        path = out_dir / f"{command}-{k + 1}.json"
        cmd = [sys.executable, "-m", "ctxbench", command, "--no-store", "-o", str(path), *extra]
        print("$", " ".join(cmd), flush=True)
        p = subprocess.run(cmd, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT / "src")),
                           stdout=subprocess.DEVNULL)
        if p.returncode != 0:
            sys.exit(f"run {k + 1} failed (exit {p.returncode})")
        paths.append(path)
    return paths


def _spread(xs: list[float]) -> float:
    xs = [x for x in xs if x is not None and math.isfinite(x) and x > 0]
    return max(xs) / min(xs) - 1 if len(xs) >= 2 else math.nan


def _holds(ci: tuple[float, float], x: float) -> bool:
    return ci[0] <= x <= ci[1]


def kernel_mhz() -> float | None:
    """The kernel's reported MHz of the measured CPU (cpuinfo); on many
    guests it is the TSC's nominal rate, not the core clock."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return None
    mhz = [float(x.split(":")[1]) for x in lines if x.startswith("cpu MHz")]
    return mhz[-1] if mhz else None


def in_walk_steps(r: Result) -> float:
    """The median of the kept samples, each divided by its group's walk
    time per step (the other candidate correction); nan without it."""
    walk = cycles.group_walk(cycles.probe_of(r.d))
    g = r.groups
    if not walk or g is None:
        return math.nan
    x = [s / walk[k] for s, k, keep in zip(r.samples, g, r.keep) if keep and k in walk and math.isfinite(s)]
    return float(np.median(x)) if x else math.nan


def spreads(docs: list[dict], names: list[str]) -> dict:
    by = [{r.id: r for r in Document(d).results} for d in docs]
    ids = [i for i in measured_ids(docs[0]) if all(i in b for b in by)]
    ref = [b[REFERENCE].summary.median if REFERENCE in b else math.nan for b in by]
    rows, pairs_ns, pairs_c, held_ns, held_c = [], 0, 0, 0, 0
    for i in ids:
        rs = [b[i] for b in by]
        ns = [r.summary.median for r in rs]
        cyc = [r.cycles.summary.median if r.cycles.applies else math.nan for r in rs]
        per_ref = [x / f if math.isfinite(f) and f > 0 else math.nan for x, f in zip(ns, ref)]
        walk = [in_walk_steps(r) for r in rs]
        for a, b in itertools.permutations(range(len(rs)), 2):
            pairs_ns += 1
            held_ns += _holds(rs[a].summary.ci95, ns[b])
            if rs[a].cycles.applies and rs[b].cycles.applies:
                pairs_c += 1
                held_c += _holds(rs[a].cycles.summary.ci95, cyc[b])
        rows.append({"id": i, "ns": ns, "cycles": cyc, "spread_ns": _spread(ns), "spread_cycles": _spread(cyc),
                     "spread_per_reference": _spread(per_ref), "spread_walk": _spread(walk)})
    clocks = [Document(d).results[0].cycles.ghz for d in docs]
    return {"runs": names, "clock_ghz": clocks, "rows": rows,
            "cover_ns": held_ns / pairs_ns if pairs_ns else math.nan,
            "cover_cycles": held_c / pairs_c if pairs_c else math.nan, "pairs": pairs_c}


def report(a: dict) -> tuple[str, bool]:
    lines = [f"runs: {', '.join(a['runs'])}",
             "core clock (probe, GHz): " + ", ".join(f"{g:.3f}" for g in a["clock_ghz"])
             + (f"; the kernel reports {kernel_mhz():.0f} MHz" if kernel_mhz() else ""),
             "", f"{'id':<34} {'ns spread':>9} {'cycles':>8} {'walk':>8} {'per ref':>8}   medians (ns | cycles)"]
    ok = True
    for r in a["rows"]:
        good = math.isfinite(r["spread_cycles"]) and r["spread_cycles"] <= SPREAD_LIMIT
        ok &= good
        meds = " ".join(f"{x:.4g}" for x in r["ns"]) + " | " + " ".join(f"{x:.4g}" for x in r["cycles"])
        lines.append(f"{r['id']:<34} {r['spread_ns']:>9.2%} {r['spread_cycles']:>8.2%} {r['spread_walk']:>8.2%} "
                     f"{r['spread_per_reference']:>8.2%}   {meds}{'' if good else '   over 2%'}")
    cover_ok = a["cover_cycles"] >= COVER_LIMIT
    ok &= cover_ok
    lines += ["", f"intervals holding another run's median: {a['cover_ns']:.0%} in ns, {a['cover_cycles']:.0%} in "
                  f"cycles ({a['pairs']} ordered pairs; {COVER_LIMIT:.0%} wanted)",
              f"spread: max/min - 1 of the runs' medians; cycles: each sample x its group's add-chain clock; walk: "
              f"each sample / its group's walk time per step (the other candidate); per ref: the median / the "
              f"run's {REFERENCE}",
              f"verdict: {'every id within' if ok else 'NOT every id within'} {SPREAD_LIMIT:.0%} in cycles and "
              f"coverage {'met' if cover_ok else 'NOT met'}"]
    return "\n".join(lines), ok


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", help="run files to read (else measure)")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--gap", type=float, default=300, help="seconds between runs (default 300)")
    p.add_argument("--out", default="bench-run-to-run", help="where measured runs go")
    p.add_argument("--json", metavar="FILE", help="also write the analysis as JSON")
    a = p.parse_args(argv)
    paths = [Path(f) for f in a.files] or measure(a.runs, a.gap, Path(a.out), [])
    docs = [json.loads(Path(f).read_text()) for f in paths]
    res = spreads(docs, [p.name for p in paths])
    text, ok = report(res)
    print(text)
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
