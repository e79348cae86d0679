"""Each peer's output, read: the peer's own number and how many of its
operations it timed. Parsed, never copied: a line a parser does not
recognise is a PeerOutput error naming what was missing, and costs that
peer's row only (peers/command.py).

The formats are those of the versions recorded in tests/fixtures/peers/
(perf 6.1, stress-ng 0.15.06, rt-tests' hackbench 2.4, sysbench 1.0.20;
lat_ctx as lmbench 3's format string prints it). Each parser says which
line it reads, so a new version's change is one regular expression here."""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field


class PeerOutput(ValueError):
    """The peer ran but printed something this parser does not know."""


@dataclass(frozen=True)
class Parsed:
    per_op_ns: float          # the peer's own number, per its own operation, in ns
    ops: int                  # operations it timed
    said: str                 # the peer's line the number came from (kept in the record)
    extra: dict = field(default_factory=dict)  # what else the peer said (its units, ticks, ...)


# A number as the peers print it. Bounded, and blanks are [ \t] not \s: a pattern whose blanks span lines
# took quadratic time on an output of newlines (60,000 of them: 28 s).
_NUM = r"([0-9]{1,30}(?:\.[0-9]{0,30})?(?:[eE][-+]?[0-9]{1,3})?)"
_INT = r"([0-9]{1,30})"
MAX_COUNT = 10 ** 15  # more operations than a peer could time in a launch: not a count


def _one(pattern: str, text: str, what: str) -> re.Match:
    m = re.search(pattern, text, re.MULTILINE)
    if not m:
        raise PeerOutput(f"no {what} in its output")
    return m


def _finite(x: float, what: str) -> float:
    """A positive finite number (after any scaling: 1e308 us is not a time)."""
    if not math.isfinite(x) or x <= 0:
        raise PeerOutput(f"its {what} is {x}, not a positive number")
    return x


def _count(text: str, what: str) -> int:
    n = int(text)
    if n > MAX_COUNT:
        raise PeerOutput(f"its {what} is {text[:20]}..., not a count it could time")
    return n


def perf_sched_pipe(text: str) -> Parsed:
    """`perf bench sched pipe`: "# Executed N pipe operations between two
    processes|threads", then "X usecs/op" (one op: a round trip, each task
    writing one int and reading one)."""
    ex = _one(rf"Executed {_INT} pipe operations between two (processes|threads)", text,
              "'Executed N pipe operations'")
    m = _one(rf"^[ \t]*{_NUM} usecs/op[ \t]*$", text, "'usecs/op' line")
    return Parsed(_finite(float(m.group(1)) * 1e3, "usecs/op"), _count(ex.group(1), "operation count"),
                  m.group(0).strip(), {"tasks": ex.group(2)})


def stress_switch(text: str) -> Parsed:
    """`stress-ng --switch N --metrics`: "switch X nanosecs per context
    switch (pipe method)" (its op: one write into a one-slot pipe that the
    other process reads), and the bogo ops of the metrics table."""
    m = _one(rf"switch[ \t]+{_NUM} nanosecs per context switch \(([a-z0-9-]{{1,20}}) method\)", text,
             "'nanosecs per context switch' metric")
    ops = _one(rf"\][ \t]+switch[ \t]+{_INT}[ \t]+[0-9.]+[ \t]", text, "bogo ops row for switch")
    return Parsed(_finite(float(m.group(1)), "nanosecs per context switch"), _count(ops.group(1), "bogo ops"),
                  m.group(0).strip(), {"method": m.group(2)})


def stress_context(text: str) -> Parsed:
    """`stress-ng --context N --metrics`: "context X swapcontext calls per
    sec"; its bogo op is 1000 swapcontext calls (stress-context.c)."""
    m = _one(rf"context[ \t]+{_NUM} swapcontext calls per sec", text, "'swapcontext calls per sec' metric")
    ops = _one(rf"\][ \t]+context[ \t]+{_INT}[ \t]+[0-9.]+[ \t]", text, "bogo ops row for context")
    return Parsed(_finite(1e9 / _finite(float(m.group(1)), "swapcontext calls per sec"), "time per call"),
                  _count(ops.group(1), "bogo ops") * 1000, m.group(0).strip())


def hackbench(text: str) -> Parsed:
    """rt-tests' hackbench: "... with G groups using F file descriptors
    each", "Each sender will pass L messages of S bytes", "Time: T". Each
    group has F/2 senders, each sending L messages to each of its F/2
    receivers: G x (F/2)^2 x L messages."""
    mode = _one(rf"in (process|threaded) mode with {_INT} groups using {_INT} file descriptors each", text,
                "'Running in ... mode with G groups' line")
    msgs = _one(rf"Each sender will pass {_INT} messages of {_INT} bytes", text, "'Each sender will pass' line")
    t = _one(rf"^Time: {_NUM}[ \t]*$", text, "'Time:' line")
    groups, fds, loops = (_count(mode.group(2), "groups"), _count(mode.group(3), "descriptors"),
                          _count(msgs.group(1), "messages"))
    n = groups * (fds // 2) ** 2 * loops
    if not 0 < n <= MAX_COUNT:
        raise PeerOutput(f"it says it passed {n} messages")
    return Parsed(_finite(float(t.group(1)) * 1e9 / n, "time per message"), n, t.group(0).strip(),
                  {"mode": mode.group(1), "groups": groups, "fds": fds, "loops": loops,
                   "bytes": int(msgs.group(2)), "time_s": float(t.group(1))})


def sysbench_threads(text: str, yields: int) -> Parsed:
    """sysbench threads: "total time: Ts" and "total number of events: E";
    each event is `yields` rounds of lock, sched_yield(), unlock (the
    --thread-yields it was given). One op here: one yield."""
    t = _one(rf"total time:[ \t]+{_NUM}s", text, "'total time' line")
    e = _one(rf"total number of events:[ \t]+{_INT}", text, "'total number of events' line")
    threads = _one(rf"Number of threads:[ \t]+{_INT}", text, "'Number of threads' line")
    events = _count(e.group(1), "event count")
    if events <= 0:
        raise PeerOutput("it says it ran no events")
    n = events * yields
    return Parsed(_finite(float(t.group(1)) * 1e9 / n, "time per yield"), n, t.group(0).strip(),
                  {"events": events, "threads": _count(threads.group(1), "thread count"), "time_s": float(t.group(1))})


def lat_ctx(text: str, procs: int) -> Parsed:
    """lmbench's lat_ctx (to stderr): '"size=Kk ovr=O' then 'P T' per
    process count, T in µs per switch with its own pipe overhead O already
    subtracted (lat_ctx.c). ops: lmbench chooses them; 0 (unknown)."""
    ovr = _one(rf"size={_INT}k ovr={_NUM}", text, "'size=...k ovr=...' line")
    m = _one(rf"^{procs} (-?{_NUM[1:-1]})[ \t]*$", text, f"'{procs} <time>' line")
    return Parsed(_finite(float(m.group(1)) * 1e3, "time"), 0, m.group(0).strip(),
                  {"overhead_ns": float(ovr.group(2)) * 1e3, "size_k": _count(ovr.group(1), "size")})


def ctx_clock(text: str) -> Parsed:
    """ctxbench's ctx-clock equivalent (the engine's peer/ctx-clock, JSON):
    the minimum over its samples, each the minimum of n tries, in ns and in
    the timer's ticks (what ctx-clock prints)."""
    from ctxbench.core import model  # the engine's document, read through the model (numpy: here, not at import)
    try:
        doc = json.loads(text)
        r = next(x for x in model.Document(doc).results if x.id == "peer/ctx-clock")
        samples = [float(s) for s in r.samples]
        ticks, per_ns = list(r.raw("min_ticks")), list(r.raw("ticks_per_ns"))
        n = _count(str(int(r.params.get("n"))), "count") * len(samples)
        if len(ticks) != len(samples) or len(per_ns) != len(samples):
            raise ValueError("raw arrays of another length")
    except (ValueError, KeyError, TypeError, AttributeError, StopIteration) as e:
        raise PeerOutput(f"its JSON is not the engine's peer/ctx-clock result ({type(e).__name__})")
    if not samples:
        raise PeerOutput("it gave no samples")
    i = min(range(len(samples)), key=samples.__getitem__)
    return Parsed(_finite(samples[i], "minimum"), n, f"min {ticks[i]:.0f} ticks",
                  {"min_ticks": float(ticks[i]), "ticks_per_ns": float(per_ns[i]), "timer": r.params.get("timer")})
