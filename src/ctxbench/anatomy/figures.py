"""The anatomy's waterfall: "where the X µs of one hand-off go".

Left panel: the chain (system calls, the mechanism's own work, the thread
switch, the address space) as floating bars that add up to the measured
hand-off of the process rung, which is drawn whole at the end; if the
parts' sum falls outside the total's interval, the gap is its own bar
("not attributed"). After it, each part off the chain floats from the
level of its reference (vector state and SCHED_FIFO from the thread
pair's hand-off, the mitigations from the process hand-off, cgroups from one
cgroup). Every bar carries its part's 95% interval. Right panel: the
cross-CPU wake-up, a different quantity, on its own axis. Below, where
the kernel was sampled, the thread hand-off split by kernel function group.
"""
from __future__ import annotations

import math

from ctxbench.anatomy import analysis
from ctxbench.core.model import Environment
from ctxbench.ui.figures import machine_label, plt

US = 1e3
CHAIN_COLOUR, TOTAL_COLOUR, GAP_COLOUR, SIDE_COLOUR = "#4C72B0", "#333333", "#BBBBBB", "#DD8452"


def _err(p: dict, base: float) -> tuple[float, list[list[float]]]:
    """Top of a floating bar and its error bar (the part's interval)."""
    est = p["estimate_ns"]
    lo, hi = p["ci95"]
    top = base + est
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return top, [[0.0], [0.0]]
    return top, [[max(est - lo, 0.0) / US], [max(hi - est, 0.0) / US]]


def waterfall(a: dict, env: Environment | dict):
    """One matplotlib figure, or None without a chain."""
    parts = [p for p in analysis.shown_parts(a) if math.isfinite(p.get("estimate_ns", math.nan))]
    chain = [p for p in parts if p["chain"]]
    if not chain:
        return None
    at = a.get("attribution") or {}
    has_at = bool(at.get("groups"))
    fig = plt.figure(figsize=(11, 6.4 if has_at else 4.8))
    grid = fig.add_gridspec(2 if has_at else 1, 2, width_ratios=[6, 1], height_ratios=[3, 1] if has_at else [1])
    _chain_bars(fig.add_subplot(grid[0, 0]), a, parts, chain)
    _cross_cpu_bar(fig.add_subplot(grid[0, 1]), a.get("cross_cpu"))
    if has_at:
        _attribution_bar(fig.add_subplot(grid[1, :]), at)
    fig.text(0.01, 0.005, machine_label(env), fontsize=7, color="#555555")
    fig.tight_layout()
    return fig


def _chain_bars(ax, a: dict, parts: list[dict], chain: list[dict]) -> None:
    """The chain's steps stacked, the measured hand-off, what is not
    attributed, and the side rungs above the hand-off they add to."""
    labels, level = [], 0.0
    for p in chain:
        top, err = _err(p, level)
        ax.bar(len(labels), (top - level) / US, bottom=level / US, color=CHAIN_COLOUR, yerr=err, capsize=3)
        labels.append(p["name"])
        level = top
    sc = a.get("sum_check") or {}
    if sc:
        _, err = _err(sc["total"], 0.0)
        ax.bar(len(labels), sc["total"]["estimate_ns"] / US, color=TOTAL_COLOUR, yerr=err, capsize=3)
        labels.append("= measured hand-off\n(process)")
        if not sc.get("within_total_interval"):
            top, err = _err(sc["gap"], level)
            ax.bar(len(labels), (top - level) / US, bottom=level / US, color=GAP_COLOUR, yerr=err, capsize=3,
                   hatch="//")
            labels.append("not attributed")
    # the thread pair's hand-off: its calls and its switch (the chain's steps
    # before the process's own calls and address space)
    thread = sum(p["estimate_ns"] for p in chain if p["rung"] in ("syscall", "thread"))
    base_of = {"thread": thread, "process": sc.get("total", {}).get("estimate_ns", level)}
    for p in parts:
        if p["chain"]:
            continue
        # cgroups: from the process hand-off (one cgroup ~ the process rung)
        base = base_of.get(p["reference"], base_of["process"])
        top, err = _err(p, base)
        ax.bar(len(labels), (top - base) / US, bottom=base / US, color=SIDE_COLOUR, yerr=err, capsize=3)
        labels.append("+ " + p["name"])
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("µs per hand-off (95% CI)")
    total = sc.get("total", {}).get("estimate_ns", level)
    ax.set_title(f"Where the {total / US:.2f} µs of one hand-off go "
                 f"(a process pair, {a.get('mechanism', '')}, same CPU)", fontsize=10)
    ax.axhline(0, color="black", linewidth=0.5)


def _cross_cpu_bar(axx, xc: dict | None) -> None:
    """Cross-CPU wake-up latency beside, as the different quantity it is."""
    if not (xc and math.isfinite(xc.get("median_ns", math.nan))):
        axx.axis("off")
        return
    lo, hi = xc["ci95"]
    med = xc["median_ns"]
    axx.bar(0, med / US, color="#55A868", yerr=[[max(med - lo, 0) / US], [max(hi - med, 0) / US]], capsize=3)
    axx.set_xticks([0])
    axx.set_xticklabels(["cross-CPU\nwake-up"], fontsize=8)
    axx.set_title("a different\nquantity", fontsize=9)


def _attribution_bar(axa, at: dict) -> None:
    """The sampled thread hand-off by kernel function group."""
    left = 0.0
    for g in at["groups"]:
        w = g["ns"] / US
        axa.barh(0, w, left=left, label=f"{g['group']} {g['share']:.0%}")
        left += w
    gap = at.get("not_sampled_ns")
    if gap is not None and math.isfinite(gap) and gap > 0:
        axa.barh(0, gap / US, left=left, color=GAP_COLOUR, hatch="//", label="not sampled")
    axa.set_yticks([])
    axa.set_xlabel("µs of the thread hand-off with sampling on, by kernel function group (cpu-clock samples: "
                   "an interrupts-off region is counted where it ends)", fontsize=8)
    axa.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.45))
