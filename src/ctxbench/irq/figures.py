"""The interrupt figure: indirect overhead against the rate, one panel per
task (after Fig. 5 of David et al., ExpCS 2007; README, "Method and references"), with
each point's 95% interval and its minimum detectable effect (the grey band:
an I inside it is not resolved)."""
from __future__ import annotations

import math

from ctxbench.core.model import Environment, Result, Summary
from ctxbench.ui.figures import MS, err_bar, finish_titled, machine_label, panel_grid
from ctxbench.ui.format import fmt_time
from ctxbench.ui.twin import ns_view

NAME = "irq-fig5-overhead"  # file name


def figure5(by_task: dict[str, list[dict]], env: Environment | dict, d: dict | Summary):
    """Indirect interrupt overhead vs rate, one panel per task. `d` is D: a
    Summary, or a power.effect record."""
    fig, axes = panel_grid(len(by_task))
    for ax, (task, pts) in zip(axes, by_task.items()):
        pts = sorted(map(Result, pts), key=lambda p: p.params.rate_hz)
        x = [p.params.rate_hz for p in pts]
        for part, label, mk in (("I", "indirect (I)", "o"), ("direct", "direct (k·D)", "s")):
            ys, lo, hi = [], [], []
            for p in pts:
                m, a, b = err_bar(p.parts[part], MS)
                sim = p.effects[part].get("ci95_simultaneous")
                if sim and math.isfinite(m):  # I: the simultaneous interval the table prints
                    a, b = max(0.0, m - sim[0] / MS), max(0.0, sim[1] / MS - m)
                ys.append(m)
                lo.append(a)
                hi.append(b)
            ax.errorbar(x, ys, yerr=[lo, hi], marker=mk, ms=3, capsize=2, label=label)
        mde = [ns_view(p.effects["I"])["mde"] / MS for p in pts]  # the verdict's MDE, read in ns
        if all(math.isfinite(m) for m in mde) and mde:
            ax.fill_between(x, [-m for m in mde], mde, color="grey", alpha=0.2, lw=0, label="±MDE of I")
        ax.axhline(0, color="grey", lw=0.5)
        if any(math.isfinite(m) for p in pts for m in (p.parts["I"].mean, p.parts["direct"].mean)):
            ax.set_xscale("log")  # an empty panel has no positive x to scale
        else:
            ax.text(0.5, 0.5, "no finite value", transform=ax.transAxes, ha="center", fontsize=8)
        ax.set_title(task)
        ax.set_xlabel("timer signals per second")
        ax.set_ylabel("overhead (ms)")
        ax.legend(fontsize=7)
    fig.suptitle(f"Interrupt (timer signal) overhead (after David et al., ExpCS 2007, Fig. 5); I: simultaneous 95% CI "
                 f"over all points; "
                 f"D = {(d if isinstance(d, Summary) else Summary(d)).mean / 1e3:.2f} µs\n{machine_label(env)}", fontsize=8)
    return finish_titled(fig)


RECOVERY = "irq-recovery"


def recovery(ch: dict, env: Environment | dict):
    """Each task's recovery after a timer signal (irq/chunked.py): the
    excess per chunk, D taken from the chunk the signal landed in; the
    spin, with nothing to refill, beside them."""
    from ctxbench.ui.recovery import figure  # the shared curve figure

    panels = {}
    for task, rec in ch["tasks"].items():
        e = rec["per_interrupt"]
        panels[f"{task}: {fmt_time(e['estimate_ns'])} [{fmt_time(e['ci95'][0])}, {fmt_time(e['ci95'][1])}] per "
               "interrupt"] = {task: rec["curve"], "spin (the control)": ch["spin_curve"]}
    return figure(panels, env, "Recovery after a timer signal: each task's chunks against the same chunks without "
                  "the timer, above the far baseline, D taken from the chunk the signal landed in", "signal")
