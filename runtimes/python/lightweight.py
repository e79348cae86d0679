"""Spawn+join and resident memory per parked lightweight thread, per
family: greenlet, asyncio task (default loop, uvloop), thread."""
import asyncio
import gc
import os
import threading

from measure import clock
from mechanisms import new_uvloop

# Kernel threads parked at once, whatever --park asks: each holds a kernel
# stack and two memory maps (vm.max_map_count is 65530 by default), so
# 10^5 cannot be parked; the count used is in params.parked.
MAX_THREADS = 1000
PAGE = os.sysconf("SC_PAGE_SIZE")
DOC = {"greenlet": "a greenlet", "asyncio-task": "an asyncio task (default loop)",
       "uvloop-task": "an asyncio task on uvloop", "thread": "a threading.Thread"}


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def _noop():
    pass


async def _anoop():
    pass


def _loop(family):
    return new_uvloop() if family == "uvloop-task" else asyncio.new_event_loop()


def spawn_batch(family, k):
    """ns per spawn+join over k of them."""
    if family == "greenlet":
        import greenlet
        t0 = clock()
        for _ in range(k):
            greenlet.greenlet(_noop).switch()  # runs to its end and returns here
        return (clock() - t0) / k
    if family == "thread":
        t0 = clock()
        for _ in range(k):
            t = threading.Thread(target=_noop)
            t.start()
            t.join()
        return (clock() - t0) / k
    loop = _loop(family)

    async def batch():
        t0 = clock()
        for _ in range(k):
            await loop.create_task(_anoop())
        return (clock() - t0) / k
    try:
        return loop.run_until_complete(batch())
    finally:
        loop.close()


def park_once(family, p):
    """(RSS with p parked - RSS before) / p."""
    gc.collect()
    if family == "greenlet":
        import greenlet
        main = greenlet.getcurrent()
        before = rss()
        parked = [greenlet.greenlet(main.switch) for _ in range(p)]
        for g in parked:
            g.switch()  # each now waits inside main.switch()
        after = rss()
        for g in parked:
            g.switch()  # let each finish
        return (after - before) / p
    if family == "thread":
        release = threading.Event()
        started = threading.Semaphore(0)

        def park():
            started.release()
            release.wait()
        before = rss()
        threads = [threading.Thread(target=park) for _ in range(p)]
        for t in threads:
            t.start()
        for _ in threads:
            started.acquire()
        after = rss()
        release.set()
        for t in threads:
            t.join()
        return (after - before) / p
    loop = _loop(family)

    async def parked():
        release = loop.create_future()

        async def park():
            await release
        before = rss()
        tasks = [loop.create_task(park()) for _ in range(p)]
        await asyncio.sleep(0)  # each task runs to its await
        after = rss()
        release.set_result(None)
        await asyncio.gather(*tasks)
        return (after - before) / p
    try:
        return loop.run_until_complete(parked())
    finally:
        loop.close()


def spawn_record(o, family, params):
    samples, groups = [], []
    for g in range(o.groups):
        for _ in range(o.iterations):
            samples.append(spawn_batch(family, o.spawn))
            groups.append(g)
    return {"id": f"runtimes/python/{family}/spawn/{o.placement}", "quantity": "spawn", "unit": "ns",
            "doc": f"start {DOC[family]} and wait for its end (ns per spawn+join, batches of K)",
            "params": {"runtime": "python", "mechanism": family, "placement": o.placement, "batch": o.spawn,
                       **params},
            "samples": samples, "group": groups, "raw": {}, "warnings": []}


def park_record(o, family, params):
    p, warnings = o.park, []
    if family == "thread" and p > MAX_THREADS:
        p = MAX_THREADS
        warnings.append(f"threads: {MAX_THREADS} parked, not {o.park} (each is a kernel thread; "
                        "the process's map count would run out)")
    samples = [park_once(family, p) for _ in range(o.groups)]
    return {"id": f"runtimes/python/{family}/memory/{o.placement}", "quantity": "memory", "unit": "bytes",
            "doc": f"resident memory per parked {DOC[family].split(' ', 1)[1]}: "
                   "(RSS with P parked - RSS before) / P, /proc/self/statm, after a gc.collect()",
            "params": {"runtime": "python", "mechanism": family, "placement": o.placement, "parked": p, **params},
            "samples": samples, "group": list(range(o.groups)), "raw": {}, "warnings": warnings}
