"""The sweep's figures (Chen et al. Figures 3-11), PNG and SVG, from a results
file alone: no measurement.

- sweep-<mechanism>: indirect cost (top) and total cost (bottom) per switch
  vs working set per party, log2 x axis, one line per stride, 95% CI bands,
  points below their minimum detectable effect hollow with their MDE as a
  grey bar at 0, vertical lines at the machine's cache and dTLB boundaries.
- sweep-compare-stride<D>: indirect cost of every mechanism at one stride.
- sweep-counters-<mechanism>: misses per thousand instructions, single vs
  switching run, when hardware counters were recorded.

The y axis is symmetric-log: the indirect cost spans nanoseconds to
milliseconds and can be negative (it is never clipped).
"""
from __future__ import annotations


import math

from ctxbench.core import results
from ctxbench.core.model import Document, Effect, Result
from ctxbench.sweep.analysis import MISS_EVENTS, series
from ctxbench.sweep.plan import boundaries, fmt_size, key
from ctxbench.ui.figures import machine_label, plt


def slug(s: str) -> str:
    return s.replace("/", "-").strip("-")


def _xaxis(ax, sizes):
    ax.set_xscale("log", base=2)
    ticks = sorted(set(sizes))
    ax.set_xticks(ticks)
    ax.set_xticklabels([fmt_size(s) for s in ticks], rotation=60, fontsize=7)
    ax.minorticks_off()
    ax.set_xlabel("working set per party (bytes, log2)")


def _boundaries(ax, env, sizes):
    if not sizes:
        return
    lo, hi = min(sizes) / 1.5, max(sizes) * 1.5
    for b in boundaries(env):
        if lo <= b["size"] <= hi:
            ax.axvline(b["size"], color="grey" if b["kind"] == "cache" else "tab:purple",
                       ls="--" if b["kind"] == "cache" else ":", lw=1)
            ax.text(b["size"], 1.0, " " + b["label"].split(" (")[0], rotation=90, va="top", ha="right",
                    fontsize=7, transform=ax.get_xaxis_transform(), color="dimgrey")


def _line(ax, ser, label, **kw):
    """Median per point with its 95% CI band; an indirect cost below its
    MDE gets a hollow marker and its MDE as a short +-bar in grey."""
    xs = [s for s, _ in ser]
    ys = [x.median for _, x in ser]
    lo = [x.ci95[0] for _, x in ser]
    hi = [x.ci95[1] for _, x in ser]
    (ln,) = ax.plot(xs, ys, marker="o", ms=3, lw=1.2, label=label, **kw)
    ax.fill_between(xs, lo, hi, color=ln.get_color(), alpha=0.2, lw=0)
    below = [(s, x) for s, x in ser if isinstance(x, Effect) and x.below_mde]
    if below:
        ax.plot([s for s, _ in below], [x.median for _, x in below], ls="none", marker="o", ms=6,
                mfc="white", mec=ln.get_color(), zorder=3)
        ax.errorbar([s for s, _ in below], [0.0] * len(below), yerr=[x.mde if math.isfinite(x.mde) else 0.0 for _, x in below],
                    ls="none", color="grey", alpha=0.6, capsize=2, lw=0.8)


def _yaxis(ax, what):
    ax.set_yscale("symlog", linthresh=100)
    ax.axhline(0, color="black", lw=0.5)
    ax.set_ylabel(f"{what} per switch (ns, symlog)")
    ax.grid(True, which="major", alpha=0.3)


def _read(doc: dict) -> tuple[list[dict], dict]:
    """The document's results and environment, read through its view (the
    plan's key and boundaries take the records themselves)."""
    view = Document(doc)
    return view.records, view.environment


def _mechanisms(doc: dict) -> list[tuple[str, str]]:
    m = results.member(Document(doc).section("sweep"), "mechanisms")
    if m:
        return [(x["name"], x["id"]) for x in m]
    ids = []
    for r in _read(doc)[0]:
        k = key(r)
        if k and k[0] not in ids:
            ids.append(k[0])
    return [(i, i) for i in ids]


def mechanism_figure(doc: dict, name: str, bid: str):
    res, env = _read(doc)
    strides = sorted({key(r)[2] for r in res if key(r) and key(r)[0] == bid})
    fig, (top, bot) = plt.subplots(2, 1, figsize=(8, 8), sharex=True)
    sizes = []
    for d in strides:
        if d:
            ser = series(res, bid, d, "indirect")
            if ser:
                _line(top, ser, f"stride {d} B")
                sizes += [s for s, _ in ser]
        ser = series(res, bid, d, "summary")
        if ser:
            _line(bot, ser, "stride 0 (direct cost)" if d == 0 else f"stride {d} B",
                  **({"color": "black"} if d == 0 else {}))
            sizes += [s for s, _ in ser]
    for ax, what in ((top, "indirect cost"), (bot, "total cost")):
        _yaxis(ax, what)
        _boundaries(ax, env, sizes)
        _legend(ax, fontsize=7, ncol=2)
    top.set_title(f"Indirect cost = total - direct (stride 0), paired by round, {name}\n{machine_label(env)}\n"
                  f"bands: 95% CI; hollow: |estimate| below its MDE (grey bar at 0: +-MDE)", fontsize=9)
    bot.set_title("Total cost per switch, both parties traversing their own array between messages "
                  "(bands: 95% CI of the median)", fontsize=8)
    _xaxis(bot, sizes or [1024])
    return f"sweep-{slug(name)}", fig


def _legend(ax, **kw) -> None:
    """The panel's legend, or a word that it has no points: a file with no
    indirect point (a sweep without a stride, or an interrupted one) drew
    an empty panel and matplotlib warned about the empty legend."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kw)
    else:
        ax.text(0.5, 0.5, "no point measured", transform=ax.transAxes, ha="center", va="center", color="grey")


def compare_figure(doc: dict, stride: int):
    res, env = _read(doc)
    fig, ax = plt.subplots(figsize=(8, 5))
    sizes = []
    for name, bid in _mechanisms(doc):
        ser = series(res, bid, stride, "indirect")
        if ser:
            _line(ax, ser, name)
            sizes += [s for s, _ in ser]
    _yaxis(ax, "indirect cost")
    _boundaries(ax, env, sizes)
    _xaxis(ax, sizes or [1024])
    _legend(ax, fontsize=8)
    ax.set_title(f"Indirect cost per switch at stride {stride} B: kernel processes, kernel threads, user level\n"
                 f"{machine_label(env)} (bands: 95% CI; hollow: below its MDE, grey bar: +-MDE)", fontsize=9)
    return f"sweep-compare-stride{stride}", fig


def counter_figure(doc: dict, name: str, bid: str, strides=(8, 64)):
    res, env = _read(doc)
    res = [r for r in res if key(r) and key(r)[0] == bid
           and Result(r).counters.get("per_kilo_instructions")]
    if not res:
        return None
    fig, axes = plt.subplots(len(MISS_EVENTS), 1, figsize=(8, 10), sharex=True)
    sizes = []
    for ax, ev in zip(axes, MISS_EVENTS):
        for d in strides:
            for phase, style in (("single", "--"), ("switch", "-")):
                pts = []
                for r in res:
                    k = key(r)
                    pki = Result(r).counters["per_kilo_instructions"].get(phase, {})
                    v = (pki.get("both") if phase == "switch" else pki.get("a")) or {}
                    if k[2] == d and ev in v:
                        pts.append((k[1], v[ev]))
                if pts:
                    pts.sort()
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], ls=style, marker="o", ms=3,
                            label=f"{phase} run, stride {d} B")
                    sizes += [p[0] for p in pts]
        ax.set_ylabel(f"{ev.replace('_', ' ')}\nper 1000 instructions", fontsize=8)
        ax.grid(True, alpha=0.3)
        _boundaries(ax, env, sizes)
        ax.legend(fontsize=7)
    axes[0].set_title(f"Hardware counters, {name}: single run (party A) vs switching run (both parties)\n"
                      f"{machine_label(env)}", fontsize=9)
    _xaxis(axes[-1], sizes or [1024])
    return f"sweep-counters-{slug(name)}", fig


def all_figures(doc: dict, compare_stride: int = 64) -> list[tuple[str, object]]:
    """Every sweep figure as (file name, figure). The comparison is drawn
    at `compare_stride`; the command refuses a stride the sweep lacks."""
    out = [mechanism_figure(doc, name, bid) for name, bid in _mechanisms(doc)]
    strides = sorted({key(r)[2] for r in _read(doc)[0] if key(r) and key(r)[2]})
    if strides:
        d = compare_stride if compare_stride in strides else strides[len(strides) // 2]
        out.append(compare_figure(doc, d))
    out += [c for name, bid in _mechanisms(doc) if (c := counter_figure(doc, name, bid))]
    return out
