"""Issue 45's done-when, as a benchmark of this host: the indirect cost
where it is paid (the chunk design) against the whole-run design, in the
same default runs.

- `ctxbench tasks`, defaults: every default pair's per-switch cost is
  resolved (95% half-width at most 25% of the estimate) or bounded below
  100 ns (its interval inside +-100 ns), and its MDE is at most a tenth of
  the whole-run design's (the slope) in the same run;
- two default `tasks` runs at least five minutes apart: the intervals
  overlap pair by pair;
- `ctxbench irq`, defaults: every task's per-interrupt indirect cost is
  resolved, or bounded within 5% of D;
- the recovery curves are drawn (--plot) for someone to look at.

Usage: python bench/chunked_indirect.py OUT_DIR [--gap-s 300]
(measures), or python bench/chunked_indirect.py --judge TASKS.json
[TASKS2.json] [IRQ.json] (judges files already measured). A figure for
the docs is measured with nothing else running on the machine."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CTXBENCH = [str(ROOT / ".venv" / "bin" / "ctxbench")]


def measure(out: Path, gap_s: float) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = []
    started = time.monotonic()  # the first tasks run starts now; the second gap_s after it at the soonest
    for name, cmd in (("tasks-1", ["tasks"]), ("irq", ["irq"]), ("tasks-2", ["tasks"])):
        if name == "tasks-2":
            time.sleep(max(0.0, gap_s - (time.monotonic() - started)))
        f = out / f"{name}.json"
        p = subprocess.run(CTXBENCH + cmd + ["-o", str(f), "--no-store", "--plot", str(out / f"figs-{name}")],
                           capture_output=True, text=True, timeout=3600)
        (out / f"{name}.out").write_text(p.stdout + p.stderr)
        if not f.exists():
            raise RuntimeError(f"{name}: no results file (status {p.returncode}): {p.stderr[-500:]}")
        files.append(f)
    return files


def _half(e: dict) -> float:
    lo, hi = e["ci95"]
    return (hi - lo) / 2


def judge_tasks(doc: dict) -> tuple[list[str], bool]:
    lines, ok = [], True
    for pair, s in doc["tasks"]["per_pair"].items():
        ch = s.get("chunks")
        if not ch:
            lines.append(f"  {pair}: no chunk design in this file")
            ok = False
            continue
        e, w = ch["per_switch"], s["per_switch"]
        est, (lo, hi) = e["estimate_ns"], e["ci95"]
        resolved = e["resolved"] and _half(e) <= 0.25 * abs(est)
        bounded = max(abs(lo), abs(hi)) < 100
        ratio = w["mde_ns"] / e["mde_ns"] if e["mde_ns"] > 0 else math.inf
        good = (resolved or bounded) and ratio >= 10
        ok &= good
        lines.append(f"  {pair}: {est:.0f} ns [{lo:.0f}, {hi:.0f}] ({'resolved' if resolved else 'bounded' if bounded else 'NEITHER'}); "
                     f"MDE {e['mde_ns']:.0f} ns against the slope's {w['mde_ns']:.0f} ns ({ratio:.0f}x){'' if good else '  FAILS'}")
    return lines, ok


def overlap(a: dict, b: dict) -> tuple[list[str], bool]:
    lines, ok = [], True
    for pair, s in a["tasks"]["per_pair"].items():
        t = b["tasks"]["per_pair"].get(pair)
        if not (t and s.get("chunks") and t.get("chunks")):
            continue
        (l1, h1), (l2, h2) = s["chunks"]["per_switch"]["ci95"], t["chunks"]["per_switch"]["ci95"]
        good = l1 <= h2 and l2 <= h1
        ok &= good
        lines.append(f"  {pair}: [{l1:.0f}, {h1:.0f}] and [{l2:.0f}, {h2:.0f}] ns: {'overlap' if good else 'DO NOT overlap'}")
    return lines, ok


def judge_irq(doc: dict) -> tuple[list[str], bool]:
    ch = doc["irq"].get("chunks")
    if not ch:
        return ["  no chunk design in this file"], False
    lines, ok = [f"  D (chunks) = {ch['D']['estimate_ns']:.0f} ns"], True
    for task, rec in ch["tasks"].items():
        e = rec["per_interrupt"]
        good = rec["verdict"] in ("resolved", "bounded")
        ok &= good
        lines.append(f"  {task}: {e['estimate_ns']:.0f} ns [{e['ci95'][0]:.0f}, {e['ci95'][1]:.0f}]: {rec['verdict']}"
                     f" (after the signal's chunk {rec['after_signal_chunk']['estimate_ns']:.0f} ns)")
    return lines, ok


def report(tasks1: dict, tasks2: dict | None, irq: dict | None) -> tuple[str, bool]:
    out, ok = [], True
    for name, doc in (("tasks, run 1", tasks1), ("tasks, run 2", tasks2)):
        if doc:
            lines, good = judge_tasks(doc)
            out += [f"{name} ({doc['tasks'].get('wall_s', 0):.0f} s):"] + lines
            ok &= good
    if tasks2:
        lines, good = overlap(tasks1, tasks2)
        out += ["the two runs, pair by pair:"] + lines
        ok &= good
    if irq:
        lines, good = judge_irq(irq)
        out += [f"irq ({irq['irq'].get('seconds', 0):.0f} s):"] + lines
        ok &= good
    return "\n".join(out), ok


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--judge"]:
        docs = [json.loads(Path(a).read_text()) for a in args[1:]]
        tasks = [d for d in docs if "tasks" in d]
        irq = next((d for d in docs if "irq" in d), None)
        text, ok = report(tasks[0], tasks[1] if len(tasks) > 1 else None, irq)
    else:
        gap = float(args[args.index("--gap-s") + 1]) if "--gap-s" in args else 300.0
        f = measure(Path(args[0]), gap)
        text, ok = report(*(json.loads(x.read_text()) for x in (f[0], f[2], f[1])))
    print(text)
    sys.exit(0 if ok else 1)
