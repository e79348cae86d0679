"""The recovery curve: the excess time per chunk of a task's own work
against the time since the event (a switch-in, a timer signal), with each
point's 95% interval over rounds, and where it is back within noise for
good. Shared by `tasks` and `irq` (their chunk analyses build the curves:
tasks/chunked.py, irq/chunked.py)."""
from __future__ import annotations

import math

from ctxbench.core.model import Environment
from ctxbench.ui.figures import finish_titled, machine_label, panel_grid
from ctxbench.ui.format import fmt_time


def recovered_text(curve: dict) -> str:
    """Where the curve is back within noise, as a phrase."""
    if not curve.get("points"):
        return "no curve"
    if not curve.get("recovered"):
        return "not back within noise by the end of the interval"
    after = curve.get("recovered_after_ns")
    if not after:
        return "no excess resolved at any distance (within noise from the first chunk)"
    return f"recovered after {fmt_time(after)} (chunk {curve.get('recovered_at_chunk')})"


def figure(panels: dict[str, dict[str, dict]], env: Environment | dict, title: str, event: str):
    """One panel per key of `panels` (a pair, a task), one line per curve in
    it (label -> curve: points of x_ns, excess_ns, ci95), each with its
    band; x on a log scale (the positions are bucketed by powers of two
    after the first 16 chunks)."""
    fig, axes = panel_grid(max(1, len(panels)))
    if not panels:  # no curve at all (every run dropped, or intervals too short): the panel says so
        axes[0].text(0.5, 0.5, "no recovery curve in these runs", ha="center", va="center",
                     transform=axes[0].transAxes)
        axes[0].set_axis_off()
    for ax, (name, curves) in zip(axes, panels.items()):
        drawn = False
        for k, (label, c) in enumerate(curves.items()):
            pts = [p for p in c.get("points") or [] if math.isfinite(p["x_ns"]) and p["x_ns"] > 0
                   and math.isfinite(p["excess_ns"])]
            if not pts:
                continue
            x = [p["x_ns"] / 1e3 for p in pts]
            y = [p["excess_ns"] for p in pts]
            lo = [p["ci95"][0] if math.isfinite(p["ci95"][0]) else p["excess_ns"] for p in pts]
            hi = [p["ci95"][1] if math.isfinite(p["ci95"][1]) else p["excess_ns"] for p in pts]
            color = f"C{k}"
            ax.fill_between(x, lo, hi, color=color, alpha=0.25, lw=0)
            ax.plot(x, y, marker="o", ms=2.5, lw=1, color=color, label=f"{label}: {recovered_text(c)}")
            drawn = True
            after = c.get("recovered_after_ns")
            if c.get("recovered") and after:
                ax.axvline(after / 1e3, color=color, ls=":", lw=1)
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_xscale("log")
        ax.set_yscale("symlog", linthresh=2)  # a refill of hundreds of ns beside one of a few
        ax.set_title(name, fontsize=8)
        ax.set_xlabel(f"µs since the {event}")
        ax.set_ylabel("excess per chunk (ns)")
        if drawn:
            ax.legend(fontsize=6, loc="upper right")
        else:
            ax.text(0.5, 0.5, "no points", ha="center", va="center", transform=ax.transAxes)
    fig.suptitle(f"{title}; x: the middle of the chunk, in the task's own work since the {event}; band: 95% "
                 f"interval over rounds\n{machine_label(env)}", fontsize=8)
    return finish_titled(fig)
