"""Figures of a `ctxbench run`: the direct cost per switch of every
same-CPU id, kernel-level (µs) and user-level (ns) in panels of their own
so that both are readable, and (a different quantity) the cross-CPU
wake-up latency; error bars are the 95% CI of the median. Axes are linear:
a negative derived cost is drawn where it was measured (a log axis could
not show it)."""
from __future__ import annotations

from ctxbench.core.model import Result
from ctxbench.ui.figures import ci_of, machine_label, plt

# (quantity, id family, axis title, unit divisor)
PANELS = [("switch", "kernel", "kernel-level switch: direct cost per switch, one CPU (µs)", 1e3),
          ("switch", "user", "user-level switch: direct cost per switch, one thread (ns)", 1.0),
          ("wakeup", "kernel", "cross-CPU wake-up latency, not a switch cost (µs)", 1e3)]


def figure(results: list[dict], env: dict):
    rows = {(q, fam): [r for r in results if Result(r).quantity == q and Result(r).id.split("/")[0] == fam]
            for q, fam, _, _ in PANELS}
    panels = [(q, fam, t, div) for q, fam, t, div in PANELS if rows[(q, fam)]]
    if not panels:
        return None
    height = max(len(rows[(q, fam)]) for q, fam, _, _ in panels)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 1.2 + 0.28 * height), squeeze=False)
    for ax, (q, fam, title, div) in zip(axes[0], panels):
        rs = rows[(q, fam)]
        ys = list(range(len(rs)))[::-1]
        med, lo, hi = zip(*(ci_of(r) for r in rs))
        err = [[max(0.0, (m - a) / div) if a == a else 0 for m, a in zip(med, lo)],
               [max(0.0, (b - m) / div) if b == b else 0 for m, b in zip(med, hi)]]
        ax.errorbar([m / div for m in med], ys, xerr=err, fmt="o", ms=3, capsize=2)
        ax.set_yticks(ys)
        ax.set_yticklabels([Result(r).id for r in rs], fontsize=7)
        ax.set_xlabel(title, fontsize=8)
        ax.grid(True, axis="x", alpha=0.3)
        ax.axvline(0, color="0.5", lw=0.6)
    fig.text(0.01, -0.02, machine_label(env), fontsize=7, color="0.35")
    return fig
