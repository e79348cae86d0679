"""An effect with its twin in core cycles (core/cycles.py `twin`: tasks,
irq, ring) as phrases for people: the verdict in the unit whose MDE is
smaller, and a note saying which unit that is and by how much."""
from __future__ import annotations

import math

from ctxbench.core import cycles
from ctxbench.ui.format import fmt_cycles as fmt_cyc
from ctxbench.ui.format import fmt_effect, fmt_time


def fmt_in(x: float, unit: str) -> str:
    return fmt_cyc(x) if unit == "cycles" else fmt_time(x)


def fmt_twin(e: dict, simultaneous: bool = False) -> str:
    """The effect in the unit its verdict uses: estimate [interval], or
    'below X (MDE; measured Y)' (fmt_effect's phrases); in cycles, the
    estimate read in ns at the run's clock beside it. `simultaneous`: the
    interval printed is the simultaneous one where the effect has it."""
    v = cycles.chosen(e)
    est, m, u = v["estimate"], v["mde"], v["unit"]
    lo, hi = (v.get("ci95_simultaneous") if simultaneous else None) or v["ci95"]
    if est is None or not math.isfinite(est):
        return "n/a"
    if u == "ns" and not simultaneous:
        return fmt_effect(e)
    at = f" = {fmt_time(est / e['ghz'])} at {e['ghz']:.2f} GHz" if u == "cycles" else ""
    if v["below_mde"]:
        return f"below {fmt_in(m, u)} (MDE; measured {fmt_in(est, u)}{at})"
    out = f"{fmt_in(est, u)} [{fmt_in(lo, u)}, {fmt_in(hi, u)}]{at}"
    if math.isfinite(lo) and (hi - lo) / 2 > 0.5 * abs(est):
        out += " (above its MDE, interval wider than +-50%: more rounds)"
    return out


def mde_note(e: dict) -> str:
    """Which unit the verdict uses and the MDEs of both: 'in cycles: MDE
    1530 cyc, 0.42x of the ns one (1.03 µs)' or 'in ns (cycles: MDE 1.02x)';
    where no cycles: 'in ns (no cycles: why)'."""
    c = e.get("cycles")
    if not isinstance(c, dict):
        why = e.get("cycles_why")
        return f"in ns (no cycles: {why})" if why else "in ns"
    r = e.get("mde_ratio")
    rs = f"{r:.2f}x" if isinstance(r, (int, float)) and math.isfinite(r) else "n/a"
    if e.get("unit") == "cycles":
        return f"in cycles: MDE {fmt_cyc(c.get('mde_cycles'))}, {rs} of the ns one ({fmt_time(e.get('mde_ns'))})"
    return f"in ns: MDE {fmt_time(e.get('mde_ns'))} (in cycles {rs} of it)"


def short_note(e: dict) -> str:
    """The unit and the ratio in a few characters, for a table column:
    'cyc 0.42x', 'ns 1.02x', 'ns'."""
    r = e.get("mde_ratio")
    if not isinstance(e.get("cycles"), dict) or not (isinstance(r, (int, float)) and math.isfinite(r)):
        return "ns"
    return f"{'cyc' if e.get('unit') == 'cycles' else 'ns'} {r:.2f}x"


def ns_view(e: dict) -> dict:
    """The verdict's unit read in ns: cycles.chosen(e) with a cycles
    estimate, interval, standard error and MDE divided by the run's clock
    (what a plan or a figure in ns compares across units)."""
    v = cycles.chosen(e)
    for k in ("estimate", "se", "mde"):
        v[k] = math.nan if v[k] is None else v[k]
    if v["unit"] != "cycles":
        return v
    f = e["ghz"]
    out = dict(v, estimate=v["estimate"] / f, se=v["se"] / f, mde=v["mde"] / f, ci95=[x / f for x in v["ci95"]])
    if v.get("ci95_simultaneous"):
        out["ci95_simultaneous"] = [x / f for x in v["ci95_simultaneous"]]
    return out
