"""Interrupts, per task and rate (METHOD.md section 6): R_task and R'_task
measured back to back in one sample, k = handler count of that sample, D
from irq/direct:
    I = R'_task - R_task - k*D"""
from __future__ import annotations

import math

import numpy as np

from ctxbench.core import model
from ctxbench.stats import summary as stats
from ctxbench.stats.derived import derived_summary


def irq_point(r: dict, direct: dict) -> dict:
    """One result for one task and rate."""
    raw = r.get("raw") or {}
    R = np.asarray(raw.get("r_task_ns") or [], dtype=float)
    Rp = np.asarray(raw.get("r_prime_ns") or [], dtype=float)
    k = np.asarray(raw.get("interrupts") or [], dtype=float)
    D = np.asarray(direct.get("samples") or [], dtype=float)
    rows = np.column_stack([R, Rp, k]) if R.size else np.zeros((0, 3))
    sets = {"S": rows, "D": D}
    parts = {
        "R_task": stats.summarize(R),
        "R_prime": stats.summarize(Rp),
        "interrupts": stats.summarize(k),
        "D": stats.summarize(D),
        "direct": derived_summary(lambda m: m["S"][2] * m["D"][0], sets),
        "I": derived_summary(lambda m: m["S"][1] - m["S"][0] - m["S"][2] * m["D"][0], sets),
        "I_pct": derived_summary(lambda m: 100.0 * (m["S"][1] - m["S"][0] - m["S"][2] * m["D"][0]) / m["S"][0], sets),
    }
    # the generic line about the sample value (R' - R) is replaced by ours about I
    warns = model.without(r.get("warnings"), "negative")
    if math.isfinite(parts["I"]["mean"]) and parts["I"]["mean"] < 0:
        warns.append(model.warning("negative_indirect", "negative indirect cost I (printed as measured): the "
                                   "run-to-run spread is larger than the effect (David et al. 2007 saw the same: "
                                   "high CV of a small difference)"))
    ci = parts["I"]["ci95"]
    if all(math.isfinite(x) for x in ci) and ci[0] < 0 < ci[1]:
        warns.append(model.warning("ci_includes_zero", "I's 95% interval includes 0: only the trend over rates "
                                   "should be read"))
    ov = np.asarray(raw.get("overruns") or [], dtype=float)
    if ov.size and ov.sum() > 0:
        parts["overruns"] = stats.summarize(ov)
        warns.append(model.warning("overruns", "timer expirations merged into a still pending signal (the task "
                                   "was not running: preempted); k counts handled signals only (parts.overruns)"))
    params = dict(r.get("params") or {})
    return {
        "id": f"irq/{params.get('task')}/rate={params.get('rate_hz')}",
        "quantity": "overhead", "unit": "ns",
        "doc": "R'_task - R_task with a timer signal at the rate, and I as in David et al. 2007",
        "params": params,
        "samples": r.get("samples"),
        "raw": raw,
        "summary": stats.summarize(r.get("samples") or []),
        "parts": parts,
        "warnings": warns,
    }
