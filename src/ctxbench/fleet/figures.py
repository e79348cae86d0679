"""The fleet figure: one id across hosts, each host's median with its 95%
interval (in core cycles where every host has them: the hosts' clocks
differ), hosts grouped (and coloured) by CPU model, with each host's
kernel under its name."""
from __future__ import annotations

import math

from ctxbench.core.model import Document
from ctxbench.ui.figures import plt

NAME = "fleet"


def figure(docs: list[tuple[str, dict]], point_key: str):
    rows = []
    found = [(host, Document(d), r) for host, d in docs for r in Document(d).results if r.point_key == point_key]
    cycles = bool(found) and all(r.cycles.applies for _, _, r in found)
    for host, doc, r in found:
        s = r.cycles.summary if cycles else r.summary
        if math.isfinite(s.median):
            env = doc.environment
            rows.append((env.cpu_model or "unknown CPU", host, env.kernel_release or "?", s.median,
                         *s.ci95, "core cycles" if cycles else r.unit or "ns"))
    if not rows:
        return None
    rows.sort()
    models = sorted({r[0] for r in rows})
    fig, ax = plt.subplots(figsize=(max(5, 0.8 * len(rows) + 2), 4))
    for k, (model, host, kernel, m, lo, hi, unit) in enumerate(rows):
        c = f"C{models.index(model) % 10}"
        err = [[max(m - lo, 0) if math.isfinite(lo) else 0], [max(hi - m, 0) if math.isfinite(hi) else 0]]
        ax.errorbar([k], [m], yerr=err, fmt="o", color=c, capsize=3,
                    label=model if not any(r[0] == model for r in rows[:k]) else None)
    ax.set_xticks(range(len(rows)), [f"{r[1]}\n{r[2]}" for r in rows], fontsize=7, rotation=30, ha="right")
    ax.set_ylabel(f"median, {rows[0][-1]} (95% interval)")
    ax.set_title(f"{point_key} across {len(rows)} hosts", fontsize=9)
    ax.legend(fontsize=7, frameon=False, title="CPU model", title_fontsize=7)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return fig
