"""A recovery curve from per-round values: per bucket of positions since
an event (a switch-in, a signal), the excess per chunk as a Hodges-Lehmann
estimate over rounds with its interval (stats/robust.py), and where it is
back within noise for good. Shared by tasks/chunked.py and irq/chunked.py.

"Back within noise" at a point: its interval holds 0, or the excess is
within RECOVERED_SHARE of the chunk's own time there (a resolved excess of
a few tenths of a ns on a µs chunk is a finding of the run's far baseline,
not of the refill: the rule states its resolution instead of chasing it)."""
from __future__ import annotations

import math

import numpy as np

RECOVERED_SHARE = 0.01


def curve(per_round: dict, rounds, lo: list[int], x_ns: np.ndarray, chunk_ns: np.ndarray) -> dict:
    """per_round: round -> array of the excess per chunk by bucket; rounds:
    a robust.Rounds; lo: each bucket's first position; x_ns: each bucket's
    time since the event (the middle of its chunks); chunk_ns: each
    bucket's mean chunk. Points with fewer than two rounds are left out."""
    nb = len(x_ns)
    pts = []
    for b in range(nb):
        e = rounds.effect(rounds.vector({g: v[b] for g, v in per_round.items() if b < len(v)}))
        within = (not e["resolved"]) or (math.isfinite(chunk_ns[b]) and
                                         abs(e["estimate_ns"]) <= RECOVERED_SHARE * chunk_ns[b])
        pts.append({"lo": lo[b] if b < len(lo) else None, "x_ns": float(x_ns[b]), "excess_ns": e["estimate_ns"],
                    "ci95": e["ci95"], "rounds": int(e.get("df", -1)) + 1, "resolved": e["resolved"],
                    "chunk_ns": float(chunk_ns[b]), "within_noise": bool(within)})
    pts = [p for p in pts if math.isfinite(p["x_ns"]) and p["rounds"] >= 2]
    at = next((i for i in range(len(pts)) if all(p["within_noise"] for p in pts[i:])), None)
    return {"points": pts, "recovered": at is not None,
            "recovered_after_ns": (pts[at]["x_ns"] if at else 0.0) if at is not None else None,
            "recovered_at_chunk": pts[at]["lo"] if at is not None else None,
            "rule": f"every later point's interval holds 0 or is within {RECOVERED_SHARE:.0%} of its chunk"}
