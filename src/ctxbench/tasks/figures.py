"""The task-pair figures (Figures 2 and 3 of David et al., ExpCS 2007):
direct and indirect overhead against n, and its breakdown; 95% intervals;
and the recovery curve after a switch-in (the chunk design)."""
from __future__ import annotations


from ctxbench.core.model import Environment, Result
from ctxbench.ui.figures import MS, err_bar, finish_titled, machine_label, panel_grid
from ctxbench.ui.twin import fmt_twin

FIG2, FIG3 = "tasks-fig2-overheads", "tasks-fig3-breakdown"  # file names


def _series(points, part, scale=MS):
    xs, ys, lo, hi = [], [], [], []
    for p in map(Result, points):
        m, a, b = err_bar(p.parts[part], scale)
        xs.append(p.params.n)
        ys.append(m)
        lo.append(a)
        hi.append(b)
    return xs, ys, [lo, hi]


def _per_switch(per_pair: dict | None, pair: str) -> str:
    s = (per_pair or {}).get(pair)
    return f"\nper switch: {fmt_twin(s['per_switch'])}" if s else ""


def figure2(by_pair: dict[str, list[dict]], env: Environment | dict, maxcv: float, per_pair: dict | None = None):
    """Direct (n*C) and indirect (I) overhead vs n, one panel per pair."""
    fig, axes = panel_grid(len(by_pair))
    for ax, (pair, pts) in zip(axes, by_pair.items()):
        for part, label, mk in (("direct", "direct (n·C)", "s"), ("I", "indirect (I)", "o")):
            x, y, e = _series(pts, part)
            ax.errorbar(x, y, yerr=e, marker=mk, ms=3, capsize=2, label=label)
        ps = ((per_pair or {}).get(pair) or {}).get("per_switch")
        if ps and x:  # the fitted slope, through the points' centroid (a least-squares line has an intercept)
            xm, ym = sum(x) / len(x), sum(y) / len(y)
            k = ps["estimate_ns"] / MS
            ax.plot([min(x), max(x)], [ym + k * (min(x) - xm), ym + k * (max(x) - xm)], ls="--", lw=1,
                    color="C1", label="least-squares line: slope = per switch")
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_title(pair.replace("+", " and ") + _per_switch(per_pair, pair), fontsize=8)
        ax.set_xlabel("context switches n")
        ax.set_ylabel("overhead (ms)")
        ax.legend(fontsize=7)
    fig.suptitle(f"Context switch overheads, direct and indirect (after David et al., ExpCS 2007, Fig. 2); mean of runs, 95% CI; "
                 f"Max CV {maxcv:.2%}\n{machine_label(env)}", fontsize=8)
    return finish_titled(fig)


def figure3(by_pair: dict[str, list[dict]], env: Environment | dict, maxcv: float, per_pair: dict | None = None):
    """The indirect overhead broken down: each task's own segments and the
    switches' own inflation."""
    fig, axes = panel_grid(len(by_pair))
    for ax, (pair, pts) in zip(axes, by_pair.items()):
        a, b = pair.split("+")
        for part, label in (("I_task_a", a), ("I_task_b", b), ("I_switch", "switch inflation"), ("I", "total I")):
            x, y, e = _series(pts, part)
            ax.errorbar(x, y, yerr=e, marker="o", ms=3, capsize=2, label=label,
                        lw=1.6 if part == "I" else 1)
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_title(pair.replace("+", " and ") + _per_switch(per_pair, pair), fontsize=8)
        ax.set_xlabel("context switches n")
        ax.set_ylabel("indirect overhead (ms)")
        ax.legend(fontsize=7)
    fig.suptitle(f"Indirect context switch overhead breakdown (after David et al., ExpCS 2007, Fig. 3); 95% CI; Max CV {maxcv:.2%}\n"
                 f"{machine_label(env)}", fontsize=8)
    return finish_titled(fig)


RECOVERY = "tasks-recovery"


def recovery(per_pair: dict, env: Environment | dict):
    """The recovery curve of each pair's two tasks: the excess per chunk
    after a switch-in (tasks/chunked.py), one panel per pair."""
    from ctxbench.ui.recovery import figure  # the shared curve figure

    panels = {}
    for pair, s in per_pair.items():
        ch = s.get("chunks")
        if not ch:
            continue
        ta, tb = list(s["per_task"])[:2]
        panels[f"{pair.replace('+', ' and ')}\nper switch: {fmt_twin(ch['per_switch'])}"] = {
            ta: ch["curve"]["a"], tb: ch["curve"]["b"]}
    return figure(panels, env, "Recovery after a switch-in: each task's chunks against the same chunks with no "
                  "switch before them, above the far baseline", "switch-in")
