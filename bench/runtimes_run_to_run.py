"""Do the runtimes' rows hold on the next run? (issue 32)

Measures (or reads) several default `ctxbench runtimes` runs and prints,
per pinned hand-off row (one CPU, one worker: the rows core cycles apply
to), each run's estimate in ns and in core cycles (the mean of its
launches' medians), the spread over the runs (max/min - 1) in each unit,
and how often one run's 95% interval (over its launches) holds another
run's estimate, in ns and in cycles (all ordered pairs of runs). The
default rows (two CPUs) are listed apart, in ns only.

    python bench/runtimes_run_to_run.py --runs 2 --gap 60     # measure: ~8 minutes
    python bench/runtimes_run_to_run.py a.json b.json          # read runs already made

The verdict (issue 32's done-when): every pinned row within 10% in cycles
between the runs. A benchmark, not a test: it reports this host.
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

import run_to_run  # noqa: E402
from ctxbench.runtimes import analysis  # noqa: E402
from ctxbench.runtimes.analysis import Handoff  # noqa: E402

SPREAD_LIMIT = 0.10  # max/min - 1 in cycles, per pinned row


def rows(path: Path) -> dict[tuple[str, str, str], Handoff]:
    """A run's hand-off rows, re-analysed with this checkout's arithmetic."""
    doc = json.loads(path.read_text())
    out = {}
    for r in doc.get("results") or []:
        if analysis.is_handoff(r):
            h = Handoff(analysis.row_of(r))
            out[(h.runtime, h.mechanism, h.placement)] = h
    return out


def spread(xs: list[float]) -> float:
    xs = [x for x in xs if math.isfinite(x) and x > 0]
    return max(xs) / min(xs) - 1 if len(xs) > 1 else math.nan


def holds(h: Handoff, other: float, unit: str) -> bool | None:
    lo, hi = (h.summary if unit == "ns" else h.cycles.summary).ci95
    if not (math.isfinite(lo) and math.isfinite(hi) and math.isfinite(other)):
        return None
    return lo <= other <= hi


def report(paths: list[Path]) -> int:
    runs = [rows(p) for p in paths]
    keys = sorted(set.intersection(*(set(r) for r in runs)), key=lambda k: (k[2] != "pinned", k[0] == "c", k))
    print(f"{len(paths)} runs: " + ", ".join(str(p) for p in paths))
    head = f"{'row':<42} {'ns per run':<28} {'spread':>7}   {'cycles per run':<28} {'spread':>7}  holds ns/cyc"
    print(head)
    worst, cover = [], {"ns": [], "cycles": []}
    for k in keys:
        hs = [r[k] for r in runs]
        ns = [h.estimate for h in hs]
        cyc = [h.estimate_cycles if h.cycles.applies else math.nan for h in hs]
        held = {u: [holds(a, b.estimate if u == "ns" else b.estimate_cycles, u)
                    for a, b in itertools.permutations(hs, 2)] for u in cover}
        for u in cover:
            cover[u] += [x for x in held[u] if x is not None and (u == "ns" or hs[0].cycles.applies)]
        s_ns, s_c = spread(ns), spread(cyc)
        if k[2] == "pinned" and hs[0].cycles.applies:
            worst.append((s_c, k))
        frac = lambda u: f"{sum(1 for x in held[u] if x)}/{sum(1 for x in held[u] if x is not None)}"  # noqa: E731
        print(f"{' '.join(k):<42} {' / '.join(f'{x:.4g}' for x in ns):<28} {s_ns:>7.1%}   "
              f"{' / '.join(f'{x:.4g}' for x in cyc) if hs[0].cycles.applies else 'ns only':<28} "
              f"{s_c:>7.1%}  {frac('ns')} {frac('cycles') if hs[0].cycles.applies else '-'}")
    over = [(s, k) for s, k in worst if not s <= SPREAD_LIMIT]
    print(f"\npinned rows in cycles: {len(worst) - len(over)} of {len(worst)} within {SPREAD_LIMIT:.0%} "
          f"(largest {max(s for s, _ in worst):.1%}: {' '.join(max(worst)[1])})" if worst else "no pinned rows")
    for u, xs in cover.items():
        if xs:
            print(f"a run's interval held another run's estimate in {sum(xs)}/{len(xs)} pairs in {u}")
    for s, k in over:
        print(f"  over {SPREAD_LIMIT:.0%}: {' '.join(k)} {s:.1%}")
    return 1 if over else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*", type=Path, help="runtimes results files (else measure)")
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--gap", type=float, default=60, help="seconds between runs")
    p.add_argument("--out", type=Path, default=Path("bench-runtimes-runs"))
    args, extra = p.parse_known_args()
    paths = args.files or run_to_run.measure(args.runs, args.gap, args.out, extra, "runtimes")
    if len(paths) < 2:
        print("runtimes_run_to_run: two runs or more are needed", file=sys.stderr)
        return 2
    return report(paths)


if __name__ == "__main__":
    sys.exit(main())
