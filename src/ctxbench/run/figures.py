"""Figures of a `ctxbench run`: the direct cost per switch of every
same-CPU id, and (in its own panel, a different quantity) the cross-CPU
wake-up latency; error bars are the 95% CI of the median."""
from __future__ import annotations

from ctxbench.ui.figures import ci_of, machine_label, plt

PANELS = [("switch", "direct cost per switch, one CPU (µs)"),
          ("wakeup", "cross-CPU wake-up latency, not a switch cost (µs)")]


def figure(results: list[dict], env: dict):
    rows = {q: [r for r in results if r.get("quantity") == q and str(r.get("id", "")).split("/")[0] in ("kernel", "user")]
            for q, _ in PANELS}
    panels = [(q, t) for q, t in PANELS if rows[q]]
    if not panels:
        return None
    height = max(len(rows[q]) for q, _ in panels)
    fig, axes = plt.subplots(1, len(panels), figsize=(6.0 * len(panels), 1.2 + 0.28 * height), squeeze=False)
    for ax, (q, title) in zip(axes[0], panels):
        rs = rows[q]
        ys = list(range(len(rs)))[::-1]
        med, lo, hi = zip(*(ci_of(r) for r in rs))
        err = [[max(0.0, (m - a) / 1e3) if a == a else 0 for m, a in zip(med, lo)],
               [max(0.0, (b - m) / 1e3) if b == b else 0 for m, b in zip(med, hi)]]
        ax.errorbar([m / 1e3 for m in med], ys, xerr=err, fmt="o", ms=3, capsize=2)
        ax.set_yticks(ys)
        ax.set_yticklabels([r["id"] for r in rs], fontsize=7)
        ax.set_xlabel(title)
        ax.grid(True, axis="x", alpha=0.3)
        ax.axvline(0, color="0.5", lw=0.6)
    fig.text(0.01, -0.02, machine_label(env), fontsize=7, color="0.35")
    return fig
