"""ctxbench ring: cost per switch as the number of parties and their
footprint grow (METHOD.md section 7, seed 002). One engine run per
(parties, footprint) point, every kind and mechanism in it."""
from __future__ import annotations

import math

from ctxbench.core import checks
from ctxbench.core.model import Result
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.ui.format import fmt_time
from ctxbench.ui import options
from ctxbench.ui.command import Lifecycle
from ctxbench.ui.progress import Progress

MIN_PARTIES, MAX_PARTIES = 2, 1024
KINDS = ("thread", "process")
MECHANISMS = ("pipe", "futex")
DEFAULT_PARTIES = "2,4,8,16,32,64,128"
DEFAULT_FOOTPRINT = "0,4K,16K,64K"
# groups, iterations, shortest sample (µs): the default run of 112 points
# must end within 5 minutes on a small, shared VM.
PRESETS = {"quick": (2, 4, 500), "default": (10, 8, 1000), "full": (20, 10, 2000)}


def add_parser(sub):
    p = sub.add_parser("ring", help="cost per switch in a ring of N parties with a footprint each",
                       description="N parties pinned to one CPU pass a token round a ring, each touching "
                                   "its own footprint while it holds it; cost per hand-off vs N and footprint.")
    p.add_argument("--parties", default=DEFAULT_PARTIES, metavar="N,...", type=_parties,
                   help=f"parties in the ring, {MIN_PARTIES} to {MAX_PARTIES} (default {DEFAULT_PARTIES})")
    p.add_argument("--footprint", default=DEFAULT_FOOTPRINT, metavar="K,...", type=_footprints,
                   help=f"bytes per party, K/M suffixes, at most 1G (default {DEFAULT_FOOTPRINT})")
    p.add_argument("--kind", default=",".join(KINDS), metavar="K,...", type=options.choice_list(KINDS),
                   help=f"default {','.join(KINDS)}")
    p.add_argument("--mechanism", default=",".join(MECHANISMS), metavar="M,...", type=options.choice_list(MECHANISMS),
                   help=f"default {','.join(MECHANISMS)}")
    options.add_output(p, "ring")
    options.add_plot(p, "the figure (ring)")
    options.add_cpu(p, "CPU the ring runs on")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="%d groups x %d samples per point (smoke test)" % PRESETS["quick"][:2])
    g.add_argument("--full", action="store_true", help="%d groups x %d samples per point (long)" % PRESETS["full"][:2])
    options.add_samples(p)
    p.set_defaults(func=run)


def _parties(text: str) -> list[int]:
    return options.int_list(text, MIN_PARTIES, MAX_PARTIES)


def _footprints(text: str) -> list[int]:
    out = []
    for x in (t for t in text.split(",") if t.strip()):
        v = options.size(x)
        if v > 1 << 30:
            raise options.Bad(f"'{x}' is larger than 1G")
        if v not in out:
            out.append(v)
    if not out:
        raise options.Bad("empty list")
    return out


def run(args) -> int:
    parties, foots, kinds, mechs = args.parties, args.footprint, args.kind, args.mechanism
    life = Lifecycle("ring", args.output)
    preset = "quick" if args.quick else "full" if args.full else "default"
    groups, iterations, min_us = PRESETS[preset]
    ids = [f"ring/{k}/{m}" for k in kinds for m in mechs]
    points = [(n, k) for n in parties for k in foots]
    prog = Progress(len(points) * len(ids), label="ring ")
    prog.update(f"N={points[0][0]} footprint={points[0][1]}")
    header: dict = {}
    res: list[dict] = []
    try:
        for n, k in points:
            opts = EngineOptions(cpu=args.cpu, groups=args.groups or groups,
                                 iterations=args.iterations or iterations, min_sample_us=min_us, warmup_ms=100,
                                 extra=["--parties", str(n), "--footprint", str(k)])
            h, rs = run_ids(ids, opts, None, on_result=lambda r: prog.step(f"N={n} footprint={k}"))
            header = header or h
            res += rs
    finally:
        prog.close()

    env = header.get("environment", {})
    doc = life.document(header, res, {"command": "ring", "preset": preset, "parties": parties,
                                      "footprints": foots, "kinds": kinds, "mechanisms": mechs}, kind="ring")
    findings = checks.environment_findings(env, cpus=sorted({Result(r).params.cpu for r in res} - {None}))
    for r in res:
        findings += checks.result_findings(r)
    doc["checks"] = [f.as_dict() for f in findings]
    life.write(doc)
    if args.plot:  # matplotlib only when figures are asked for (start-up time)
        from ctxbench.ring import figures as ring_figures
        life.figures(args.plot, [("ring", ring_figures.figure(res, env))])

    print(render_table(res))
    bad = [f"{v.id} N={v.params.parties}" for v in map(Result, res) if not v.verification.get("ok")]
    if bad:
        print(f"  warning: switch counts disagree with the method for {len(bad)} point(s): {', '.join(bad[:5])}")
    life.finish()
    return 0


def render_table(res: list[dict]) -> str:
    """One line per point: kind/mechanism, N, footprint, median ± CI, switches per hand-off."""
    lines = [f"{'id':<20} {'N':>5} {'footprint':>9}  {'median ± 95% CI':>21}  {'CV':>6}  {'sw/hand-off':>11}  verified"]
    for r in sorted(map(Result, res), key=lambda r: (r.id, r.params.footprint or 0, r.params.parties or 0)):
        s = r.summary
        half = (s.ci95[1] - s.ci95[0]) / 2
        spc = r.verification.get("switches_per_handoff")
        lines.append(f"{r.id:<20} {r.params.get('parties', '?'):>5} {r.params.get('footprint', '?'):>9}  "
                     f"{fmt_time(s.median) + ' ± ' + fmt_time(half):>21}  "
                     f"{(f'{s.cv:.1%}' if math.isfinite(s.cv) else 'n/a'):>6}  "
                     f"{(f'{spc:.2f}' if spc else '-'):>11}  {r.verified[0]}")
    return "\n".join(lines)
