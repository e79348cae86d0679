"""Figures for tasks / irq / noise (seed 000 Figures 2, 3 and 5, and the
noise gap histogram): PNG and SVG, with the 95% intervals and the machine."""
from __future__ import annotations

import math

from ctxbench.core.model import Result, Summary
from ctxbench.ui.figures import machine_label, plt

MS = 1e6  # ns per ms
FIG2, FIG3 = "tasks-fig2-overheads", "tasks-fig3-breakdown"  # file names


def _finish(fig):
    fig.tight_layout(rect=(0, 0, 1, 0.88))  # room for the two-line title
    return fig


def _err(s: Summary, scale: float):
    m = s.mean / scale
    lo, hi = s.ci95
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return m, 0.0, 0.0
    return m, max(m - lo / scale, 0.0), max(hi / scale - m, 0.0)


def _series(points, part, scale=MS):
    xs, ys, lo, hi = [], [], [], []
    for p in map(Result, points):
        m, a, b = _err(p.parts[part], scale)
        xs.append(p.params.n)
        ys.append(m)
        lo.append(a)
        hi.append(b)
    return xs, ys, [lo, hi]


def _grid(k: int):
    cols = min(3, k)
    rows = (k + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.4 * rows), squeeze=False)
    for ax in axes.flat[k:]:
        ax.set_visible(False)
    return fig, list(axes.flat)


def figure2(by_pair: dict[str, list[dict]], env: dict, maxcv: float):
    """Direct (n*C) and indirect (I) overhead vs n, one panel per pair."""
    fig, axes = _grid(len(by_pair))
    for ax, (pair, pts) in zip(axes, by_pair.items()):
        for part, label, mk in (("direct", "direct (n·C)", "s"), ("I", "indirect (I)", "o")):
            x, y, e = _series(pts, part)
            ax.errorbar(x, y, yerr=e, marker=mk, ms=3, capsize=2, label=label)
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_title(pair.replace("+", " and "))
        ax.set_xlabel("context switches n")
        ax.set_ylabel("overhead (ms)")
        ax.legend(fontsize=7)
    fig.suptitle(f"Context switch overheads, direct and indirect (after David et al., ExpCS 2007, Fig. 2); mean of runs, 95% CI; "
                 f"Max CV {maxcv:.2%}\n{machine_label(env)}", fontsize=8)
    return _finish(fig)


def figure3(by_pair: dict[str, list[dict]], env: dict, maxcv: float):
    """The indirect overhead broken down: each task's own segments and the
    switches' own inflation."""
    fig, axes = _grid(len(by_pair))
    for ax, (pair, pts) in zip(axes, by_pair.items()):
        a, b = pair.split("+")
        for part, label in (("I_task_a", a), ("I_task_b", b), ("I_switch", "switch inflation"), ("I", "total I")):
            x, y, e = _series(pts, part)
            ax.errorbar(x, y, yerr=e, marker="o", ms=3, capsize=2, label=label,
                        lw=1.6 if part == "I" else 1)
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_title(pair.replace("+", " and "))
        ax.set_xlabel("context switches n")
        ax.set_ylabel("indirect overhead (ms)")
        ax.legend(fontsize=7)
    fig.suptitle(f"Indirect context switch overhead breakdown (after David et al., ExpCS 2007, Fig. 3); 95% CI; Max CV {maxcv:.2%}\n"
                 f"{machine_label(env)}", fontsize=8)
    return _finish(fig)
