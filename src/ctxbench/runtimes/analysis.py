"""What a runtime's hand-off record means: its cost per one-way hand-off
(model.analyse: median, interval over groups), what the kernel did per
hand-off, and whether the row is a user-level or a kernel-assisted switch.

The kernel's part is counted, not assumed: each harness reads the process's
voluntary and involuntary switches around every sample (getrusage, or the
sum over /proc/self/task/*/status), so a runtime whose "lightweight" hand-off
parks a kernel thread underneath shows it."""
from __future__ import annotations

import math

import numpy as np

from ctxbench.core import model
from ctxbench.core.model import Result
from ctxbench.runtimes import rounds
from ctxbench.stats import power
from ctxbench.stats.numbers import is_finite
from ctxbench.stats.launches import interval as launch_interval
from ctxbench.ui.format import fmt_value
from ctxbench.records import RECORDS

# At most one kernel switch per this many hand-offs and a row is user-level:
# a timer tick or a page fault every 100 hand-offs is the kernel passing by,
# not the kernel doing the hand-off (a blocked thread costs one switch per
# hand-off or more).
USER_LEVEL_BELOW = 0.01
Z95 = power.Z_ALPHA


def kernel_record(r: dict) -> dict:
    """Kernel switches per hand-off (median over samples, and the largest),
    voluntary and involuntary apart; {} when the harness counted none."""
    res = Result(r)
    handoffs = list(res.raw("handoffs"))
    vol, inv = res.counts("voluntary"), res.counts("involuntary")
    rows = [(a, b, h) for a, b, h in zip(vol, inv, handoffs)
            if isinstance(a, (int, float)) and isinstance(b, (int, float)) and isinstance(h, (int, float)) and h > 0]
    if not rows:
        return {}
    per = np.array([(a + b) / h for a, b, h in rows])
    med = float(np.median(per))
    return {"per_handoff": med, "max_per_handoff": float(per.max()),
            "voluntary_per_handoff": float(np.median([a / h for a, _, h in rows])),
            "involuntary_per_handoff": float(np.median([b / h for _, b, h in rows])),
            "samples": len(rows), "source": res.verify_source or "getrusage",
            "switch": "user-level" if med < USER_LEVEL_BELOW else "kernel-assisted"}


def resolution(r: dict) -> dict:
    """The row's standard error and the smallest change another run could
    tell from it (power.mde), in ns and, where they apply, in cycles: over
    launches (Student's t, launches - 1 degrees of freedom) where the row
    has two or more, else from its 95% interval over groups."""
    out = {}
    v = Result(r)
    summaries = {"ns": v.summary, "cycles": v.cycles.summary if v.cycles.applies else None}
    for unit, s in summaries.items():
        if not s:
            continue
        over = s.launch_interval
        if over:
            se, df = float(over["se"]), int(over["df"])
        else:
            lo, hi = s.ci95
            se = (hi - lo) / (2 * Z95) if is_finite(lo) and is_finite(hi) else math.nan
            df = None
        out[f"se_{unit}"] = se
        out[f"mde_{unit}"] = power.mde(se, df)
        if unit == "ns":
            out["over"] = "launches" if df is not None else "groups"
            out["df"] = df
    return out


LAUNCH_INTERVAL = ("Student's t over the launches' medians (launches - 1 degrees of freedom, Kalibera and Jones "
                   "2013), around their mean")


def with_launches(summary: dict, iv: dict | None) -> dict:
    """The summary with `ci95` the launch-level interval (the bootstrap
    over groups kept as ci95_groups) and its MDE between two runs; the
    summary unchanged without one. Applied again to its own output, it
    keeps the groups' interval as it was."""
    if not iv or not isinstance(summary, dict):
        return summary
    out = dict(summary)
    out["ci95_groups"] = summary.get("ci95_groups", summary.get("ci95"))
    out["ci95"] = list(iv["ci95"])
    out["ci95_of"] = "mean of the launches' medians"
    out["ci95_over"] = LAUNCH_INTERVAL
    out["launch_interval"] = iv
    # two runs, each with this error (as cycles.mde_between_runs), on the launches' degrees of freedom
    out["mde"] = math.sqrt(2) * power.mde(iv["se"], iv["df"])
    return out


def estimate(s: model.Summary) -> float:
    """What a row's interval is around: the mean of its launches' medians
    where the interval is over launches, else the median of its groups."""
    iv = s.launch_interval
    x = iv.get("mean") if iv else s.median
    return float(x) if is_finite(x) else math.nan


def over_launches(r: dict) -> dict:
    """An analysed row with its intervals over launches, in ns and in
    cycles where they apply (rounds.launches: each launch's median of its
    groups' medians): a new result, `r` is not changed."""
    v = Result(r)
    ns = launch_interval([float(np.median(x)) for x in rounds.launches(r)])
    out = {"summary": with_launches(v.summary.as_dict(), ns)}
    if v.cycles.applies and v.cycles.summary:
        iv = launch_interval([float(np.median(x)) for x in rounds.launches(r, v.cycles.samples)])
        out["cycles"] = dict(v.cycles.as_dict(), summary=with_launches(v.cycles.summary.as_dict(), iv))
    return model.with_members(r, **out)


LAUNCH_ALPHA = 0.01  # a launch effect is claimed at this level (a one-way ANOVA over launches)


def launch_spread(r: dict) -> dict | None:
    """The median of each of a row's launches (rounds.py), and a warning
    when they differ beyond what the groups within each launch vary by (a
    one-way F test on the group medians). The groups of one launch share
    what a launch decides (a JIT's choices, where a runtime put its
    threads, the host's speed that minute): the row's interval is over its
    launches (over_launches) and so covers that, as wide as it must be;
    the warning says which rows it made wide, and why."""
    parts = rounds.launches(r)
    if len(parts) < 2 or sum(len(x) for x in parts) <= len(parts):
        return None
    from scipy import stats as sps  # here, not at import: the CLI starts without scipy
    medians = [float(np.median(x)) for x in parts]
    spread = max(medians) - min(medians)
    with np.errstate(all="ignore"):
        p = float(sps.f_oneway(*parts).pvalue) if all(parts) else math.nan
    out = {"medians": medians, "spread": spread, "p_launch": p}
    med = Result(r).summary.median
    if math.isfinite(p) and p < LAUNCH_ALPHA and med:
        shown = ", ".join(fmt_value(m, Result(r).unit) for m in medians)
        out["warning"] = model.warning(
            "launch_spread", f"its {len(medians)} launches gave {shown} ({spread / med:.0%} apart; F test "
                             f"p = {p:.2g}): what a launch decides moves this row more than its groups vary, and "
                             "its interval (over launches) is that wide",
            medians=medians, spread=spread, p=p)
    return out


def row_of(raw: dict) -> dict:
    """A harness record (or an engine reference's, references.py) as an
    analysed result: model.analyse, then what runtimes derive from it
    (with_runtime_members)."""
    return with_runtime_members(model.analyse(raw, RECORDS.Result))


ROW_PREFIX = "runtimes/"  # a harness's ids (harness.py checks it) and the engine references' (references.py)


def is_row(r: dict) -> bool:
    """A result runtimes made with row_of; the engine's own ids in its file
    are model.analyse's alone."""
    return Result(r).id.startswith(ROW_PREFIX)


def with_runtime_members(r: dict) -> dict:
    """An analysed row (model.analyse) with what runtimes derive from its
    samples and params: its intervals over launches, `kernel`,
    `contention`, `resolution`, `launches` and the launch-spread and
    pinned-carrier warnings (a virtual thread that pinned its carrier
    blocked a kernel thread on its hand-off). The command and `reanalyse`
    (reanalysis.py) both make a row's members here."""
    r = over_launches(r)
    r = model.with_members(r, kernel=kernel_record(r))
    contended = contention_record(r)
    if contended:
        r = model.with_members(r, contention=contended)
    r = model.with_members(r, resolution=resolution(r))
    pinned = model.Result(r).jfr.get("virtual_thread_pinned")
    warnings = model.Result(r).warnings_stored("vt_pinned", "launch_spread")  # re-analysed: said once
    spread = launch_spread(r)
    launches = {}
    if spread:
        launches["launches"] = {k: v for k, v in spread.items() if k != "warning"}
        warnings += [spread["warning"]] if "warning" in spread else []
    if isinstance(pinned, int) and pinned > 0:
        warnings.append(model.warning(
            "vt_pinned", f"{pinned} jdk.VirtualThreadPinned events in the untimed check of the same loop: the "
                         "virtual thread held its carrier, so this is not a virtual-thread hand-off",
            pinned_events=pinned))
    return model.with_members(r, warnings=warnings, **launches)


def contention_record(r: dict) -> dict:
    """What other tasks took in each kept launch of the row (runtimes/
    contention.py): of its CPUs, of the machine's other CPUs, how many
    launches were tried, and the launches still disturbed; {} where it was
    not measured."""
    from ctxbench.runtimes import contention
    params = Result(r).params

    def per(name):
        got = params.get(f"{name}_per_round")
        return got if isinstance(got, list) else ([params.get(name)] if name in params else [])

    shares, machine, tried = per("others_share"), per("machine_share"), per("launches_tried")
    if not any(isinstance(x, (int, float)) for x in shares):
        return {}
    machine = machine + [None] * (len(shares) - len(machine))
    scores = [contention.score({"others_share": float(a) if isinstance(a, (int, float)) else None,
                                "machine_share": float(b) if isinstance(b, (int, float)) else None})
              for a, b in zip(shares, machine)]
    return {"others_share": shares, "machine_share": machine, "launches_tried": tried, "quiet": contention.QUIET,
            "machine_quiet": contention.MACHINE_QUIET, "relaunches": contention.RELAUNCHES,
            "disturbed": [i + 1 for i, x in enumerate(scores) if x > 1]}


def is_handoff(r: dict) -> bool:
    return Result(r).quantity == "handoff"


class Handoff(Result):
    """A runtimes row as its readers see it (table, figure, report)."""
    __slots__ = ()

    runtime = property(lambda s: str(s.params.get("runtime") or "?"))
    mechanism = property(lambda s: str(s.params.get("mechanism") or "?"))
    placement = property(lambda s: str(s.params.get("placement") or "?"))
    mde = property(lambda s: float(s.resolution.get("mde_ns", math.nan)))
    # the toolchain line without its build detail ("rustc 1.95.0 (59807616e 2026-04-14)")
    version = property(lambda s: str(s.params.get("version") or "").split(" (")[0])
    # the number the row's interval is around (estimate()), in ns and in cycles
    estimate = property(lambda s: estimate(s.summary))
    estimate_cycles = property(lambda s: estimate(s.cycles.summary))
