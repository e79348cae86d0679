"""ctxbench run: the default suite (timers, baselines, kernel- and
user-level switches, cross-CPU wake-ups), with a table and a results file."""
from __future__ import annotations

import os
import sys
import textwrap

from ctxbench.core import checks, engine, writer
from ctxbench.core import model as results
from ctxbench.core.errors import UserError, shown
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.run import table
from ctxbench.ui import options
from ctxbench.lifecycle import Lifecycle
from ctxbench.ui.progress import Progress

def add_parser(sub):
    p = sub.add_parser("run", help="measure the default suite and write a results file",
                       description="Measure timers, baselines and the direct cost of context switches.")
    # the engine's presets (engine/src/cli/options.c, where their counts are explained)
    options.add_presets(p, None, quick="a small subset for smoke tests (< 15 s)",
                        full="more groups and longer samples (several minutes)")
    options.add_output(p)
    options.add_cpu(p)
    p.add_argument("--cross-cpu", type=options.cpu, metavar="M", help="second CPU for cross-CPU wake-ups")
    p.add_argument("--ids", metavar="ID,...", type=options.nonempty_list, help="measure only these ids (see ctxbench-engine list)")
    options.add_samples(p)
    p.add_argument("--no-idle", action="store_true",
                   help="hold /dev/cpu_dma_latency at 0 during the run (keeps CPUs out of deep idle)")
    p.add_argument("--json", action="store_true", help="print the results document on stdout too")
    p.set_defaults(func=run)


def run(args) -> int:
    # The engine measures on --cpu, else the highest allowed CPU (engine.measured_cpu).
    measured = args.cpu if args.cpu is not None else max(engine.ALLOWED)
    if args.cross_cpu is not None and args.cross_cpu == measured:
        raise UserError(f"--cross-cpu {args.cross_cpu} is the measured CPU"
                        + ("" if args.cpu is not None else " (the highest allowed, as no --cpu was given)")
                        + ": a cross-CPU wake-up needs another CPU")
    life = Lifecycle("run", args.output, store=args.store)

    preset = options.preset(args)
    counts = engine.presets()[preset]
    groups, iterations, min_us = counts["groups"], counts["iterations"], counts["min_sample_us"]
    known = engine.list_benchmarks(all_=True)
    if args.ids:
        ids = [i.strip() for i in args.ids.split(",") if i.strip()]
        names = {b["id"] for b in known}
        bad = [i for i in ids if i not in names]
        if bad:
            raise UserError(f"unknown id {shown(bad[0])} (see 'ctxbench-engine list')")
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

    opts = EngineOptions(cpu=args.cpu, cross_cpu=args.cross_cpu,
                         groups=args.groups or groups, iterations=args.iterations or iterations,
                         min_sample_us=min_us, no_idle=args.no_idle,
                         warmup_ms=100 if args.quick else None)
    # interleaved: every id's samples spread over the whole run (see measure)
    prog = Progress(len(ids) * (opts.groups + 1), label="measuring ")
    failures: list[dict] = []  # ids the engine could not measure: the others are kept
    header, res = run_ids(ids, opts, prog, interleave=True, failures=failures)
    prog.close()
    drift = results.apply_drift(res)  # intervals that cover a run at another time

    env = header.get("environment", {})
    doc = life.document(header, res, {"preset": preset, "engine_args": opts.args(), "ids": ids,
                                      "order": "interleaved by group", "drift": drift,
                                      "skipped": [{"id": i, "why": "needs two CPUs, one allowed"} for i in skipped]})
    views = [results.Result(r) for r in res]
    findings = checks.environment_findings(env, cpus=sorted({r.params.cpu for r in views} |
                                                            {r.params.get("cpu_b") for r in views} - {None}))
    for r in res:
        findings += checks.result_findings(r)
    idle = env.get("idle") or {}
    if args.no_idle and not idle.get("cpu_dma_latency_held_at_0"):
        findings.append(checks.Finding("warning", "idle", "--no-idle was asked for but /dev/cpu_dma_latency "
                                       f"could not be held at 0 ({idle.get('no_idle_error') or 'no reason given'}): "
                                       "CPUs could enter deep idle states", "run as root"))
    doc["checks"] = [f.as_dict() for f in findings]
    if failures:
        doc["failures"] = failures
    earlier = life.earlier(doc)
    # with earlier runs of this host, each interval also holds what moved between them
    earlier["widened"] = results.apply_between_runs(res, earlier.get("spreads") or {})
    doc["run"]["between_runs"] = table.earlier_record(earlier)
    life.write(doc)

    print(table.render(res, drift=drift, earlier=earlier))
    warn = [f for f in checks.grouped(findings) if f.level == "warning"]
    for f in warn:
        print(textwrap.fill(f.what, width=110, initial_indent="  warning: ", subsequent_indent=" " * 11, break_on_hyphens=False)
              + (f"\n           hint: {f.hint}" if f.hint else ""))
    life.finish()
    if args.json:
        sys.stdout.write(writer.results_text(doc))
    life.failed(failures, len(ids))
    return 0
