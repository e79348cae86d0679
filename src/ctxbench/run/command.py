"""ctxbench run: the default suite (timers, baselines, kernel- and
user-level switches, cross-CPU wake-ups), with a table and a results file."""
from __future__ import annotations

import datetime
import os
import sys
import textwrap

from ctxbench.core import checks
from ctxbench.core import engine
from ctxbench.core import model as results
from ctxbench.core import writer
from ctxbench.run import table
from ctxbench.core.errors import UserError
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.ui.progress import Progress

PRESETS = {
    # groups, iterations, shortest sample (µs): seed 001 used 20 x 10; the
    # default takes 48 short groups, interleaved over ~25 s, so that each id's
    # median averages over the host's drift (run-to-run agreement, README).
    # The engine's run-suite uses the same counts (engine/src/main.c).
    "quick": (5, 6, 500),
    "default": (48, 8, 1500),
    "full": (160, 8, 2000),
}


def add_parser(sub):
    p = sub.add_parser("run", help="measure the default suite and write a results file",
                       description="Measure timers, baselines and the direct cost of context switches.")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="a small subset for smoke tests (< 15 s)")
    g.add_argument("--full", action="store_true", help="more groups and longer samples (several minutes)")
    p.add_argument("-o", "--output", metavar="FILE", help="results file (default: ctxbench-<time>.json)")
    p.add_argument("--cpu", type=int, metavar="N", help="CPU to measure on (default: the highest allowed)")
    p.add_argument("--cross-cpu", type=int, metavar="M", help="second CPU for cross-CPU wake-ups")
    p.add_argument("--ids", metavar="ID,...", help="measure only these ids (see ctxbench-engine list)")
    p.add_argument("--groups", type=int, metavar="G", help="groups of samples (each with fresh parties)")
    p.add_argument("--iterations", type=int, metavar="N", help="samples per group")
    p.add_argument("--no-idle", action="store_true",
                   help="hold /dev/cpu_dma_latency at 0 during the run (keeps CPUs out of deep idle)")
    p.add_argument("--json", action="store_true", help="print the results document on stdout too")
    p.set_defaults(func=run)


LIMITS = {"groups": 10000, "iterations": 100000}


def check_counts(args) -> None:
    for name, hi in LIMITS.items():
        v = getattr(args, name, None)
        if v is not None and not 1 <= v <= hi:
            raise UserError(f"--{name}: expected an integer from 1 to {hi}, got {v}")


def check_cpus(*cpus_named) -> None:
    """Each (flag, cpu) must be a CPU this process may run on."""
    allowed = sorted(os.sched_getaffinity(0))
    for flag, cpu in cpus_named:
        if cpu is not None and cpu not in allowed:
            raise UserError(f"{flag} {cpu}: no such CPU, or not allowed for this process "
                            f"(allowed: {','.join(map(str, allowed))})")


def run(args) -> int:
    check_counts(args)
    check_cpus(("--cpu", args.cpu), ("--cross-cpu", args.cross_cpu))
    if args.cpu is not None and args.cpu == args.cross_cpu:
        raise UserError("--cross-cpu must differ from --cpu")
    out = args.output or f"ctxbench-{datetime.datetime.now():%Y%m%d-%H%M%S}.json"
    writer.check_writable(out)

    preset = "quick" if args.quick else "full" if args.full else "default"
    groups, iterations, min_us = PRESETS[preset]
    known = engine.list_benchmarks(all_=True)
    if args.ids:
        ids = [i.strip() for i in args.ids.split(",") if i.strip()]
        names = {b["id"] for b in known}
        bad = [i for i in ids if i not in names]
        if bad:
            raise UserError(f"unknown id '{bad[0]}' (see 'ctxbench-engine list')")
    else:
        flag = "quick" if args.quick else "default"
        ids = [b["id"] for b in known if b.get(flag)]
    # Ids that need a second CPU cannot run with one allowed CPU: skip them
    # up front (with a note in the results) rather than fail after measuring.
    skipped = []
    if len(os.sched_getaffinity(0)) < 2:
        skipped = [i for i in ids if "/cross-cpu" in i]
        ids = [i for i in ids if i not in skipped]
        if skipped:
            print(f"note: only one CPU is allowed: skipping {len(skipped)} cross-CPU id(s) "
                  f"({', '.join(skipped)})", file=sys.stderr)
    if not ids:
        raise UserError("nothing to measure" + (" with one CPU allowed" if skipped else ""))

    started = datetime.datetime.now().isoformat(timespec="seconds")
    opts = EngineOptions(cpu=args.cpu, cross_cpu=args.cross_cpu,
                         groups=args.groups or groups, iterations=args.iterations or iterations,
                         min_sample_us=min_us, no_idle=args.no_idle,
                         warmup_ms=100 if args.quick else None)
    # interleaved: every id's samples spread over the whole run (see measure)
    prog = Progress(len(ids) * (opts.groups + 1), label="measuring ")
    header, res = run_ids(ids, opts, prog, interleave=True)
    prog.close()

    env = header.get("environment", {})
    doc = results.document(header.get("tool", {}), env, res,
                           extra={"run": {"preset": preset, "engine_args": opts.args(), "ids": ids,
                                          "order": "interleaved by group",
                                          "started": started,
                                          "skipped": [{"id": i, "why": "needs two CPUs, one allowed"}
                                                      for i in skipped]}})
    findings = checks.environment_findings(env, cpus=sorted({r["params"].get("cpu") for r in res} |
                                                            {r["params"].get("cpu_b") for r in res} - {None}))
    for r in res:
        findings += checks.result_findings(r)
    idle = env.get("idle") or {}
    if args.no_idle and not idle.get("cpu_dma_latency_held_at_0"):
        findings.append(checks.Finding("warning", "idle", "--no-idle was asked for but /dev/cpu_dma_latency "
                                       f"could not be held at 0 ({idle.get('no_idle_error') or 'no reason given'}): "
                                       "CPUs could enter deep idle states", "run as root"))
    doc["checks"] = [f.as_dict() for f in findings]
    writer.write_results(out, doc)

    print(table.render(res, cycle_hz=(env.get("timers") or {}).get("cycle_hz")))
    warn = [f for f in checks.grouped(findings) if f.level == "warning"]
    for f in warn:
        print(textwrap.fill(f.what, width=110, initial_indent="  warning: ", subsequent_indent=" " * 11, break_on_hyphens=False)
              + (f"\n           hint: {f.hint}" if f.hint else ""))
    print(f"\nresults written to {out}")
    if args.json:
        import json
        json.dump(writer.jsonable(doc), sys.stdout, indent=1)
        print()
    return 0
