"""The protocol's measurement, the same in every harness (RUNTIMES.md):
a sample is a batch of N round trips (2N one-way hand-offs), N doubled
until a batch lasts --min-sample-us; G groups of I samples, fresh parties
per group; getrusage's switch counts around every sample."""
import resource
import time

MAX_ROUND_TRIPS = 1 << 24   # N's cap while calibrating ...
MAX_SAMPLE_NS = 1_000_000_000  # ... and a batch's: no sample runs longer than about a second
MAX_WARMUP_BATCHES = 100_000

clock = time.perf_counter_ns  # CLOCK_MONOTONIC


def rusage():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_nvcsw, ru.ru_nivcsw


def timed(pair, n):
    """(ns, voluntary, involuntary) of n round trips; a pair that must be
    timed inside its own event loop brings its own `timed`."""
    if hasattr(pair, "timed"):
        return pair.timed(n)
    v0, i0 = rusage()
    t0 = clock()
    pair.round_trips(n)
    dt = clock() - t0
    v1, i1 = rusage()
    return dt, v1 - v0, i1 - i0


def calibrate(pair, min_sample_ns):
    n = 1
    while True:
        dt = timed(pair, n)[0]
        if dt >= min_sample_ns or dt >= MAX_SAMPLE_NS // 2 or n >= MAX_ROUND_TRIPS:
            return n
        n *= 2


def warmup(pair, n, ms, method):
    """Batches of n for `ms` milliseconds; the last three batches' ns per
    hand-off and their spread say whether the time had settled."""
    last = []
    end = clock() + ms * 1_000_000
    batches = 0
    while batches < MAX_WARMUP_BATCHES and (batches == 0 or clock() < end):
        last = (last + [timed(pair, n)[0] / (2 * n)])[-3:]
        batches += 1
    return {"ms": ms, "batches": batches, "last_ns": last, "spread": (max(last) - min(last)) / min(last),
            "method": method}


def handoff(o, name, mech, params):
    """One mechanism's result record."""
    samples, totals, handoffs, groups, vol, invol = [], [], [], [], [], []
    warm, n = None, 0
    for g in range(o.groups):
        pair = mech.start(o.delay_ns)
        try:
            if g == 0:
                n = calibrate(pair, o.min_sample_us * 1000)
                warm = warmup(pair, n, o.warmup_ms, mech.warmup_method)
                n = calibrate(pair, o.min_sample_us * 1000)  # again, on warm code
            else:
                timed(pair, n)  # untimed: the fresh parties' first batch
            for _ in range(o.iterations):
                dt, v, i = timed(pair, n)
                samples.append(dt / (2 * n))
                totals.append(dt)
                handoffs.append(2 * n)
                groups.append(g)
                vol.append(v)
                invol.append(i)
        finally:
            pair.close()
    return {"id": f"runtimes/python/{name}/{o.placement}", "quantity": "handoff", "unit": "ns", "doc": mech.doc,
            "params": {"runtime": "python", "mechanism": name, "placement": o.placement, "n": n,
                       "delay_ns": o.delay_ns, **params},
            "samples": samples, "group": groups, "raw": {"total_ns": totals, "handoffs": handoffs},
            "verify": {"voluntary": vol, "involuntary": invol,
                       "source": "getrusage(RUSAGE_SELF) ru_nvcsw/ru_nivcsw around each sample "
                                 "(every thread of the process)"},
            "warmup": warm, "warnings": []}
