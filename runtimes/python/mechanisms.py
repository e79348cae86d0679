"""The Python mechanisms: greenlet switch, asyncio (default loop and uvloop)
Future hand-off, threading with a Condition. A pair = two parties, fresh
per group: round_trips(n) hands control there and back n times; the party
that receives a hand-off spins delay_ns on the clock first (only when a
delay is asked: the plain loop stays the mechanism alone, as the engine's
spin_ns does)."""
import asyncio
import threading

from measure import clock, rusage

STOP = object()
CPYTHON_WARMUP = ("CPython specialises its bytecode after a few runs of a loop and has no JIT tier here "
                  "(see runtime.flags.jit); the last three warm-up batches' ns per hand-off and their spread "
                  "(max - min) / min are given")


class Mechanism:
    def __init__(self, doc, family, start, needs=None):
        self.doc, self.family, self.start, self.needs = doc, family, start, needs
        self.warmup_method = CPYTHON_WARMUP


def spin(end):
    while clock() < end:
        pass


class GreenletPair:
    def __init__(self, delay):
        import greenlet
        self.main = greenlet.getcurrent()
        self.delay = delay

        def other(*_):
            d, main_switch = delay, self.main.switch
            if d:
                spin(clock() + d)
            while main_switch() is not STOP:
                if d:
                    spin(clock() + d)
        self.g = greenlet.greenlet(other)

    def round_trips(self, n):
        switch, d = self.g.switch, self.delay
        if d:
            for _ in range(n):
                switch()
                spin(clock() + d)
        else:
            for _ in range(n):
                switch()

    def close(self):
        if self.g:  # started and not finished
            self.g.switch(STOP)


class FuturePair:
    """Two asyncio tasks; each hand-off sets the other's Future and awaits
    its own: the event loop runs the woken task next."""

    def __init__(self, delay, new_loop):
        self.loop = new_loop()
        self.delay = delay
        self.mine = self.theirs = None
        self.other = self.loop.create_task(self._other())
        self.loop.run_until_complete(asyncio.sleep(0))  # the other task now waits on its Future

    async def _other(self):
        d = self.delay
        while True:
            self.theirs = self.loop.create_future()
            if await self.theirs is STOP:
                return
            if d:
                spin(clock() + d)
            self.mine.set_result(None)

    async def _timed(self, n):
        d, loop = self.delay, self.loop
        v0, i0 = rusage()
        t0 = clock()
        for _ in range(n):
            self.mine = loop.create_future()
            self.theirs.set_result(1)
            await self.mine
            if d:
                spin(clock() + d)
        dt = clock() - t0
        v1, i1 = rusage()
        return dt, v1 - v0, i1 - i0

    def timed(self, n):
        return self.loop.run_until_complete(self._timed(n))

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

    def __init__(self, delay):
        self.cond = threading.Condition()
        self.turn = 0
        self.delay = delay
        self.thread = threading.Thread(target=self._other, daemon=True)
        self.thread.start()

    def _other(self):
        d, cond = self.delay, self.cond
        with cond:
            while True:
                while self.turn == 0:
                    cond.wait()
                if self.turn == 2:
                    return
                if d:
                    spin(clock() + d)
                self.turn = 0
                cond.notify()

    def round_trips(self, n):
        d, cond = self.delay, self.cond
        with cond:
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
                         "asyncio-task", lambda d: FuturePair(d, asyncio.new_event_loop)),
    "uvloop": Mechanism("two asyncio tasks on uvloop's event loop hand off by setting each other's Future",
                        "uvloop-task", lambda d: FuturePair(d, new_uvloop), needs="uvloop"),
    "threading": Mechanism("two threads take turns under a threading.Condition (wait/notify)", "thread",
                           ConditionPair),
}
