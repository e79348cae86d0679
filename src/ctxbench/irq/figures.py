"""The interrupt figure: indirect overhead against the rate, one panel per
task (after Fig. 5 of David et al., ExpCS 2007; README, References)."""
from __future__ import annotations

from ctxbench.core.model import Result, Summary
from ctxbench.ui.figures import MS, err_bar, finish_titled, machine_label, panel_grid

NAME = "irq-fig5-overhead"  # file name


def figure5(by_task: dict[str, list[dict]], env: dict, d_summary: dict):
    """Indirect interrupt overhead vs rate, one panel per task."""
    fig, axes = panel_grid(len(by_task))
    for ax, (task, pts) in zip(axes, by_task.items()):
        pts = sorted(map(Result, pts), key=lambda p: p.params.rate_hz)
        x = [p.params.rate_hz for p in pts]
        for part, label, mk in (("I", "indirect (I)", "o"), ("direct", "direct (k·D)", "s")):
            ys, lo, hi = [], [], []
            for p in pts:
                m, a, b = err_bar(p.parts[part], MS)
                ys.append(m)
                lo.append(a)
                hi.append(b)
            ax.errorbar(x, ys, yerr=[lo, hi], marker=mk, ms=3, capsize=2, label=label)
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_xscale("log")
        ax.set_title(task)
        ax.set_xlabel("timer signals per second")
        ax.set_ylabel("overhead (ms)")
        ax.legend(fontsize=7)
    fig.suptitle(f"Interrupt (timer signal) overhead (after David et al., ExpCS 2007, Fig. 5); 95% CI; D = {Summary(d_summary).mean / 1e3:.2f} µs"
                 f"\n{machine_label(env)}", fontsize=8)
    return finish_titled(fig)
