"""ctxbench history: one or more ids across the runs in the results store,
over time or over a key (kernel, host, runtime version, ...), each run
with its interval, and the runs where a series changed (E-divisive means,
history/changes.py) with the medians before and after and the first run
after the change (its kernel, its commit)."""
from __future__ import annotations

import datetime
import math
import statistics

from ctxbench.core.errors import UserError, escaped
from ctxbench.ui.format import fmt_value
from ctxbench.ui.options import add_plot, add_store

# what --by can order and label the runs by (history/series.Point's fields)
BY = ("time", "kernel", "microcode", "host", "runtime_version", "ctxbench_version", "git_commit", "mitigations")


# what --across groups the runs by (history/series.Point's fields)
ACROSS = ("host", "cpu_model", "kernel", "microcode", "runtime_version", "ctxbench_version", "mitigations")


MAX_PANELS = 24  # series drawn in one figure: a taller one takes minutes and cannot be read


def _date(what: str):
    def parse(text: str) -> str:
        from ctxbench.core.store import query  # no SQLAlchemy: a date's meaning, checked as it is parsed
        return query.check(text, what)
    parse.__name__ = "date"
    return parse


def _nonempty(text: str) -> str:
    if not text.strip():
        raise ValueError("empty")
    return text


_nonempty.__name__ = "name"


def add_parser(sub):
    p = sub.add_parser("history", help="ids across the runs in the results store, with change points",
                       description="Show ids over the runs kept in the results store: over time or a key, "
                                   "each run's median and interval, and where a series changed.")
    p.add_argument("ids", nargs="+", metavar="ID", help="ids or points; shell patterns (kernel/*/pipe/*) match several")
    p.add_argument("--by", choices=BY, default="time", help="what the runs are ordered and labelled by "
                   "(default: time)")
    p.add_argument("--host", type=_nonempty, help="only this host's runs (* matches any text)")
    p.add_argument("--kernel", type=_nonempty, metavar="RELEASE",
                   help="only runs on this kernel release (* matches any text)")
    p.add_argument("--since", type=_date("--since"), metavar="DATE", help="only runs started at or after DATE")
    p.add_argument("--until", type=_date("--until"), metavar="DATE",
                   help="only runs started at or before DATE (a date: up to the end of that day)")
    p.add_argument("--across", choices=ACROSS, metavar="KEY",
                   help=f"rank the values of KEY ({', '.join(ACROSS)}): each one's runs pooled, fastest first "
                        "(which host, CPU or kernel switches fastest)")
    p.add_argument("--pool", action="store_true",
                   help="also pool each series' runs into one estimate with a between-run component "
                        "(random effects: Paule-Mandel, Hartung-Knapp interval)")
    p.add_argument("--unit", choices=("auto", "cycles", "ns"), default="auto",
                   help="the unit of the series: core cycles where every run has them, else ns (auto, the "
                        "default: the host's clock moves between runs); or ns; or cycles only")
    p.add_argument("-o", "--output", metavar="FILE", help="also write the series, changes and pools as JSON")
    add_store(p)
    add_plot(p, "the figure (history)")
    p.set_defaults(func=run)


def run(args) -> int:
    import os

    from ctxbench.core import writer
    from ctxbench.core.store.db import open_store
    from ctxbench.history import changes, pooled, series  # SQLAlchemy, the detector: when the command runs
    figures_at = [os.path.join(args.plot, f"history.{ext}") for ext in ("png", "svg")] if args.plot else []
    # every output decided before the store is opened: none may be the store (a reader never creates one)
    out = writer.check_writable(args.output) if args.output else None
    store = open_store(args.store, writes=False, outputs=[args.output, *figures_at])
    f = series.Filters(args.host, args.kernel, args.since, args.until)
    with store.begin(write=False) as conn:
        keys = series.ids_matching(conn, args.ids)
        if not keys:
            raise UserError(f"history: no id in {store.name} matches {', '.join(map(escaped, args.ids))}")
        found = {k: series.load(conn, k, f) for k in keys}
    found = {k: v for k, v in found.items() if v}
    if not found:
        raise UserError("history: no run of those ids passes the filters")
    if args.across:
        ranked = []
        for key, by_host in found.items():
            every = [p for points in by_host.values() for p in points]
            shown_in = series.in_unit(every, args.unit)
            if not shown_in:
                print(f"\n{escaped(key)}: not every run has core cycles (runs from before the probe, or a cross-CPU "
                      "id): --unit cycles leaves it out")
                continue
            print(render_across(key, shown_in, args.across))
            ranked.append({"id": key, "unit": shown_in[0].unit, "rows": across_rows(shown_in, args.across)})
            if shown_in[0].unit == "cycles":
                print(render_across(key, every, args.across, "  the same in ns (the host's clock moves it):"))
                ranked[-1]["rows_ns"] = across_rows(every, args.across)
        if out is not None:  # -o: the ranking, as the series would be
            writer.write_json(out, {"history": {"ids": args.ids, "across": args.across, "ranked": ranked}})
            _said_written(out, args.output)
        return 0
    drawn = []
    for key, by_host in found.items():
        for host, ns_points in by_host.items():
            points = series.in_unit(ns_points, args.unit)
            if not points:
                print(f"\n{escaped(key)} on {escaped(host)}: not every run has core cycles (runs from before the "
                      "probe, or a cross-CPU id): --unit cycles leaves it out")
                continue
            if args.by != "time":
                points = sorted(points, key=lambda p: (p.key(args.by), p.started or datetime.datetime.min))
            found_changes = changes.find([p.median for p in points]) if args.by == "time" else []
            pool = pooled.pool([p.median for p in points], [p.ci_lo for p in points],
                               [p.ci_hi for p in points]) if args.pool else None
            print(render(key, host, points, found_changes, args.by, ns_points))
            if args.pool:
                print(render_pool(pool, points[0].unit))
            drawn.append((key, host, points, found_changes, pool, ns_points))
    if out is not None:
        writer.write_json(out, as_json(drawn, args))
        _said_written(out, args.output)
    if args.plot and drawn:
        from ctxbench.history import figures
        from ctxbench.ui.figures import save
        if len(drawn) > MAX_PANELS:
            print(f"\nfigure: the first {MAX_PANELS} of {len(drawn)} series (one panel each; name fewer ids, or "
                  "--host, --kernel, --since, to draw others)")
        for path in save(figures.figure(drawn[:MAX_PANELS], args.by), args.plot, figures.NAME,
                         protect=store.place.files()):
            print(f"figure: {escaped(path)}")
    return 0


def _said_written(out, name: str) -> None:
    import sys
    if out.fd == 1:  # the JSON went to standard output: say so beside it, not in it
        print("history written to standard output", file=sys.stderr)
    else:
        print(f"\nhistory written to {escaped(name)}")


def across_rows(points: list, across: str) -> list[dict]:
    """render_across's rows as -o writes them."""
    return [{"value": value, "runs": n, "estimate": est, "ci95": list(ci), "between_share": share}
            for est, value, n, ci, share in _across(points, across)]


def render_across(key: str, points: list, across: str, title: str | None = None) -> str:
    """One row per value of `across`: its runs pooled (random effects; a
    single run's own interval), fastest first."""
    rows = _across(points, across)
    unit = points[0].unit
    w = max(len(across), *(len(escaped(r[1])) for r in rows))
    lines = [title or f"\n{escaped(key)} across {across}: {len(points)} run(s), fastest first"
             + (" (in core cycles)" if unit == "cycles" else ""),
             f"  {across:<{w}}  {'runs':>4}  {'estimate [95% CI]':<34}  between runs"]
    for est, value, n, ci, share in rows:
        ci_text = f" [{fmt_value(ci[0], unit)}, {fmt_value(ci[1], unit)}]" if ci[0] is not None else ""
        pct = f"{share:.0%}" if isinstance(share, float) else share
        lines.append(f"  {escaped(value):<{w}}  {n:>4}  {fmt_value(est, unit) + ci_text:<34}  {pct}")
    if title is None:
        lines.append("  estimate: the runs pooled (random effects, Hartung-Knapp interval on runs - 1 df), or the "
                     "one run's own median and interval; between runs: the share of the variance between them")
    return "\n".join(lines)


def _across(points: list, across: str) -> list[tuple]:
    """(estimate, value, runs, interval, between-run share or a word) per
    value of `across`, fastest first."""
    from ctxbench.history import pooled
    groups: dict = {}
    for p in points:
        groups.setdefault(p.key(across), []).append(p)
    rows = []
    for value, ps in groups.items():
        pool = pooled.pool([p.median for p in ps], [p.ci_lo for p in ps], [p.ci_hi for p in ps])
        if pool is not None:
            rows.append((pool.estimate, value, len(ps), pool.ci, pool.between_share))
        else:
            if len(ps) == 1:
                p = ps[0]
                ci = (p.ci_lo, p.ci_hi) if p.ci_lo is not None and p.ci_hi is not None else (None, None)
                rows.append((p.median, value, 1, ci, "-"))
            else:  # runs without intervals: their medians' median, and no interval claimed
                rows.append((statistics.median(p.median for p in ps), value, len(ps), (None, None),
                             "runs without intervals"))
    rows.sort(key=lambda r: r[0])
    return rows


def render_pool(pool, unit: str) -> str:
    if pool is None:
        return "  pooled: needs 2 runs or more with an interval"
    lo, hi = pool.ci
    return (f"  pooled over {pool.runs} runs: {fmt_value(pool.estimate, unit)} [{fmt_value(lo, unit)}, "
            f"{fmt_value(hi, unit)}] (random effects, t on {pool.runs - 1} df); between runs: sd "
            f"{fmt_value(pool.tau, unit)}, {pool.between_share:.0%} of the variance; the interval holds "
            f"{pool.covers} of the {pool.runs} runs' own estimates")


def as_json(drawn: list, args) -> dict:
    """The history as written by -o: per series its runs, changes and pool."""
    from ctxbench.history import changes, series
    series_out = []
    for key, host, points, found, pool, ns_points in drawn:
        series_out.append({
            "id": key, "host": host, "by": args.by,
            "runs": [{"run": p.run_id, "started": p.started.isoformat() if p.started else None, "kernel": p.kernel,
                      "git_commit": p.git_commit or None, "median": p.median, "ci95": [p.ci_lo, p.ci_hi],
                      "mde": p.mde, "ok": p.ok, "unit": p.unit, "median_ns": q.median, "core_ghz": p.core_ghz,
                      "host_moved": m or None}
                     for p, q, m in zip(points, ns_points, series.host_moved(points))],
            "unit": points[0].unit,
            "noise": changes.noise([p.median for p in points]),
            "found_90": changes.FOUND_90_SD * changes.noise([p.median for p in points]),
            "noise_ns": changes.noise([p.median for p in ns_points]),
            "found_90_ns": changes.FOUND_90_SD * changes.noise([p.median for p in ns_points]),
            "changes": [{"index": c.index, "run": points[c.index].run_id, "before": c.before, "after": c.after,
                         "pct": c.pct} for c in found],
            "pooled": None if pool is None else {
                "runs": pool.runs, "estimate": pool.estimate, "ci95": list(pool.ci), "tau": pool.tau,
                "between_share": pool.between_share, "covers": pool.covers,
                "method": "random effects (statsmodels combine_effects: Paule-Mandel tau^2, "
                          "Hartung-Knapp-Sidik-Jonkman interval on runs - 1 df)"}})
    return {"history": {"ids": args.ids, "filters": {"host": args.host, "kernel": args.kernel,
                                                     "since": args.since, "until": args.until},
                        "series": series_out}}


def render(key: str, host: str, points: list, found: list, by: str, ns_points: list | None = None) -> str:
    """The series in its unit; `ns_points`: the same runs in ns, printed
    beside a series in cycles (with each run's core clock), and where a
    run's host read slower than the series' best, which sensor."""
    from ctxbench.history import changes, series
    unit = points[0].unit
    beside = ns_points if unit == "cycles" and ns_points else None
    lines = [f"\n{escaped(key)} on {escaped(host)}: {len(points)} run(s)" + (" in core cycles" if beside else ""),
             f"  {by:<18}  {'median [95% CI]':<32}  {'MDE':>9}  "
             + (f"{'in ns':>9}  {'clock':>9}  " if beside else "") + f"{'ok':<4}  kernel, commit"]
    cut = {c.index: c for c in found}
    moved = series.host_moved(points)
    for i, p in enumerate(points):
        if i in cut:
            c = cut[i]
            lines.append(f"  ---- change: {fmt_value(c.before, unit)} -> {fmt_value(c.after, unit)} ({c.pct:+.1%})")
        ci = (f" [{fmt_value(p.ci_lo, unit)}, {fmt_value(p.ci_hi, unit)}]"
              if p.ci_lo is not None and p.ci_hi is not None else "")
        ok = {True: "yes", False: "NO", None: "-"}[p.ok]
        extra = ""
        if beside:
            ghz = f"{p.core_ghz:.3f} GHz" if p.core_ghz is not None else "-"
            extra = f"{fmt_value(beside[i].median, 'ns'):>9}  {ghz:>9}  "
        lines.append(f"  {escaped(p.key(by)):<18}  {fmt_value(p.median, unit) + ci:<32}  "
                     f"{fmt_value(p.mde, unit) if p.mde is not None else '-':>9}  {extra}{ok:<4}  "
                     f"{escaped(p.kernel)}{', ' + escaped(p.git_commit) if p.git_commit else ''}"
                     + (f"  [host: {moved[i]}]" if moved[i] else ""))
    if by == "time":
        if len(points) < changes.MIN_POINTS:
            lines.append(f"  change points: not tested (fewer than {changes.MIN_POINTS} runs)")
        elif not found:
            lines.append(f"  change points: none (E-divisive means, p < {changes.PVALUE})")
        sd = changes.noise([p.median for p in points])
        if len(points) >= changes.MIN_POINTS and sd == sd:
            lines.append(f"  run-to-run noise {sd:.1%} of the median{' in cycles' if beside else ''}: a step under "
                         f"{changes.FOUND_90_SD * sd:.1%} ({changes.FOUND_90_SD:g} x) is found in fewer than 90% of "
                         "60-run series, and less often in fewer runs")
            sd_ns = changes.noise([p.median for p in beside]) if beside else math.nan
            if sd_ns == sd_ns:
                lines.append(f"  in ns the noise is {sd_ns:.1%} (the smallest step found 90% of the time "
                             f"{changes.FOUND_90_SD * sd_ns:.1%}); what ns have more is the host's clock, which "
                             "cycles take out")
        if len(points) > changes.MAX_POINTS:
            lines.append(f"  change points: tested over the last {changes.MAX_POINTS} of {len(points)} runs "
                         "(--since, --host, --kernel narrow the series)")
        for c in found:
            p = points[c.index]
            lines.append(f"  change at run {p.run_id} ({p.key('time')}, kernel {escaped(p.kernel)}"
                         f"{', commit ' + escaped(p.git_commit) if p.git_commit else ''}): "
                         f"{fmt_value(c.before, unit)} -> {fmt_value(c.after, unit)} ({c.pct:+.1%})")
    return "\n".join(lines)
