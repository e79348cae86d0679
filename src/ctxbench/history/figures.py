"""The history figure: one panel per id and host, each run's median with
its 95% interval, dated on the x axis (or labelled by the --by key), the
change points drawn as dashed lines with the change written beside them,
the pooled estimate (with --pool) as a band, and under each panel the
environment its runs came from (CPU, kernels, dates)."""
from __future__ import annotations

import math

import matplotlib.dates as mdates

from ctxbench.history import changes
from ctxbench.ui.figures import plt
from ctxbench.ui.format import fmt_value

NAME = "history"


def _environment(points: list) -> str:
    cpus = sorted({p.cpu_model for p in points})
    kernels = sorted({p.kernel for p in points})
    dated = [p.started for p in points if p.started]
    when = (f"{min(dated):%Y-%m-%d %H:%M} to {max(dated):%Y-%m-%d %H:%M}" if dated else "undated")
    return (f"{'; '.join(cpus)}; Linux {', '.join(kernels[:3])}{' and others' if len(kernels) > 3 else ''}; "
            f"runs {when}")


def figure(drawn: list, by: str):
    n = len(drawn)
    fig, axes = plt.subplots(n, 1, figsize=(10, 2.9 * n + 0.6), squeeze=False)
    for ax, (key, host, points, found, pool, _ns) in zip(axes[:, 0], drawn):
        unit = points[0].unit
        xs = [p.started for p in points] if by == "time" and all(p.started for p in points) else list(range(len(points)))
        ys = [p.median for p in points]
        lo = [max(p.median - p.ci_lo, 0) if p.ci_lo is not None and math.isfinite(p.ci_lo) else 0 for p in points]
        hi = [max(p.ci_hi - p.median, 0) if p.ci_hi is not None and math.isfinite(p.ci_hi) else 0 for p in points]
        colours = ["C3" if p.ok is False else "C0" for p in points]
        if pool is not None:
            ax.axhspan(pool.ci[0], pool.ci[1], color="C2", alpha=0.15, lw=0)
            ax.axhline(pool.estimate, color="C2", lw=1,
                       label=f"pooled: {fmt_value(pool.estimate, unit)} [{fmt_value(pool.ci[0], unit)}, "
                             f"{fmt_value(pool.ci[1], unit)}], {pool.between_share:.0%} of the variance between runs")
            ax.legend(loc="lower left", fontsize=7, frameon=False)
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="none", ecolor="0.6", elinewidth=0.8, capsize=2)
        ax.scatter(xs, ys, c=colours, s=14, zorder=3)
        for c in found:
            x = xs[c.index]
            ax.axvline(x, color="C1", ls="--", lw=1)
            ax.annotate(f"{fmt_value(c.before, unit)} -> {fmt_value(c.after, unit)} ({c.pct:+.1%})", (x, max(ys)),
                        xytext=(4, 0), textcoords="offset points", fontsize=7, color="C1", va="top")
        if by != "time":
            ax.set_xticks(range(len(points)), [p.key(by) for p in points], rotation=30, ha="right", fontsize=7)
        what = (" (cross-CPU wake-up latency, not a switch cost)" if "cross-cpu" in key
                else " (direct cost of a switch on one CPU)" if "same-cpu" in key or "same-thread" in key else "")
        ax.set_title(f"{key} on {host}: {len(points)} runs{what}", fontsize=9)
        if by == "time" and all(p.started for p in points):
            one_day = len({p.started.date() for p in points}) == 1
            ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M" if one_day else "%Y-%m-%d"))
        ax.set_ylabel(f"median, {'core cycles' if unit == 'cycles' else unit} (95% interval)", fontsize=8)
        ax.grid(True, alpha=0.3)
        ax.text(0, -0.2 if by == "time" else -0.42, _environment(points), transform=ax.transAxes, fontsize=7,
                color="0.35", va="top")
    axes[-1, 0].set_xlabel("run start" if by == "time" else by)
    fig.text(0.01, 0.005, "dots: each run's median (red: its switches were not verified); bars: its 95% interval; "
                          f"dashed: a change point (E-divisive means, p < {changes.PVALUE}); band: the runs pooled (random "
                          "effects)", fontsize=7, color="0.35")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig
