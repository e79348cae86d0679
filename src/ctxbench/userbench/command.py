"""ctxbench userbench: every user-level switch side by side, in one run:
the assembly switch (default resume, and each resume variant), the simplest
correct switch, swapcontext, green threads, and Boost.Context's fiber (a
separate helper, measured the same way, when Boost.Context was installed
at build time). A benchmark to read, not a test: nothing is asserted."""
from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

from ctxbench.core import engine
from ctxbench.core import model
from ctxbench.core.model import Result, median_of
from ctxbench.stats.derived import ratio
from ctxbench.ui import options, presets
from ctxbench.lifecycle import Lifecycle
from ctxbench.core.errors import UserError
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.ui.progress import Progress

IDS = ["user/asm/same-thread", "user/asm-ret/same-thread", "user/asm-jmp/same-thread",
       "user/asm-minimal/same-thread", "user/ucontext/same-thread", "user/green/yield", "user/green/channel"]
BOOST_ID = "boost/fiber/same-thread"


def add_parser(sub):
    p = sub.add_parser("userbench", help="user-level switches side by side (ns and cycles per switch)",
                       description="Measure every user-level switch in one run and compare them.")
    presets.add_flags(p, "userbench")
    options.add_cpu(p)
    options.add_host(p)
    options.add_samples(p, "userbench")
    options.add_output(p)
    p.set_defaults(func=run)


def boost_helper(eng: engine.Engine) -> str | None:
    """ctxbench-boost-fiber next to the engine (make builds it when Boost.Context is there);
    none on another host (--host: only the engine is copied there)."""
    if eng.remote() is not None:
        return None
    cand = Path(engine.engine_path()).resolve().parent / "ctxbench-boost-fiber"
    return str(cand) if cand.is_file() and os.access(cand, os.X_OK) else None


def run_boost(exe: str, samples: int, cpu: int | None) -> dict:
    args = [exe, "--samples", str(samples), "--n", "200000"] + (["--cpu", str(cpu)] if cpu is not None else [])
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        raise UserError("the Boost.Context helper did not finish within 300 s")
    if p.returncode != 0:
        raise UserError(f"the Boost.Context helper failed: {p.stderr.strip() or p.returncode}")
    return boost_result([json.loads(line) for line in p.stdout.splitlines() if line.strip()], cpu)


def boost_result(rows: list[dict], cpu: int | None) -> dict:
    """The helper's sample lines as an analysed result (schema kind "boost")."""
    n = len(rows)
    raw = {"id": BOOST_ID, "quantity": "switch", "unit": "ns",
           "doc": "Boost.Context fiber resume, same method (separate helper binary)",
           "params": {"kind": "user", "placement": "same-thread", "mechanism": "boost-fiber",
                      "n": rows[0]["n"] if rows else 0, "cpu": cpu},
           "samples": [r["value"] for r in rows],
           "raw": {"t_single_ns": [r["t_single_ns"] for r in rows], "t_switch_ns": [r["t_switch_ns"] for r in rows]},
           "verify": {"expected_voluntary": [0] * n, "voluntary": [r["voluntary"] for r in rows],
                      "involuntary": [r["involuntary"] for r in rows], "migrations": [None] * n},
           "warnings": []}
    return model.analyse(raw)


def _fmt(x: float | None, spec: str) -> str:
    return "n/a" if x is None or not math.isfinite(x) else format(x, spec)


def render(res: list[dict]) -> str:
    idw = max(len(Result(r).id) for r in res)
    lines = [f"  {'id':<{idw}}  {'ns/switch':>10}  {'95% CI':>17}  {'cycles':>7}  {'resume':>11}  verified"]
    for r in map(Result, res):
        s = r.summary
        med, ci = s.median, s.ci95
        cyc = r.cycles.summary.median if r.cycles.applies else None
        lines.append(f"  {r.id:<{idw}}  {_fmt(med, '10.2f')}  "
                     f"{'[' + _fmt(ci[0], '.2f') + ', ' + _fmt(ci[1], '.2f') + ']':>17}  {_fmt(cyc, '7.0f')}  "
                     f"{r.params.get('resume', '-'):>11}  {r.verified[0]}")
    a = median_of(res, "user/asm/same-thread")
    lines.append("")
    for label, num, den in (
            ("swapcontext / asm switch", "user/ucontext/same-thread", "user/asm/same-thread"),
            ("asm switch / simplest correct switch", "user/asm/same-thread", "user/asm-minimal/same-thread"),
            ("asm switch / Boost.Context fiber", "user/asm/same-thread", BOOST_ID),
            ("jmp resume / ret resume", "user/asm-jmp/same-thread", "user/asm-ret/same-thread"),
            ("green yield / asm switch", "user/green/yield", "user/asm/same-thread"),
            ("green channel / asm switch", "user/green/channel", "user/asm/same-thread")):
        x = ratio(median_of(res, num), median_of(res, den))
        lines.append(f"  {label:<38} {_fmt(x, '.2f')}" + ("" if x is not None else "  (not measured or cost <= 0)"))
    if a is not None and a < 0:
        lines.append("  warning: the asm switch's derived cost is negative (noise exceeds it); ratios are void")
    lines.append("")
    lines.append("ns/switch: median of (t_switch/2 - t_single)/n; CI: bootstrap 95% of the median; "
                 "cycles: the median in core cycles (each sample's ns x its group's core clock, ctxbench run's "
                 "footnote; n/a where the helper had no probe).")
    return "\n".join(lines)


def run(args) -> int:
    life = Lifecycle("userbench", args.output, store=args.store, engine=args.engine)
    known = {b["id"] for b in args.engine.list_benchmarks(all_=True)}
    ids = [i for i in IDS if i in known]
    knobs = presets.apply(args, "userbench")
    opts = EngineOptions(cpu=args.cpu, groups=knobs.groups, iterations=knobs.iterations,
                         min_sample_us=knobs.min_sample_us, warmup_ms=knobs.warmup_ms)
    # interleaved: the variants' ratios come from the same mix of machine states
    prog = Progress(len(ids) * (opts.groups + 1), label="measuring ")
    header, res = run_ids(args.engine, ids, opts, prog, interleave=True)
    prog.close()
    env = model.Document(header).environment
    ghz = [Result(r).cycles.ghz for r in res if math.isfinite(Result(r).cycles.ghz)]
    exe = boost_helper(args.engine)
    note = None
    if exe:
        cpu = args.cpu if args.cpu is not None else (Result(res[0]).params.get("cpu_b") if res else None)
        res.append(run_boost(exe, opts.groups * opts.iterations, cpu))
    else:
        note = ("Boost.Context fiber: not measured (helper not built: install libboost-context-dev, "
                "then make boost-fiber)")
    cpu = env.cpu_model or "unknown CPU"
    print(f"\nUser-level switches, one kernel thread, on {cpu}"
          f" (core clock {_fmt(sorted(ghz)[len(ghz) // 2] if ghz else None, '.3f')} GHz)")
    print(render(res))
    if note:
        print(note)
    life.write(life.document(header, res, {"preset": knobs.preset, "engine_args": opts.args()}))
    life.finish()
    return 0
