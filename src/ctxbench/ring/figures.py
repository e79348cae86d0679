"""The ring figure (after Heiser 2009): cost per hand-off against the number of
parties (log2), one line per footprint, one panel per kind; error bars are
the interval that holds another run's median (stats/drift.py next_run)."""
from __future__ import annotations

import math

from ctxbench.core import schema
from ctxbench.core.model import Environment, Result
from ctxbench.ui.figures import ci_of, machine_label, plt, size_label


def is_ring(result: dict) -> bool:
    return Result(result).kind is schema.BY_NAME["ring"]


def points(results: list[dict]) -> dict:
    """{(kind, mechanism): {footprint: [(parties, median, lo, hi), ...]}}"""
    out: dict = {}
    for r in results:
        if not is_ring(r):
            continue
        p = Result(r).params
        try:
            n, k = int(p.parties), int(p.footprint)
        except (TypeError, ValueError):
            continue
        med, lo, hi = ci_of(r)
        out.setdefault((str(p.kind), str(p.mechanism)), {}).setdefault(k, []).append((n, med, lo, hi))
    for lines in out.values():
        for pts in lines.values():
            pts.sort()
    return out


def figure(results: list[dict], env: Environment | dict):
    """One matplotlib figure, or None when there is no ring result."""
    pts = points(results)
    if not pts:
        return None
    kinds = sorted({k for k, _ in pts}, key=lambda k: (k != "thread", k))
    mechs = sorted({m for _, m in pts})
    fig, axes = plt.subplots(1, len(kinds), figsize=(5.2 * len(kinds), 4.0), squeeze=False, sharey=True)
    styles = {m: s for m, s in zip(mechs, ["-", "--", ":", "-."])}
    for ax, kind in zip(axes[0], kinds):
        for mech in mechs:
            lines = pts.get((kind, mech)) or {}
            for i, (k, pp) in enumerate(sorted(lines.items())):
                xs = [p[0] for p in pp]
                ys = [p[1] / 1e3 for p in pp]
                err = [[max(0.0, (p[1] - p[2]) / 1e3) if math.isfinite(p[2]) else 0 for p in pp],
                       [max(0.0, (p[3] - p[1]) / 1e3) if math.isfinite(p[3]) else 0 for p in pp]]
                ax.errorbar(xs, ys, yerr=err, marker="o", ms=3, capsize=2, linestyle=styles[mech],
                            color=f"C{i}", label=f"{size_label(k)}B, {mech}")
        ax.set_xscale("log", base=2)
        ax.set_title({"thread": "threads", "process": "processes"}.get(kind, kind))
        ax.set_xlabel("parties in the ring (N)")
        ax.grid(True, alpha=0.3)
        ax.axhline(0, color="0.5", lw=0.6)
    axes[0][0].set_ylabel("cost per hand-off, µs (median; bars: 95% for another run)")
    axes[0][-1].legend(fontsize=7, title="footprint", title_fontsize=7)
    fig.suptitle("Ring of N parties on one CPU: cost per switch", fontsize=11)
    fig.text(0.01, -0.02, machine_label(env), fontsize=7, color="0.35")
    return fig
