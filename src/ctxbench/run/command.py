"""ctxbench run: the default suite (timers, baselines, kernel- and
user-level switches, cross-CPU wake-ups), with a table and a results file."""
from __future__ import annotations

import math
import statistics
import sys
import textwrap

from ctxbench.core import checks, host_state, writer
from ctxbench.core import model
from ctxbench.rounds import apply_between_runs
from ctxbench.core.errors import UserError, shown
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.run import host, table
from ctxbench.ui import options, presets
from ctxbench.lifecycle import Lifecycle
from ctxbench.ui.progress import Progress

def add_parser(sub):
    p = sub.add_parser("run", help="measure the default suite and write a results file",
                       description="Measure timers, baselines and the direct cost of context switches.")
    presets.add_flags(p, "run")
    options.add_output(p)
    options.add_cpu(p)
    options.add_host(p)
    p.add_argument("--cross-cpu", type=options.cpu, metavar="M", help="second CPU for cross-CPU wake-ups")
    p.add_argument("--ids", metavar="ID,...", type=options.nonempty_list, help="measure only these ids (see ctxbench-engine list)")
    options.add_samples(p, "run")
    p.add_argument("--no-idle", action="store_true",
                   help="hold /dev/cpu_dma_latency at 0 during the run (keeps CPUs out of deep idle)")
    p.add_argument("--json", action="store_true", help="print the results document on stdout too")
    p.set_defaults(func=run)


def run(args) -> int:
    # -o and the store first: refused before any host
    life = Lifecycle("run", args.output, store=args.store, engine=args.engine)
    if args.cross_cpu is not None and args.cross_cpu == args.engine.measured_cpu(args.cpu):
        raise UserError(f"--cross-cpu {args.cross_cpu} is the measured CPU"
                        + ("" if args.cpu is not None else " (the highest allowed, as no --cpu was given)")
                        + ": a cross-CPU wake-up needs another CPU")

    knobs = presets.apply(args, "run")
    known = args.engine.list_benchmarks(all_=True)
    if args.ids:
        ids = [i.strip() for i in args.ids.split(",") if i.strip()]
        names = {b["id"] for b in known}
        bad = [i for i in ids if i not in names]
        if bad:
            raise UserError(f"unknown id {shown(bad[0])} (see 'ctxbench-engine list')")
    else:
        ids = [b["id"] for b in known if b.get(knobs.suite)]
    # Ids that need a second CPU cannot run with one allowed CPU: skip them
    # up front (with a note in the results) rather than fail after measuring.
    skipped = []
    if len(args.engine.allowed_cpus()) < 2:
        skipped = [i for i in ids if "/cross-cpu" in i]
        ids = [i for i in ids if i not in skipped]
        if skipped:
            print(f"note: only one CPU is allowed: skipping {len(skipped)} cross-CPU id(s) "
                  f"({', '.join(skipped)})", file=sys.stderr)
    if not ids:
        raise UserError("nothing to measure" + (" with one CPU allowed" if skipped else ""))

    opts = EngineOptions(cpu=args.cpu, cross_cpu=args.cross_cpu,
                         groups=knobs.groups, iterations=knobs.iterations,
                         min_sample_us=knobs.min_sample_us, no_idle=args.no_idle, warmup_ms=knobs.warmup_ms)
    # interleaved: every id's samples spread over the whole run (see measure)
    prog = Progress(len(ids) * (opts.groups + 1), label="measuring ")
    failures: list[dict] = []  # ids the engine could not measure: the others are kept
    header, res = run_ids(args.engine, ids, opts, prog, interleave=True, failures=failures)
    prog.close()
    res, drift = model.apply_drift(res)  # intervals that cover a run at another time

    env = model.Document(header).environment
    views = [model.Result(r) for r in res]
    findings = checks.environment_findings(env, cpus=sorted({r.params.cpu for r in views} |
                                                            {r.params.get("cpu_b") for r in views} - {None}))
    for r in res:
        findings += checks.result_findings(r)
    if args.no_idle and not env.idle_held:
        findings.append(checks.Finding("warning", "idle", "--no-idle was asked for but /dev/cpu_dma_latency "
                                       f"could not be held at 0 ({env.no_idle_error or 'no reason given'}): "
                                       "CPUs could enter deep idle states", "run as root"))
    earlier = life.earlier(header, res)
    hrec = _host_record(res, earlier)  # the sensors as measured, before the intervals are widened
    # with earlier runs of this host, each interval also holds what moved between them
    res, earlier["widened"] = apply_between_runs(res, earlier.get("spreads") or {})
    doc = life.document(header, res, {"preset": knobs.preset, "engine_args": opts.args(), "ids": ids,
                                      "order": "interleaved by group", "drift": drift,
                                      "skipped": [{"id": i, "why": "needs two CPUs, one allowed"} for i in skipped],
                                      "between_runs": table.earlier_record(earlier),
                                      **({"host_state": hrec} if hrec else {})},
                        checks=[f.as_dict() for f in findings], **({"failures": failures} if failures else {}))
    life.write(doc)

    where = sys.stderr if life.out.fd == 1 else sys.stdout  # -o -: the document alone on standard output
    print(table.render(res, drift=drift, earlier=earlier, host=hrec), file=where)
    warn = [f for f in checks.grouped(findings) if f.level == "warning"]
    for f in warn:
        print(textwrap.fill(f.what, width=110, initial_indent="  warning: ", subsequent_indent=" " * 11, break_on_hyphens=False)
              + (f"\n           hint: {f.hint}" if f.hint else ""), file=where)
    life.finish()
    if args.json:
        sys.stdout.write(writer.results_text(doc))
    life.failed(failures, len(ids))
    return 0


def _host_record(res: list, earlier: dict) -> dict | None:
    """The host's state while the run ran, against this host's best in the
    store (run/host.py); None where the engine timed no sensors."""
    ghz = [model.Result(r).cycles.ghz for r in res if math.isfinite(model.Result(r).cycles.ghz)]
    speed = earlier.get("speed")
    return host.record(host_state.of_results(res), statistics.median(ghz) if ghz else math.nan,
                       earlier.get("host_best"), speed.fastest_ghz if speed else None)
