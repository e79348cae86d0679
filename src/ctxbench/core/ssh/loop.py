"""The event loop a `--host` connection lives on (on a thread of its own):
asyncssh reads key and config files in the loop's executor and starts an
ssh config's ProxyCommand as the loop's subprocess. Here the executor's
threads are daemons, so that a read that never returns cannot hold the
process at its exit (ThreadPoolExecutor's workers are joined then), and
every process started on the loop is remembered, so that it is ended with
the command, however it ends (asyncssh leaves a ProxyCommand running in a
session of its own when a connect is cancelled: a Ctrl-C)."""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import signal
import threading
import time


class _Daemons(concurrent.futures.ThreadPoolExecutor):
    """An executor whose every call runs on a daemon thread of its own."""

    def submit(self, fn, /, *args, **kwargs):
        f = concurrent.futures.Future()

        def run():
            if f.set_running_or_notify_cancel():
                try:
                    f.set_result(fn(*args, **kwargs))
                except BaseException as e:  # noqa: BLE001 (the caller's to see)
                    f.set_exception(e)

        threading.Thread(target=run, name="ctxbench-ssh-io", daemon=True).start()
        return f


class Loop(asyncio.SelectorEventLoop):
    def __init__(self):
        super().__init__()
        self.set_default_executor(_Daemons(max_workers=1))
        self.children: list[asyncio.SubprocessTransport] = []

    async def subprocess_exec(self, protocol_factory, *args, **kwargs):
        transport, protocol = await super().subprocess_exec(protocol_factory, *args, **kwargs)
        self.children.append(transport)
        return transport, protocol

    def end_children(self, grace: float = 1.0) -> None:
        """From any thread, while the loop runs (it reaps them): SIGTERM to
        each child not yet reaped and its process group (a ProxyCommand's
        session: what it started), SIGKILL to those left after `grace` s.
        Only a child not reaped is signalled: its pid is still its own."""
        sig, deadline = signal.SIGTERM, time.monotonic() + grace
        while True:
            live = [t for t in self.children if t.get_returncode() is None]
            if not live or sig is None:
                return
            for t in live:
                for kill in (os.killpg, os.kill):  # the group where it leads one, else the process
                    with contextlib.suppress(OSError):
                        kill(t.get_pid(), sig)
            sig = signal.SIGKILL if sig == signal.SIGTERM else None
            while time.monotonic() < deadline and any(t.get_returncode() is None for t in live):
                time.sleep(0.02)
