"""The runtimes figure: the hand-off cost of every runtime and mechanism on
a log scale, with its 95% interval and each launch's median (what another
run can land on), pinned and default side by side, and
ctxbench's asm switch and kernel-thread pipe drawn as reference lines."""
from __future__ import annotations

import math

from ctxbench.core.model import Environment
from ctxbench.runtimes.analysis import Handoff, is_handoff
from ctxbench.ui.figures import machine_label, plt
from ctxbench.ui.format import fmt_time

NAME = "runtimes"
MARKER = {"pinned": "o", "default": "s"}
COLOUR = {"user-level": "C0", "kernel-assisted": "C3"}
REFERENCES = {"user/asm/same-thread": ("asm switch (floor)", ":"),
              "kernel/thread/pipe/same-cpu": ("kernel threads, same CPU", "--")}


def figure(results: list[dict], env: Environment | dict):
    """One matplotlib figure, or None without a hand-off row."""
    rows = [h for h in (Handoff(r) for r in results if is_handoff(r)) if math.isfinite(h.estimate)]
    if not rows:
        return None
    labels = sorted({(h.runtime, h.mechanism) for h in rows if h.runtime != "c"},
                    key=lambda k: (k[0], k[1]))
    y = {k: i for i, k in enumerate(reversed(labels))}
    fig, ax = plt.subplots(figsize=(10.5, 0.32 * len(labels) + 1.8))
    for h in rows:
        if h.runtime == "c":
            continue
        lo, hi = h.summary.ci95
        med = h.estimate  # what the interval is around (over launches: the mean of their medians)
        err = [[max(med - lo, 0) if math.isfinite(lo) else 0], [max(hi - med, 0) if math.isfinite(hi) else 0]]
        off = -0.15 if h.placement == "pinned" else 0.15
        colour = COLOUR.get(h.kernel.get("switch"), "0.4")
        ax.errorbar([med], [y[(h.runtime, h.mechanism)] + off], xerr=err, fmt=MARKER.get(h.placement, "^"),
                    ms=4, capsize=2, color=colour)
        launches = h.launches.get("medians") or []
        if len(launches) > 1:  # each launch's median: what another run can land on
            ax.plot(launches, [y[(h.runtime, h.mechanism)] + off] * len(launches), "|", ms=7, mew=0.9,
                    color=colour, alpha=0.55)
    for h in rows:
        ref = REFERENCES.get(str(h.params.get("engine_id")))
        if h.runtime == "c" and ref and h.placement == "pinned":
            ax.axvline(h.estimate, color="0.3", ls=ref[1], lw=0.9,
                       label=f"{ref[0]}: {fmt_time(h.estimate)}")
    for kind, c in COLOUR.items():
        ax.plot([], [], "o", color=c, label=kind)
    for place, m in MARKER.items():
        ax.plot([], [], m, color="0.4", mfc="none", label=f"{place}")
    if any(len(h.launches.get("medians") or []) > 1 for h in rows):
        ax.plot([], [], "|", color="0.4", ms=7, label="one launch's median")
    ax.set_yticks(list(y.values()), [f"{rt}: {mech}" for rt, mech in y])
    ax.set_xscale("log")
    over = any(h.summary.launch_interval for h in rows)
    ax.set_xlabel("one-way hand-off, ns (" + ("mean of the launches' medians, 95% interval over launches"
                                               if over else "median, 95% interval over groups") + "; log scale)")
    ax.grid(True, axis="x", which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.set_title("What a hand-off costs in each runtime (pinned: 1 CPU, 1 worker; default: 2 CPUs)", fontsize=10)
    fig.text(0.01, 0.005, machine_label(env), fontsize=7, color="0.35")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig
