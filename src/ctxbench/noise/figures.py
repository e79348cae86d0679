"""The noise figure: a histogram of the gaps a pinned tight loop sees."""
from __future__ import annotations

from ctxbench.core.model import Environment, Summary
from ctxbench.ui.figures import MS, finish_titled
from ctxbench.ui.figures import machine_label, plt

NAME = "noise-gaps"  # file name


def noise_histogram(noise: dict, env: Environment | dict, cpu, per_window: Summary | None = None):
    """`noise`: the result's noise record (Result.noise); `per_window`: its
    summary (time lost per 1 s window)."""
    hist = noise.get("histogram") or []
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
    labels = [_fmt(h["lo_ns"]) for h in hist]
    a1.bar(range(len(hist)), [h["count"] for h in hist])
    a1.set_yscale("log")
    a1.set_ylabel("gaps")
    a2.bar(range(len(hist)), [h["total_ns"] / MS for h in hist], color="tab:red")
    a2.set_ylabel("time lost (ms)")
    for ax in (a1, a2):
        ax.set_xticks(range(len(hist)))
        ax.set_xticklabels(labels, rotation=60, fontsize=7)
        ax.set_xlabel("gap length (bin lower edge, bins double)")
    win = noise.get("window_ns") or 0
    fig.suptitle(f"Gaps seen by a tight clock loop on CPU {cpu}: {noise.get('count', 0)} gaps, "
                 f"{noise.get('total_ns', 0) / MS:.1f} ms lost in {win / 1e9:.1f} s, longest "
                 f"{noise.get('longest_ns', 0) / MS:.2f} ms (threshold {noise.get('threshold_ns', 0)} ns)\n"
                 + (f"time lost per 1 s window: median {per_window.median / MS:.1f} ms, 95% CI "
                    f"[{per_window.ci95[0] / MS:.1f}, {per_window.ci95[1] / MS:.1f}] ms, CV {per_window.cv:.1%}\n"
                    if per_window and per_window.n else "") +
                 f"{machine_label(env)}", fontsize=8)
    return finish_titled(fig)


def _fmt(ns: float) -> str:
    for unit, f in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= f:
            return f"{ns / f:.3g} {unit}"
    return f"{ns:g} ns"
