"""The protocol's measurement, the same in every harness (runtimes/PROTOCOL.md):
a sample is a batch of N round trips (2N one-way hand-offs), N doubled
until a batch lasts --min-sample-us; G groups of I samples, fresh parties
per group; getrusage's switch counts around every sample.

With several delays (--delay-ns 0,1000) the samples of each group take
them in turn, so that the known answer compares neighbours in time (the
engine's interleaving): one record per delay."""
import resource
import time

MAX_ROUND_TRIPS = 1 << 24   # N's cap while calibrating ...
MAX_SAMPLE_NS = 1_000_000_000  # ... and a batch's: no sample runs longer than about a second
MAX_WARMUP_BATCHES = 100_000

clock = time.perf_counter_ns  # CLOCK_MONOTONIC


def spin(end):
    while clock() < end:
        pass


def spin_target(delay_ns):
    """What the receiving party spins for so that a hand-off grows by
    delay_ns: the delay less what the spin costs beyond its target (the
    call, the clock reads, the overshoot), measured here on this
    interpreter: the median of many short batches, so that a batch the CPU
    was taken from does not decide it. (target, measured overhead)."""
    if not delay_ns:
        return 0, 0
    per = []
    k = max(1, 20_000 // delay_ns)  # about 20 us a batch
    for _ in range(101):
        t0 = clock()
        for _ in range(k):
            spin(clock() + delay_ns)
        per.append((clock() - t0) / k)
    overhead = sorted(per)[50] - delay_ns
    return max(delay_ns - round(overhead), 0), round(overhead)


def rusage():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_nvcsw, ru.ru_nivcsw


def timed(pair, n, spin_ns):
    """(ns, voluntary, involuntary) of n round trips; a pair that must be
    timed inside its own event loop brings its own `timed`."""
    if hasattr(pair, "timed"):
        return pair.timed(n, spin_ns)
    v0, i0 = rusage()
    t0 = clock()
    pair.round_trips(n, spin_ns)
    dt = clock() - t0
    v1, i1 = rusage()
    return dt, v1 - v0, i1 - i0


def calibrate(pair, min_sample_ns, spin_ns):
    n = 1
    while True:
        dt = timed(pair, n, spin_ns)[0]
        if dt >= min_sample_ns or dt >= MAX_SAMPLE_NS // 2 or n >= MAX_ROUND_TRIPS:
            return n
        n *= 2


def warmup(pair, n, ms, method, spins):
    """Batches of n for `ms` milliseconds (the delays in turn); the last
    three batches' ns per hand-off at the first delay and their spread say
    whether the time had settled."""
    last = []
    end = clock() + ms * 1_000_000
    batches = 0
    while batches < MAX_WARMUP_BATCHES and (batches < 3 * len(spins) or clock() < end):
        ns = timed(pair, n, spins[batches % len(spins)])[0] / (2 * n)
        if batches % len(spins) == 0:
            last = (last + [ns])[-3:]
        batches += 1
    return {"ms": ms, "batches": batches, "last_ns": last, "spread": (max(last) - min(last)) / min(last),
            "method": method}


def handoff(o, name, mech, params):
    """One mechanism's result records, one per delay. The spin's target is
    measured again for each group: the interpreter's speed (and so the
    spin's own overhead) changes when the machine's load does."""
    out = [{"samples": [], "total_ns": [], "handoffs": [], "group": [], "voluntary": [], "involuntary": [],
            "spin": [], "overhead": []} for _ in o.delays]
    warm, n = None, 0
    for g in range(o.groups):
        spins = [spin_target(d) for d in o.delays]
        for r, (target, overhead) in zip(out, spins):
            r["spin"].append(target)
            r["overhead"].append(overhead)
        pair = mech.start()
        try:
            if g == 0:
                n = calibrate(pair, o.min_sample_us * 1000, spins[0][0])
                warm = warmup(pair, n, o.warmup_ms, mech.warmup_method, [s[0] for s in spins])
                n = calibrate(pair, o.min_sample_us * 1000, spins[0][0])  # again, on warm code
            else:
                timed(pair, n, spins[0][0])  # untimed: the fresh parties' first batch
            for i in range(o.iterations * len(o.delays)):
                k = i % len(o.delays)
                dt, v, iv = timed(pair, n, spins[k][0])
                r = out[k]
                r["samples"].append(dt / (2 * n))
                r["total_ns"].append(dt)
                r["handoffs"].append(2 * n)
                r["group"].append(g)
                r["voluntary"].append(v)
                r["involuntary"].append(iv)
        finally:
            pair.close()
    return [{"id": f"runtimes/python/{name}/{o.placement}", "quantity": "handoff", "unit": "ns", "doc": mech.doc,
             "params": {"runtime": "python", "mechanism": name, "placement": o.placement, "n": n,
                        "delay_ns": d, "delay_spin_ns": r["spin"], "delay_overhead_ns": r["overhead"],
                        "interleaved_delays": o.delays if len(o.delays) > 1 else None, **params},
             "samples": r["samples"], "group": r["group"],
             "raw": {"total_ns": r["total_ns"], "handoffs": r["handoffs"]},
             "verify": {"voluntary": r["voluntary"], "involuntary": r["involuntary"],
                        "source": "getrusage(RUSAGE_SELF) ru_nvcsw/ru_nivcsw around each sample "
                                  "(every thread of the process)"},
             "warmup": warm, "warnings": []}
            for d, r in zip(o.delays, out)]
