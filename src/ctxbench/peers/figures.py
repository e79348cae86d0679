"""The peers figure, "what each tool's number means": left, each peer's own
number (per its operation), the same number in ctxbench's unit, and
ctxbench's figure for that quantity, on a log scale; right, their ratio
and the ratio to the sum of ctxbench's parts the operation holds, with
their 95% intervals over the rounds and the ±10% band. Rows are grouped by
what they are (same-CPU switch, one thread, cross-CPU wake-up,
throughput), so an unpinned row never sits in the same-CPU group. Each
row's comparison is the one it kept (table.kept), never judged again."""
from __future__ import annotations

from ctxbench.core.model import Environment, Result
from ctxbench.peers import analysis, table
from ctxbench.stats.numbers import is_finite
from ctxbench.ui.figures import machine_label, plt

NAME = "peers"
SHORT = {table.SECTIONS[0]: "same-CPU switch", table.SECTIONS[1]: "one thread",
         table.SECTIONS[2]: "cross-CPU wake-up", table.SECTIONS[3]: "throughput"}


def _err(iv: dict | None) -> tuple[float, list[list[float]]] | None:
    if not iv or not is_finite(iv.get("point")):
        return None
    m, ci = iv["point"], iv.get("ci95")
    if not ci or not all(map(is_finite, ci)):
        return m, [[0], [0]]
    return m, [[max(m - ci[0], 0)], [max(ci[1] - m, 0)]]


def figure(results: list[dict], env: Environment | dict):
    """One matplotlib figure, or None without a peer row."""
    rows = []
    for section in (*table.SECTIONS, table.OTHER):
        rows += [r for r in results if table.is_peer(r) and table.section_of(r) == section]
    if not rows:
        return None
    n = len(rows)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 0.36 * n + 2.6), sharey=True,
                                 gridspec_kw={"width_ratios": [3, 2]})
    labels = []
    for i, r in enumerate(rows):
        v = Result(r)
        p = v.params
        y = n - 1 - i
        labels.append(f"{p.get('title')}, {p.get('placement')} [{SHORT.get(p.get('label'), '?')}]")
        c = table.kept(r) or {}  # what the row kept; a row without, its own number alone
        own = sorted(v.raw("per_op_ns"))
        if own:
            ax.plot([own[len(own) // 2]], [y + 0.2], "x", color="0.55", ms=5)
        for key, colour, off, marker in (("converted", "C0", 0.0, "o"), ("match", "k", -0.2, "s")):
            e = _err(c.get(key))
            if e:
                ax.errorbar([e[0]], [y + off], xerr=e[1], fmt=marker, ms=4, capsize=2, color=colour)
        for key, colour, off, marker in (("ratio", "C0", 0.1, "o"), ("explained", "C2", -0.1, "D")):
            e = _err(c.get(key))
            if e:
                bx.errorbar([e[0]], [y + off], xerr=e[1], fmt=marker, ms=4, capsize=2, color=colour)
    ax.plot([], [], "x", color="0.55", label="the peer's own number (per its op)")
    ax.plot([], [], "o", color="C0", label="in ctxbench's unit (per hand-off, switch, call)")
    ax.plot([], [], "s", color="k", label="ctxbench, same quantity")
    ax.set_xscale("log")
    ax.set_xlabel("ns (log scale; 95% interval over the rounds)")
    ax.set_yticks(range(n), list(reversed(labels)), fontsize=7)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    bx.axvspan(1 - analysis.AGREE, 1 + analysis.AGREE, color="0.9")
    bx.axvline(1, color="0.4", lw=0.8)
    bx.plot([], [], "o", color="C0", label="converted / ctxbench")
    bx.plot([], [], "D", color="C2", label="converted / ctxbench's parts")
    bx.set_xlabel(f"ratio (shaded: within {analysis.AGREE:.0%})")
    bx.grid(True, axis="x", alpha=0.3)
    fig.suptitle("What each tool's number means, measured beside ctxbench in the same run", fontsize=10)
    starts = [i for i in range(1, n) if Result(rows[i]).params.get("label") != Result(rows[i - 1]).params.get("label")]
    for i in starts:  # a line between the kinds of quantity
        for a in (ax, bx):
            a.axhline(n - i - 0.5, color="0.6", lw=0.6)
    handles, names = [], []
    for a in (ax, bx):
        h, lab = a.get_legend_handles_labels()
        handles += h
        names += lab
    height = 0.36 * n + 2.6
    fig.legend(handles, names, loc="lower center", ncol=5, fontsize=7, bbox_to_anchor=(0.5, 0.3 / height))
    fig.text(0.01, 0.005, machine_label(env), fontsize=7, color="0.35")
    fig.tight_layout(rect=(0, 0.7 / height, 1, 0.97))
    return fig
