"""The Python mechanisms: greenlet switch, asyncio (default loop and uvloop)
Future hand-off, threading with a Condition. A pair = two parties, fresh
per group: round_trips(n, spin_ns) hands control there and back n times;
the party that receives a hand-off spins spin_ns on the clock first (only
when a delay is asked: the plain loop stays the mechanism alone, as the
engine's spin_ns does). The delay travels with the hand-off itself, so
that samples can take several in turn."""
import asyncio
import threading

from measure import clock, rusage, spin

STOP = object()
CPYTHON_WARMUP = ("CPython specialises its bytecode after a few runs of a loop and has no JIT tier here "
                  "(see runtime.flags.jit); the last three warm-up batches' ns per hand-off and their spread "
                  "(max - min) / min are given")


class Mechanism:
    def __init__(self, doc, family, start, needs=None):
        self.doc, self.family, self.start, self.needs = doc, family, start, needs
        self.warmup_method = CPYTHON_WARMUP


class GreenletPair:
    def __init__(self):
        import greenlet
        main_switch = greenlet.getcurrent().switch

        def other(d):
            while d is not STOP:
                if d:
                    spin(clock() + d)
                d = main_switch()
        self.g = greenlet.greenlet(other)

    def round_trips(self, n, d):
        switch = self.g.switch
        if d:
            for _ in range(n):
                switch(d)
                spin(clock() + d)
        else:
            for _ in range(n):
                switch(0)

    def close(self):
        if self.g:  # started and not finished
            self.g.switch(STOP)


class FuturePair:
    """Two asyncio tasks; each hand-off sets the other's Future and awaits
    its own: the event loop runs the woken task next."""

    def __init__(self, new_loop):
        self.loop = new_loop()
        self.mine = self.theirs = None
        self.other = self.loop.create_task(self._other())
        self.loop.run_until_complete(asyncio.sleep(0))  # the other task now waits on its Future

    async def _other(self):
        while True:
            self.theirs = self.loop.create_future()
            d = await self.theirs
            if d is STOP:
                return
            if d:
                spin(clock() + d)
            self.mine.set_result(None)

    async def _timed(self, n, d):
        loop = self.loop
        v0, i0 = rusage()
        t0 = clock()
        for _ in range(n):
            self.mine = loop.create_future()
            self.theirs.set_result(d)
            await self.mine
            if d:
                spin(clock() + d)
        dt = clock() - t0
        v1, i1 = rusage()
        return dt, v1 - v0, i1 - i0

    def timed(self, n, d):
        return self.loop.run_until_complete(self._timed(n, d))

    def close(self):
        self.theirs.set_result(STOP)
        self.loop.run_until_complete(self.other)
        self.loop.close()


def new_uvloop():
    import uvloop
    return uvloop.new_event_loop()


class ConditionPair:
    """Two threads share a Condition and a turn word (0: the measuring
    thread, 1: the other, 2: stop); a waiting thread sleeps in the kernel."""

    def __init__(self):
        self.cond = threading.Condition()
        self.turn = 0
        self.delay = 0
        self.thread = threading.Thread(target=self._other, daemon=True)
        self.thread.start()

    def _other(self):
        cond = self.cond
        with cond:
            while True:
                while self.turn == 0:
                    cond.wait()
                if self.turn == 2:
                    return
                if self.delay:
                    spin(clock() + self.delay)
                self.turn = 0
                cond.notify()

    def round_trips(self, n, d):
        cond = self.cond
        with cond:
            self.delay = d
            for _ in range(n):
                self.turn = 1
                cond.notify()
                while self.turn != 0:
                    cond.wait()
                if d:
                    spin(clock() + d)

    def close(self):
        with self.cond:
            self.turn = 2
            self.cond.notify()
        self.thread.join()


MECHANISMS = {
    "greenlet": Mechanism("two greenlets switch to each other (greenlet.switch)", "greenlet", GreenletPair,
                          needs="greenlet"),
    "asyncio": Mechanism("two asyncio tasks on the default event loop hand off by setting each other's Future",
                         "asyncio-task", lambda: FuturePair(asyncio.new_event_loop)),
    "uvloop": Mechanism("two asyncio tasks on uvloop's event loop hand off by setting each other's Future",
                        "uvloop-task", lambda: FuturePair(new_uvloop), needs="uvloop"),
    "threading": Mechanism("two threads take turns under a threading.Condition (wait/notify)", "thread",
                           ConditionPair),
}
