"""Did the switches we claim really happen? (docs/method.md#verification)

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
- a third task (not cross-CPU): counting the parties' own switches cannot
  see who ran between them (A blocks, a busy loop runs, then B: A counts one
  voluntary switch and B none, as in a clean hand-off). The engine records,
  per sample, the switching window's wall time and the CPU time the parties
  ran in it (their CPU clocks): the rest is time the CPU gave to something
  else. In clean windows that is within a few µs of zero (clock reads; a
  timer interrupt); a busy loop on the CPU takes whole slices of
  milliseconds. A sample whose parties were off the CPU for more than
  FOREIGN_SHARE of its window and more than FOREIGN_FLOOR_NS (less than a
  time slice, more than the reads of the counts take) is disturbed. A third task
  that only waits on the run queue costs no CPU time in the window, yet
  changes the scheduler's path (a busy loop that ran in none of the kept
  samples made them 25% slower on a KVM guest): after every sample the
  engine yields once and records whether another task took the CPU
  (`others_runnable`); if one did, the sample is disturbed.
- the parties' own preemptions: where a party works long between
  hand-offs (a task pair, a sweep point of MiBs), a tick can give the CPU
  back to the other party, still runnable because the woken party had
  preempted it before it blocked; that party then runs only to block. Two
  switches, no other task, no other task's time. On a KVM guest: a task
  pair (0.2 ms per segment) had 10-18 such extra switches per 220 ms
  window whatever n was (their number grows with the window's time, not
  with the hand-offs), with 30 µs of foreign time; a 32 MiB sweep point
  (15 ms per segment) 4-6 per 30 ms window, foreign time 1-3 µs. So where
  the mean segment (window / expected switches) is at least OWN_SEGMENT_NS,
  up to two extra switches per millisecond of window (a tick at HZ = 1000,
  the fastest) are the pair's own, provided the window shows no other
  task's time: at most OWN_FOREIGN_NS or OWN_FOREIGN_SHARE of it (clean
  windows here: 1-120 µs, interrupts and the count reads; the time rule
  alone would let 2% of a 220 ms window, 4 ms of a third task, pass, and
  samples with 1-6 ms did come with extra switches). They are counted
  (`own_preemptions`), not dropped. In a ping-pong of µs segments nothing
  is allowed: there an extra switch is another task.

Two verdicts are kept apart:
- disturbed: other load added switches, migrations or CPU time; those
  samples are dropped and counted, the rest stands. When more than half are
  disturbed the result is "not verified": what remains may be the lucky
  part of a busy machine.
- failed: the switches the method implies did not happen (missing
  switches, a kernel switch in a user-level run that is not a preemption) in
  more than MAX_FAILED_SHARE of the samples.
"""
from __future__ import annotations

SLACK = 4
FOREIGN_SHARE = 0.02
# A third task that gets the CPU takes a time slice: 0.75 ms at least under
# CFS and EEVDF. Reading the counts is not free either: the reads at a
# window's ends take a party 10-50 µs outside its own CPU-time snapshot
# (a /proc sched file each), which a 200 µs window shows as 20% "foreign".
FOREIGN_FLOOR_NS = 100_000
MAX_FAILED_SHARE = 0.10
# The parties' own preemptions (see above): mean segment at least this long,
# two switches per tick period of the window (1 ms: HZ = 1000, the fastest tick).
OWN_SEGMENT_NS = 50_000
OWN_TICK_NS = 1_000_000
# ... and only where the window's other time is what interrupts and the count
# reads take, not a third task's (see above)
OWN_FOREIGN_NS = 50_000
OWN_FOREIGN_SHARE = 0.001
NOT_VERIFIED_SHARE = 0.5
# reasons that mean the method's switches did not happen (the rest: other load)
FAILURES = ("missing switches", "kernel switch during user-level run")


def _get(v: dict, key: str, i: int):
    arr = v.get(key)
    if not arr or i >= len(arr):
        return None
    return arr[i]


def own_allowance(win, exp, run) -> int:
    """Extra switches a same-CPU pair may make between themselves in a
    window of `win` ns with `exp` expected switches, the parties running
    `run` ns of it (0 for short segments, or when another task had time)."""
    if not win or not exp or exp <= 0 or run is None or win / exp < OWN_SEGMENT_NS:
        return 0
    if win - run > max(OWN_FOREIGN_NS, OWN_FOREIGN_SHARE * win):
        return 0
    return 2 * int(win // OWN_TICK_NS)


def own_preemptions(v: dict, i: int, placement: str | None) -> int:
    """Extra switches of sample i taken as the pair's own (0 if none, or if
    they exceed the allowance: then the sample is disturbed)."""
    exp, vol, inv = _get(v, "expected_voluntary", i), _get(v, "voluntary", i), _get(v, "involuntary", i)
    if placement in ("ring", "cross-cpu") or not exp or vol is None:
        return 0
    extra = vol + (inv or 0) - exp - SLACK
    return extra if 0 < extra <= own_allowance(_get(v, "window_ns", i), exp, _get(v, "runtime_ns", i)) else 0


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
    win, run = _get(v, "window_ns", i), _get(v, "runtime_ns", i)
    if placement != "cross-cpu" and win and run is not None:
        foreign = win - run
        if foreign > FOREIGN_FLOOR_NS and foreign > FOREIGN_SHARE * win:
            reasons.append("other tasks ran on the CPU")
    if _get(v, "others_runnable", i) == 1:
        reasons.append("another task runnable on the CPU")
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
        if total > exp + SLACK + own_allowance(win, exp, run):
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
    keep, reasons, failed = [], {}, 0
    for i in range(n):
        r = judge_sample(v, i, placement, parties)
        keep.append(not r)
        failed += any(why in FAILURES for why in r)
        for why in r:
            reasons[why] = reasons.get(why, 0) + 1

    def total(key):
        arr = v.get(key) or []
        if any(x is None for x in arr):
            return None
        return int(sum(arr))

    dropped = n - sum(keep)
    own = sum(own_preemptions(v, i, placement) for i in range(n) if keep[i])
    disturbed = dropped - failed
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
        "disturbed": disturbed,
        # extra switches in kept samples taken as the pair's own preemptions (long segments, no other task's time)
        "own_preemptions": own,
        "failed": failed,
        "reasons": reasons,
    }
    if n == 0 or failed > max(1, int(n * MAX_FAILED_SHARE)):
        rec["verdict"] = "failed"
    elif disturbed > n * NOT_VERIFIED_SHARE:
        rec["verdict"] = "not verified"
    else:
        rec["verdict"] = "ok"
    # ok: the switches happened as claimed, in enough clean samples to stand on
    rec["ok"] = rec["verdict"] == "ok"
    win = v.get("window_ns") or []
    rec["third_task_check"] = ("CPU time of the parties against the window's wall time"
                               if placement != "cross-cpu" and any(win) else "not made (no CPU-time record)"
                               if placement != "cross-cpu" else "not applicable (cross-CPU: two CPUs)")
    if placement == "ring" and exp_t and vol_t is not None and inv_t is not None:
        # how many context switches one hand-off really took (1 .. 2)
        rec["switches_per_handoff"] = (vol_t + inv_t) / exp_t
    return rec, keep
