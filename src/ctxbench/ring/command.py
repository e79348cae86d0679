"""ctxbench ring: cost per switch as the number of parties and their
footprint grow (METHOD.md section 7, seed 002). One engine run per
(parties, footprint) point, every kind and mechanism in it."""
from __future__ import annotations

import datetime
import os

from ctxbench.core import checks
from ctxbench.core import model as results
from ctxbench.core import writer
from ctxbench.run import table
from ctxbench.core.errors import UserError
from ctxbench.run.command import check_counts, check_cpus
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.ui.progress import Progress

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
    p.add_argument("--parties", default=DEFAULT_PARTIES, metavar="N,...", help=f"default {DEFAULT_PARTIES}")
    p.add_argument("--footprint", default=DEFAULT_FOOTPRINT, metavar="K,...",
                   help=f"bytes per party, K/M suffixes (default {DEFAULT_FOOTPRINT})")
    p.add_argument("--kind", default=",".join(KINDS), metavar="K,...", help="thread,process")
    p.add_argument("--mechanism", default=",".join(MECHANISMS), metavar="M,...", help="pipe,futex")
    p.add_argument("-o", "--output", metavar="FILE", help="results file (default: ring-<time>.json)")
    p.add_argument("--plot", metavar="DIR", help="write the figure (ring.png) into DIR")
    p.add_argument("--cpu", type=int, metavar="C", help="CPU the ring runs on (default: the highest allowed)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="few samples per point (smoke test)")
    g.add_argument("--full", action="store_true", help="20 groups x 10 samples per point (long)")
    p.add_argument("--groups", type=int, metavar="G", help="groups of samples per point")
    p.add_argument("--iterations", type=int, metavar="N", help="samples per group")
    p.set_defaults(func=run)


def parse_size(text: str) -> int:
    t = text.strip().upper().removesuffix("B")
    mult = 1
    if t[-1:] in ("K", "M", "G"):
        mult = 1 << {"K": 10, "M": 20, "G": 30}[t[-1]]
        t = t[:-1]
    if not t.isdigit():
        raise UserError(f"--footprint: '{text}' is not a size (e.g. 0, 4096, 16K, 1M)")
    return int(t) * mult


def parse_list(name: str, text: str, conv, allowed=None) -> list:
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not items:
        raise UserError(f"--{name}: empty list")
    out = []
    for x in items:
        v = conv(x)
        if allowed is not None and v not in allowed:
            raise UserError(f"--{name}: '{x}' is not one of {', '.join(allowed)}")
        if v not in out:
            out.append(v)
    return out


def _parties(x: str) -> int:
    if not x.isdigit() or not 2 <= int(x) <= 1024:
        raise UserError(f"--parties: '{x}' is not a number of parties from 2 to 1024")
    return int(x)


def _footprint(x: str) -> int:
    v = parse_size(x)
    if v > 1 << 30:
        raise UserError(f"--footprint: '{x}' is larger than 1G")
    return v


def run(args) -> int:
    started = datetime.datetime.now().isoformat(timespec="seconds")  # before measuring
    parties = parse_list("parties", args.parties, _parties)
    foots = parse_list("footprint", args.footprint, _footprint)
    kinds = parse_list("kind", args.kind, str, KINDS)
    mechs = parse_list("mechanism", args.mechanism, str, MECHANISMS)
    check_counts(args)
    check_cpus(("--cpu", args.cpu))
    out = args.output or f"ring-{datetime.datetime.now():%Y%m%d-%H%M%S}.json"
    writer.check_writable(out)
    if args.plot and os.path.exists(args.plot) and not os.path.isdir(args.plot):
        raise UserError(f"--plot: '{args.plot}' is not a directory")

    preset = "quick" if args.quick else "full" if args.full else "default"
    groups, iterations, min_us = PRESETS[preset]
    ids = [f"ring/{k}/{m}" for k in kinds for m in mechs]
    points = [(n, k) for n in parties for k in foots]
    prog = Progress(len(points) * len(ids), label="ring ")
    prog.update(f"N={points[0][0]} footprint={points[0][1]}")
    header: dict = {}
    res: list[dict] = []
    for n, k in points:
        opts = EngineOptions(cpu=args.cpu, groups=args.groups or groups, iterations=args.iterations or iterations,
                             min_sample_us=min_us, warmup_ms=100,
                             extra=["--parties", str(n), "--footprint", str(k)])
        h, rs = run_ids(ids, opts, None, on_result=lambda r: prog.step(f"N={n} footprint={k}"))
        header = header or h
        res += rs
    prog.close()

    env = header.get("environment", {})
    doc = results.document(header.get("tool", {}), env, res,
                           extra={"kind": "ring",
                                  "run": {"command": "ring", "preset": preset, "parties": parties,
                                          "footprints": foots, "kinds": kinds, "mechanisms": mechs,
                                          "started": started}})
    findings = checks.environment_findings(env, cpus=sorted({r["params"].get("cpu") for r in res} - {None}))
    for r in res:
        findings += checks.result_findings(r)
    doc["checks"] = [f.as_dict() for f in findings]
    writer.write_results(out, doc)

    print(render_table(res))
    if args.plot:
        from ctxbench.ring import figures as ring_fig
        from ctxbench.ui.figures import png_bytes
        os.makedirs(args.plot, exist_ok=True)
        fig = ring_fig.figure(res, env)
        path = os.path.join(args.plot, "ring.png")
        with open(path, "wb") as f:
            f.write(png_bytes(fig))
        print(f"figure written to {path}")
    bad = [r["id"] + f" N={r['params'].get('parties')}" for r in res if not (r.get("verification") or {}).get("ok")]
    if bad:
        print(f"  warning: switch counts disagree with the method for {len(bad)} point(s): {', '.join(bad[:5])}")
    print(f"\nresults written to {out}")
    return 0


def render_table(res: list[dict]) -> str:
    """One line per point: kind/mechanism, N, footprint, median ± CI, switches per hand-off."""
    lines = [f"{'id':<20} {'N':>5} {'footprint':>9}  {'median ± 95% CI':>21}  {'CV':>6}  {'sw/hand-off':>11}  verified"]
    for r in sorted(res, key=lambda r: (r["id"], r["params"].get("footprint", 0), r["params"].get("parties", 0))):
        s = r.get("summary") or {}
        ci = s.get("ci95") or [float("nan")] * 2
        half = (ci[1] - ci[0]) / 2 if None not in ci else float("nan")
        v = r.get("verification") or {}
        spc = v.get("switches_per_handoff")
        cv = s.get("cv")
        lines.append(f"{r['id']:<20} {r['params'].get('parties', '?'):>5} {r['params'].get('footprint', '?'):>9}  "
                     f"{table.fmt_time(s.get('median')) + ' ± ' + table.fmt_time(half):>21}  "
                     f"{(f'{cv:.1%}' if isinstance(cv, float) and cv == cv else 'n/a'):>6}  "
                     f"{(f'{spc:.2f}' if spc else '-'):>11}  "
                     f"{'ok' if v.get('ok') else 'FAILED'}{' (%d dropped)' % v['dropped'] if v.get('dropped') else ''}")
    return "\n".join(lines)
