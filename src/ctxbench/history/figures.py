"""The history figure: one panel per id and host, each run's median with
its 95% interval, dated on the x axis (or labelled by the --by key), the
change points drawn as dashed lines with the change written beside them."""
from __future__ import annotations

import math

from ctxbench.ui.figures import plt
from ctxbench.ui.format import fmt_value

NAME = "history"


def figure(drawn: list, by: str):
    n = len(drawn)
    fig, axes = plt.subplots(n, 1, figsize=(10, 2.6 * n + 0.6), squeeze=False)
    for ax, (key, host, points, found) in zip(axes[:, 0], drawn):
        unit = points[0].unit
        xs = [p.started for p in points] if by == "time" and all(p.started for p in points) else list(range(len(points)))
        ys = [p.median for p in points]
        lo = [max(p.median - p.ci_lo, 0) if p.ci_lo is not None and math.isfinite(p.ci_lo) else 0 for p in points]
        hi = [max(p.ci_hi - p.median, 0) if p.ci_hi is not None and math.isfinite(p.ci_hi) else 0 for p in points]
        colours = ["C3" if p.ok is False else "C0" for p in points]
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="none", ecolor="0.6", elinewidth=0.8, capsize=2)
        ax.scatter(xs, ys, c=colours, s=14, zorder=3)
        for c in found:
            x = xs[c.index]
            ax.axvline(x, color="C1", ls="--", lw=1)
            ax.annotate(f"{fmt_value(c.before, unit)} -> {fmt_value(c.after, unit)} ({c.pct:+.1%})", (x, max(ys)),
                        xytext=(4, 0), textcoords="offset points", fontsize=7, color="C1", va="top")
        if by != "time":
            ax.set_xticks(range(len(points)), [p.key(by) for p in points], rotation=30, ha="right", fontsize=7)
        ax.set_title(f"{key} on {host}: {len(points)} runs", fontsize=9)
        ax.set_ylabel(f"median, {unit} (95% interval)", fontsize=8)
        ax.grid(True, alpha=0.3)
    axes[-1, 0].set_xlabel("run start" if by == "time" else by)
    fig.text(0.01, 0.005, "dots: each run's median (red: not verified); bars: its 95% interval; dashed: a change "
                          "point (E-divisive means)", fontsize=7, color="0.35")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig
