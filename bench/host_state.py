"""What moved a run? The host's sensors against the ids, run to run (issue 48).

Measures (or reads) several default `ctxbench run`s, start to start at least
`--gap` seconds apart, into one results store (so that from the third run on
each run's intervals hold the part between runs its earlier runs show), and
prints:
- per run: its clock and each sensor (core/host_state.py), steal and the
  other CPUs' load;
- per family (same-CPU kernel ids, user-level ids) and sensor: how well the
  sensor's run-to-run movement explains the ids' (the median over the
  family's ids of r^2 of log(median) on log(sensor), and the median slope);
  the clock's too (1 / GHz);
- per id: its spread (max/min - 1) in ns, in cycles, and with the family's
  best sensor taken out (median / sensor^slope, the slope fitted to these
  runs: in-sample, said so);
- how often each run's interval (from the third on) holds the next run's
  median, same-CPU kernel and user-level ids.

    python bench/host_state.py --runs 6 --gap 300 --out DIR   # measure: about 30 minutes
    python bench/host_state.py DIR/run-*.json                 # read runs already made
    python bench/host_state.py --cost 5                       # the sensors' cost: ten default runs

A benchmark, not a test: it reports this host (bench/test_host_state.py).
"""
from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np  # noqa: E402

from ctxbench.core import host_state, reader, results  # noqa: E402
from ctxbench.core.model import Document  # noqa: E402
from ctxbench.core.store.between import doc_ghz  # noqa: E402
from ctxbench.records import RECORDS  # noqa: E402

HOLD_LIMIT = 0.90  # the done-when: intervals that hold the next run's median
THIRD = 1 / 3      # the done-when: a sensor that explains takes out two thirds of the spread
COST_LIMIT = 0.02  # the done-when: the sensors' share of a default run's time
FAMILIES = ("same-CPU kernel", "user-level")


def family(r) -> str | None:
    if r.id.startswith("kernel/") and r.quantity == "switch":
        return FAMILIES[0]
    return FAMILIES[1] if r.id.startswith("user/") else None


def measure(runs: int, gap: float, out: Path) -> list[Path]:
    """`runs` default runs, start to start at least `gap` s apart, into out/store.sqlite and out/run-k.json."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(1, runs + 1):
        start = time.monotonic()
        path = out / f"run-{k}.json"
        cmd = [sys.executable, "-m", "ctxbench", "run", "--store", str(out / "store.sqlite"), "-o", str(path)]
        print(f"$ {' '.join(cmd)}  ({time.strftime('%H:%M:%S', time.gmtime())} UTC)", flush=True)
        with open(out / f"run-{k}.txt", "w") as log:
            p = subprocess.run(cmd, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT / "src")), stdout=log)
        if p.returncode != 0:
            sys.exit(f"run {k} failed (exit {p.returncode})")
        paths.append(path)
        if k < runs:
            time.sleep(max(0.0, gap - (time.monotonic() - start)))
    return paths


def cost(pairs: int) -> tuple[list[float], list[float]]:
    """Seconds of `pairs` default runs with the sensors and as many without
    (CTXBENCH_NO_SENSORS=1), alternating, nothing kept."""
    with_, without = [], []
    for k in range(2 * pairs):
        off = k % 2 == 1
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), **({"CTXBENCH_NO_SENSORS": "1"} if off else {}))
        t0 = time.monotonic()
        subprocess.run([sys.executable, "-m", "ctxbench", "run", "--no-store", "-o", os.devnull], cwd=ROOT, env=env,
                       stdout=subprocess.DEVNULL, check=True)
        (without if off else with_).append(time.monotonic() - t0)
    return with_, without


def load(paths: list[Path]) -> list[dict]:
    """Per run: its name, start, clock, host state and each id's (median, ci, cycles median, family)."""
    out = []
    for p in paths:
        doc = reader.load(str(p), RECORDS)
        d = Document(doc)
        ids = {r.id: (r.summary.median, r.summary.ci95, r.cycles.summary.median if r.cycles.applies else math.nan,
                      family(r)) for r in d.results if family(r)}
        out.append({"name": p.name, "started": str(results.member(d.section(), "started") or ""),
                    "ghz": doc_ghz(doc) or math.nan, "state": host_state.of_results(list(doc.results)), "ids": ids})
    return out


def _fit(y: np.ndarray, x: np.ndarray) -> tuple[float, float]:
    """(r^2, slope) of log y on log x; nan where either does not move."""
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if ok.sum() < 3:
        return math.nan, math.nan
    lx, ly = np.log(x[ok]), np.log(y[ok])
    if np.std(lx) == 0 or np.std(ly) == 0:
        return math.nan, math.nan
    r = float(np.corrcoef(lx, ly)[0, 1])
    return r * r, float(np.polyfit(lx, ly, 1)[0])


def _spread(xs) -> float:
    xs = [x for x in xs if math.isfinite(x) and x > 0]
    return max(xs) / min(xs) - 1 if len(xs) >= 2 else math.nan


def sensors_of(runs: list[dict]) -> dict[str, np.ndarray]:
    """Each sensor's value per run, and the clock as a time (1 / GHz)."""
    out = {k: np.array([r["state"].ns[k] if r["state"] else math.nan for r in runs]) for k in host_state.NAMES}
    out["clock"] = np.array([1 / r["ghz"] if r["ghz"] > 0 else math.nan for r in runs])
    return out


def beyond_clock(runs: list[dict], ids: list[str]) -> dict:
    """Per family and sensor, the fit of the ids in core cycles on the
    sensor in cycles (its ns x the run's clock): what a sensor explains
    that the clock does not."""
    ghz = np.array([r["ghz"] for r in runs])
    sens = {k: np.array([r["state"].ns[k] if r["state"] else math.nan for r in runs]) * ghz for k in host_state.NAMES}
    out = {}
    for fam in FAMILIES:
        mine = [i for i in ids if runs[0]["ids"][i][3] == fam]
        out[fam] = {s: tuple(float(np.nanmedian(v)) if v else math.nan for v in zip(
            *[_fit(np.array([r["ids"][i][2] for r in runs]), x) for i in mine] or [(), ()])) for s, x in sens.items()}
    return out


def analyse(runs: list[dict]) -> dict:
    sens = sensors_of(runs)
    ids = [i for i in runs[0]["ids"] if all(i in r["ids"] for r in runs)]
    fits, per_id = {}, []
    for fam in FAMILIES:
        mine = [i for i in ids if runs[0]["ids"][i][3] == fam]
        table = {s: [_fit(np.array([r["ids"][i][0] for r in runs]), x) for i in mine] for s, x in sens.items()}
        fits[fam] = {s: (float(np.nanmedian([f[0] for f in v])) if v else math.nan,
                         float(np.nanmedian([f[1] for f in v])) if v else math.nan) for s, v in table.items()}
        best = max(host_state.NAMES, key=lambda s: -1 if math.isnan(fits[fam][s][0]) else fits[fam][s][0])
        for k, i in enumerate(mine):
            ns = np.array([r["ids"][i][0] for r in runs])
            slope = table[best][k][1]
            out_ = ns / sens[best] ** slope if math.isfinite(slope) else np.full(len(runs), math.nan)
            per_id.append({"id": i, "family": fam, "sensor": best, "slope": slope, "spread_ns": _spread(ns),
                           "spread_cycles": _spread([r["ids"][i][2] for r in runs]),
                           "spread_out": _spread(out_)})
    return {"fits": fits, "beyond": beyond_clock(runs, ids), "ids": per_id, "holds": holds(runs, ids),
            "sensor_spread": {k: _spread(list(v)) for k, v in sens.items()}}


def holds(runs: list[dict], ids: list[str]) -> list[tuple[str, int, int]]:
    """From the third run on: (run, ids whose interval holds the next run's median, ids)."""
    out = []
    for a, b in zip(runs[2:], runs[3:]):
        n = [a["ids"][i][1][0] <= b["ids"][i][0] <= a["ids"][i][1][1] for i in ids]
        out.append((a["name"], sum(n), len(n)))
    return out


def report(runs: list[dict], a: dict) -> str:
    lines = [f"{'run':<12} {'started':<20} {'GHz':>6} " + " ".join(f"{k:>10}" for k in host_state.NAMES)
             + f" {'steal':>6} {'others':>6}"]
    for r in runs:
        s = r["state"]
        vals = " ".join(f"{s.ns[k]:>10.2f}" if s else f"{'-':>10}" for k in host_state.NAMES)
        lines.append(f"{r['name']:<12} {r['started'][:19]:<20} {r['ghz']:>6.3f} {vals} "
                     + (f"{s.steal_share:>6.1%} {s.others_busy_share:>6.0%}" if s else ""))
    lines += ["", "each sensor's spread over the runs (max/min - 1; clock: 1/GHz): "
              + ", ".join(f"{k} {v:.1%}" for k, v in a["sensor_spread"].items()),
              "", "r^2 of log(median) on log(sensor) over the runs, median over the family's ids (slope):"]
    for fam, f in a["fits"].items():
        lines.append(f"  {fam:<16} " + "  ".join(f"{s} {r2:.2f} ({sl:+.2f})" for s, (r2, sl) in f.items()))
    lines += ["beyond the clock: the same, the ids in core cycles on the sensors in cycles (ns x GHz):"]
    for fam, f in a["beyond"].items():
        lines.append(f"  {fam:<16} " + "  ".join(f"{s} {r2:.2f} ({sl:+.2f})" for s, (r2, sl) in f.items()))
    lines += ["", f"{'id':<36} {'sensor':>9} {'slope':>6} {'ns':>7} {'cycles':>7} {'out':>7}"]
    for x in a["ids"]:
        lines.append(f"{x['id']:<36} {x['sensor']:>9} {x['slope']:>6.2f} {x['spread_ns']:>7.1%} "
                     f"{x['spread_cycles']:>7.1%} {x['spread_out']:>7.1%}")
    third = [x for x in a["ids"] if x["spread_out"] <= THIRD * x["spread_ns"]]
    lines.append(f"with the family's sensor taken out (slope fitted to these runs: in-sample), {len(third)} of "
                 f"{len(a['ids'])} ids spread at most a third of their spread in ns")
    for name, held, n in a["holds"]:
        lines.append(f"{name}'s intervals hold the next run's median in {held} of {n} ids ({held / n:.0%}; "
                     f"{HOLD_LIMIT:.0%} wanted)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", help="run files to read, in the order they ran (else measure)")
    p.add_argument("--runs", type=int, default=6)
    p.add_argument("--gap", type=float, default=300, help="seconds from one run's start to the next's (300)")
    p.add_argument("--out", default="bench-host-state", help="where measured runs and their store go")
    p.add_argument("--cost", type=int, metavar="PAIRS", help="instead: time PAIRS default runs with and without "
                   "the sensors, alternating (their cost, at most 2%% wanted)")
    a = p.parse_args(argv)
    if a.cost:
        on, off = cost(a.cost)
        extra = float(np.median(on)) / float(np.median(off)) - 1
        print(f"default run with the sensors {np.median(on):.2f} s, without {np.median(off):.2f} s (medians of "
              f"{a.cost}): the sensors cost {extra:+.1%} of a run ({COST_LIMIT:.0%} at most wanted)")
        return 0 if extra <= COST_LIMIT else 1
    paths = [Path(f) for f in a.files] or measure(a.runs, a.gap, Path(a.out))
    runs = load(paths)
    print(report(runs, analyse(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
