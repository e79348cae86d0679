"""Seed 000's arithmetic on the engine's raw results (METHOD.md 5 and 6).

Task pairs, per pair and n:
    R_total    = R'_total at n = 1 (one switch between the two tasks)
    C          = direct cost of one switch: the same runner with empty
                 tasks, (E(N) - E(1)) / (N - 1)
    I          = R'_total(n) - (R_total - C) - n*C     (0 at n = 1)
    I_task_a/b = each task's own segments at n minus at n = 1
    I_switch   = I - I_task_a - I_task_b (the switches' own inflation)
Interrupts, per task and rate (R_task and R'_task measured back to back in
one sample, k = handler count of that sample, D from irq/direct):
    I = R'_task - R_task - k*D
"""
from __future__ import annotations

import math

import numpy as np

from ctxbench.core import model
from ctxbench.stats import summary as stats
from ctxbench.stats.derived import derived_summary


def kept_rows(result: dict) -> tuple[np.ndarray, list[dict]]:
    """Indices of the samples to use, and warnings. Disturbed samples (other
    tasks took the CPU: more switches than the method makes; judged once by
    the model) are dropped while at least two remain; otherwise all are
    used, with a warning."""
    keep = model.Result(result).keep
    n = len(keep)
    idx = np.array([i for i, k in enumerate(keep) if k], dtype=int)
    warns = []
    if n and len(idx) < n:
        if len(idx) >= 2:
            warns.append(model.warning("disturbed_runs", f"{n - len(idx)} of {n} runs disturbed (extra switches: "
                                       "another task took the CPU); left out"))
        else:
            warns.append(model.warning("disturbed_runs", f"{n - len(idx)} of {n} runs disturbed (extra switches: "
                                       "another task took the CPU); too few clean runs, all used"))
            idx = np.arange(n)
    return idx, warns


def _raw(result: dict, name: str, idx: np.ndarray) -> np.ndarray:
    arr = model.Result(result).raw(name)
    return arr[idx] if arr.size else arr


def switch_cost(e1: dict, en: dict) -> tuple[dict, np.ndarray, np.ndarray, int, list[dict]]:
    """C from the empty pair at n = 1 and n = N."""
    n_big = int(en["params"]["n"])
    i1, w1 = kept_rows(e1)
    iN, wN = kept_rows(en)
    a = _raw(e1, "t_total_ns", i1)
    b = _raw(en, "t_total_ns", iN)
    c = derived_summary(lambda m: (m["N"][0] - m["1"][0]) / (n_big - 1), {"1": a, "N": b})
    return c, a, b, n_big, w1 + wN


def pair_points(pair_results: dict[int, dict], e1: dict, en: dict) -> list[dict]:
    """One result per n for one pair; pair_results maps n -> engine result."""
    if 1 not in pair_results:
        raise ValueError("the n = 1 run (R_total) is missing")
    c_sum, ea, eb, n_big, c_warn = switch_cost(e1, en)
    base = pair_results[1]
    ib, wb = kept_rows(base)
    B = np.column_stack([_raw(base, k, ib) for k in ("t_total_ns", "t_task_a_ns", "t_task_b_ns")])
    out = []
    for n in sorted(pair_results):
        r = pair_results[n]
        ir, wr = kept_rows(r)
        P = np.column_stack([_raw(r, k, ir) for k in ("t_total_ns", "t_task_a_ns", "t_task_b_ns")])
        sets = {"P": P, "B": B, "E1": ea, "EN": eb}

        def C(m):
            return (m["EN"][0] - m["E1"][0]) / (n_big - 1)

        def I(m, n=n):
            return m["P"][0] - (m["B"][0] - C(m)) - n * C(m)

        def Ia(m):
            return m["P"][1] - m["B"][1]

        def Ib(m):
            return m["P"][2] - m["B"][2]

        parts = {
            "R_total": stats.summarize(B[:, 0]),
            "R_prime": stats.summarize(P[:, 0]),
            "C": c_sum,
            "direct": derived_summary(lambda m, n=n: n * C(m), sets),
            "I": derived_summary(I, sets),
            "I_pct": derived_summary(lambda m: 100.0 * I(m) / m["B"][0], sets),
            "I_task_a": derived_summary(Ia, sets),
            "I_task_b": derived_summary(Ib, sets),
            "I_switch": derived_summary(lambda m: I(m) - Ia(m) - Ib(m), sets),
            "task_a_time": stats.summarize(P[:, 1]),
            "task_b_time": stats.summarize(P[:, 2]),
        }
        if n == 1:
            # by construction: R'_total(1) is R_total, so I is exactly 0
            parts["I"] = dict(parts["I"], mean=0.0, median=0.0)
        warns = [dict(t) for t in dict.fromkeys(tuple(w.items()) for w in wr + (wb if n != 1 else []) + c_warn)]
        # the model's generic "dropped" warning is replaced by ours (which
        # says whether they were really left out)
        eng = model.without(r.get("warnings"), "dropped")
        if math.isfinite(parts["I"]["mean"]) and parts["I"]["mean"] < 0 and n > 1:
            warns.append(model.warning("negative_indirect", "negative indirect cost I (printed as measured): the "
                                       "run-to-run spread is larger than the effect"))
        params = dict(r.get("params") or {})
        params.update({"pair": params.get("pair"), "n": n, "C_from_empty_n": [1, n_big]})
        out.append({
            "id": f"tasks/{params['pair']}/n={n}",
            "quantity": "run", "unit": "ns",
            "doc": "R'_total of the pair with n switches, and I, C and breakdown as in David et al. 2007",
            "params": params,
            "samples": r.get("samples"),
            "raw": r.get("raw"),
            "verify": r.get("verify"),
            "summary": stats.summarize(P[:, 0]),
            "parts": parts,
            "cv_R_prime": parts["R_prime"]["cv"],
            "warnings": eng + warns,
        })
    return out


def max_cv(points: list[dict]) -> float:
    cvs = [cv for cv in (model.Result(p).parts["R_prime"].cv for p in points) if math.isfinite(cv)]
    return max(cvs) if cvs else math.nan
