"""Did the switches we claim really happen? (METHOD.md section 2)

The engine records, for every sample, the switches and migrations of every
party over the sample's window; this module judges them, so that an old
results file can be judged again with better rules.

Rules, per sample:
- same-CPU kernel ping-pong: every message forces one switch, so the
  parties' voluntary + involuntary switches must add up to the expected 2n.
  Under SCHED_OTHER the woken party often preempts the waker at once, which
  the kernel counts as an *involuntary* switch of the waker: those are the
  ping-pong's own switches, so it is the total that is checked, and the
  involuntary share is reported. The start and end of a sample (the command
  that starts party B, B parking afterwards) add up to SLACK switches.
  More than 2n + SLACK means something else ran on the CPU: disturbed.
- cross-CPU ping-pong: a party blocks at most once per message, nobody else
  should run: involuntary must be 0 and voluntary at most 2n + SLACK.
- ring of N parties on one CPU (placement "ring"): each party waits for
  the token once per lap, so expected = hand-offs = laps * N. Every hand-off
  switches the sender out (blocked or preempted): voluntary + involuntary
  >= expected. A party blocks at most once per lap: voluntary <= expected.
  With N > 2 a woken party may preempt the sender, which later runs only to
  block: up to two switches per hand-off, so the total must stay <= 2 x
  expected (N = 2: <= expected, as for the ping-pong); beyond that
  something else ran. The start and end of a sample
  can leave each party half-way: slack SLACK + N.
- user-level (expected 0): no voluntary switch of the kernel thread at all.
- any migration of any party, or any switch during the single-party run,
  marks the sample disturbed.
"""
from __future__ import annotations

SLACK = 4


def _get(v: dict, key: str, i: int):
    arr = v.get(key)
    if not arr or i >= len(arr):
        return None
    return arr[i]


def judge_sample(v: dict, i: int, placement: str | None, parties: int | None = None) -> list[str]:
    """Reasons this sample is disturbed (empty: ok)."""
    reasons = []
    exp = _get(v, "expected_voluntary", i)
    vol = _get(v, "voluntary", i)
    inv = _get(v, "involuntary", i)
    mig = _get(v, "migrations", i)
    if mig:
        reasons.append("migration")
    for k, why in (("single_voluntary", "switch in single run"),
                   ("single_involuntary", "switch in single run"),
                   ("single_migrations", "migration")):
        x = _get(v, k, i)
        if x:
            reasons.append(why)
    if exp is None or vol is None:
        return sorted(set(reasons))
    if exp == 0:
        if vol:
            reasons.append("kernel switch during user-level run")
        if inv:
            reasons.append("involuntary switch")
    elif placement == "ring":
        slack = SLACK + int(parties or 2)
        total = vol + (inv or 0)
        most = exp if (parties or 2) == 2 else 2 * exp  # two parties: one switch per hand-off
        if vol > exp + slack or total > most + slack:
            reasons.append("extra switches")
        elif total < exp - slack:
            reasons.append("missing switches")
    elif placement == "cross-cpu":
        if inv:
            reasons.append("involuntary switch")
        if vol > exp + SLACK:
            reasons.append("extra switches")
    else:
        total = vol + (inv or 0)
        if total > exp + SLACK:
            reasons.append("extra switches")
        elif total < exp - SLACK:
            reasons.append("missing switches")
    return sorted(set(reasons))


def judge(result: dict) -> tuple[dict, list[bool]]:
    """Result-level verification record and the per-sample keep mask."""
    v = result.get("verify")
    n = len(result.get("samples") or [])
    if not v:
        return {"checked": False, "ok": None, "dropped": 0, "reasons": {}}, [True] * n
    params = result.get("params") or {}
    placement = params.get("placement")
    parties = params.get("parties") if isinstance(params.get("parties"), int) else None
    keep, reasons = [], {}
    for i in range(n):
        r = judge_sample(v, i, placement, parties)
        keep.append(not r)
        for why in r:
            reasons[why] = reasons.get(why, 0) + 1

    def total(key):
        arr = v.get(key) or []
        if any(x is None for x in arr):
            return None
        return int(sum(arr))

    dropped = n - sum(keep)
    vol_t, inv_t, exp_t = total("voluntary"), total("involuntary"), total("expected_voluntary")
    rec = {
        "checked": True,
        "source": v.get("source"),
        "expected_voluntary": total("expected_voluntary"),
        "voluntary": total("voluntary"),
        "involuntary": total("involuntary"),
        "migrations": total("migrations"),
        "slack_per_sample": SLACK + (parties or 2) if placement == "ring" else SLACK,
        "dropped": dropped,
        "reasons": reasons,
        # ok: the switches happened as claimed in (nearly) every sample
        "ok": n > 0 and dropped <= max(1, n // 10),
    }
    if placement == "ring" and exp_t and vol_t is not None and inv_t is not None:
        # how many context switches one hand-off really took (1 .. 2)
        rec["switches_per_handoff"] = (vol_t + inv_t) / exp_t
    return rec, keep
