"""The engine on another host, over one SSH connection for the whole
command (`ctxbench <command> --host [user@]host[:port]`): a transport of
the engine seam (core/transports.py), as Local is, so every command's
engine work (a sweep's pilot and refits, irq's batches, anatomy's rungs)
runs there while the analysis, figures, store and report stay here.

asyncssh does the SSH (the user's ssh config, agent and known_hosts are
honoured; host keys are checked). The front end is synchronous, so the
connection lives in an event loop on a thread of its own and each call
waits for its answer; Ctrl-C here interrupts that wait.

On the host, one shell (the watcher) makes a private temporary directory,
takes the static engine for the host's architecture on its standard input
(core/ssh/engines.py), and then waits on that input for the whole command.
Each engine command runs in the directory under `timeout`, which puts
itself and the engine in a process group of their own and writes nothing
but the engine's output; its pid goes into the directory's list. When the
command ends here, the watcher's input is closed: it kills every group on
the list and removes the directory. A dropped connection closes that
input too, so a front end killed outright, or a server that goes away,
leaves nothing running there."""
from __future__ import annotations

import asyncio
import shlex
import signal
import threading
import time
from pathlib import Path
from typing import Iterator

from ctxbench.core.errors import UserError, escaped
from ctxbench.core.ssh import engines, failures
from ctxbench.core.ssh.hosts import Host
from ctxbench.core.transports import Finished

PREFIX = "ctxbench-host."
CLEAN_S = 15          # the clean-up's own bound (Ctrl-C, a failure, the end)
KEEPALIVE_S = 10      # seconds between keepalives; 3 unanswered: the connection is lost
START_S = 60          # an engine command's start there (the user's shell, then the pid line)
OPEN_S = 300         # connecting and copying the engine, on the slowest link we expect
STOP_S = 5            # an engine told to stop has this long to reap its parties before they are killed
STREAM_LIMIT_S = 3 * 24 * 3600  # `timeout` on a streaming command: past any budget (tasks: 24 h); the watcher is the real bound

# The watcher: as fleet/remote.py's script, but it runs no engine itself;
# it stays for every engine command of this front end's command. On a
# dropped connection it gives each engine still running a second to end
# as on SIGTERM (it kills what it started outside its own group: a peer's
# process group, `exec`), then kills its group.
WATCHER = r"""d=$(mktemp -d "${{TMPDIR:-/tmp}}/{prefix}XXXXXX") || exit 97
: > "$d/pids" || {{ rm -rf "$d"; exit 98; }}
""" + engines.take_engine("ctxbench-host") + r"""echo "ctxbench-host copied"
cat > /dev/null
for p in $(cat "$d/pids"); do kill -TERM -- -"$p"; done 2>/dev/null
[ -s "$d/pids" ] && sleep 1
for p in $(cat "$d/pids"); do kill -KILL -- -"$p"; done 2>/dev/null
cd / && rm -rf "$d"
"""

# One engine command: `timeout`'s pid (the group it makes for itself and
# the engine) on the list while it runs and on the first line, then the
# engine's output; taken off the list when it ends, so that the watcher
# never kills a group whose number another process has since taken.
ENGINE = ("cd {d} || exit 97; timeout -k {stop} {limit} ./ctxbench-engine {args} < /dev/null & p=$!; "
          "echo $p >> pids; echo \"ctxbench-host pid $p\"; wait $p; s=$?; "
          "grep -vx \"$p\" pids > pids.new; mv pids.new pids; exit $s")



class Session:
    """A transport (start, run) whose engine runs on `host`. Opened on the
    first call; close() ends it (the watcher removes everything)."""

    def __init__(self, host: Host, build: Path, ssh_config: tuple[str, ...] = (), connect_s: float = 20.0):
        self.host, self.build, self.ssh_config, self.connect_s = host, build, ssh_config, connect_s
        self.loop: asyncio.AbstractEventLoop | None = None
        self.conn = None
        self.watcher = None
        self.arch = ""
        self.workdir = ""
        self.lost: str | None = None   # why the connection dropped, once it did
        self.opened = False            # the engine is there (a drop before that is the connect's failure)
        self.abandoned = False         # a second Ctrl-C: no more waiting on the host (its watcher cleans up)
        self.timings: dict[str, float] = {}  # connect, copy (s): the command's one-off cost
        self._closed = False

    # ---- the thread the connection lives on ----------------------------

    def _call(self, coro, timeout: float | None = None):
        """Run `coro` on the connection's loop and wait for it (Ctrl-C here
        interrupts the wait; the caller then stops what it started)."""
        fut = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return fut.result(timeout)
        except BaseException:
            fut.cancel()
            raise

    def _post(self, coro) -> None:
        """Run `coro` on the loop without waiting (from any thread)."""
        asyncio.run_coroutine_threadsafe(coro, self.loop)

    def _failed(self, doing: str, e: BaseException) -> UserError:
        """One line: `doing` ("measuring") failed, and why."""
        if self.lost:  # the host's watcher stops what ran there and removes its directory
            return UserError(f"--host {escaped(self.host.name)}: {escaped(self.lost)} while {doing}", code=1)
        return UserError(f"--host {escaped(self.host.name)}: {doing} failed: {escaped(failures.why(e))}", code=1)

    def open(self) -> "Session":
        if self.conn is not None:
            return self
        if self._closed:
            raise UserError(f"--host {escaped(self.host.name)}: the connection was closed", code=1)
        if self.loop is None:
            self.loop = asyncio.new_event_loop()
            threading.Thread(target=self.loop.run_forever, name="ctxbench-ssh", daemon=True).start()
        try:
            self._call(asyncio.wait_for(self._open(), OPEN_S))
        except UserError:
            self.close()
            raise
        except Exception as e:  # noqa: BLE001 (every way in fails the same way: one line)
            self.close()
            raise self._failed("connecting and copying the engine", e)
        except BaseException:
            self.close()
            raise
        return self

    async def _open(self) -> None:
        import asyncssh
        session = self

        class _Client(asyncssh.SSHClient):
            def connection_lost(self, exc):
                if session.opened:  # while connecting, the exception itself says why
                    session.lost = session.lost or ("the connection was lost" + (f" ({exc})" if exc else ""))

        h = self.host
        if h.key and not Path(h.key).is_file():
            raise UserError(f"--host {escaped(h.name)}: its key file {escaped(h.key)} does not exist")
        t0 = time.monotonic()
        # keepalives: a host or network that freezes mid-run is a lost connection within about
        # KEEPALIVE_S * 3, not a command that waits for ever (asyncssh sends none by default)
        opts = dict(port=h.port or (), username=h.user or (), config=list(self.ssh_config),
                    connect_timeout=self.connect_s, client_factory=_Client,
                    keepalive_interval=KEEPALIVE_S, keepalive_count_max=3)
        if h.key:
            opts["client_keys"] = [h.key]
        self.conn = await asyncssh.connect(h.address, **opts)
        self.timings["connect"] = time.monotonic() - t0
        t0 = time.monotonic()
        self.watcher = await self.conn.create_process(WATCHER.format(prefix=PREFIX), encoding=None)
        head = await _first_line(self.watcher, "ctxbench-host")
        if len(head) != 4 or head[0] != "ctxbench-host":
            self.watcher.stdin.write_eof()  # its `read` fails: it removes what it made and ends
            raise UserError(f"--host {escaped(h.name)}: could not make a temporary directory there: "
                            f"{await self._said(self.watcher)}", code=1)
        _, self.arch, self.workdir, unpack = head
        try:
            engine = engines.for_arch(self.arch, self.build)
        except engines.NoEngine as e:
            raise UserError(f"--host {escaped(h.name)}: {e}", code=1)
        self.watcher.stdin.write(engines.payload(engine, unpack))
        if (await self.watcher.stdout.readline()).strip() != b"ctxbench-host copied":
            self.watcher.stdin.write_eof()
            raise UserError(f"--host {escaped(h.name)}: could not copy the engine there: "
                            f"{await self._said(self.watcher)}", code=1)
        self.timings["copy"] = time.monotonic() - t0
        self.opened = True

    @staticmethod
    async def _said(proc) -> str:
        r = await proc.wait()
        err = (r.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        return escaped(err[-1]) if err else f"exit status {r.exit_status}"

    def _command(self, args: list[str], limit: float) -> str:
        return ENGINE.format(d=shlex.quote(self.workdir), stop=STOP_S, limit=max(1, int(limit)),
                             args=" ".join(map(shlex.quote, args)))

    # ---- the transport --------------------------------------------------

    def start(self, args: list[str], limit_s: float = STREAM_LIMIT_S) -> "_Started":
        self.open()
        try:  # bounded: a shell that never says the pid (the engine it started is on the watcher's list)
            return self._call(asyncio.wait_for(self._start(args, limit_s), START_S))
        except UserError:
            raise
        except Exception as e:  # noqa: BLE001
            raise self._failed("starting the engine", e)

    async def _start(self, args: list[str], limit: float) -> "_Started":
        proc = await self.conn.create_process(self._command(args, limit), encoding=None)
        first = await _first_line(proc, "ctxbench-host")
        if first[:2] != ["ctxbench-host", "pid"] or len(first) != 3 or not first[2].isdigit():
            raise UserError(f"--host {escaped(self.host.name)}: the engine could not be started there: "
                            f"{await self._said(proc)}", code=1)
        return _Started(self, proc, int(first[2]))

    def run(self, args: list[str], timeout_s: float) -> Finished:
        started = self.start(args, timeout_s)
        try:  # past the host's own `timeout` and the keepalives' verdict on a frozen connection
            out = self._call(started.proc.stdout.read(), timeout_s + STOP_S + 4 * KEEPALIVE_S)
            status, err = started.end()
        except KeyboardInterrupt:
            started.stop()
            raise
        except UserError:
            raise
        except Exception as e:  # noqa: BLE001 (a lost connection, no answer: one line)
            started.stop()
            raise self._failed(f"running 'ctxbench-engine {args[0] if args else ''}'", e)
        if status == 124:
            raise TimeoutError(f"'ctxbench-engine {' '.join(args)}' on {self.host.name} did not finish in "
                               f"{timeout_s:.0f} s")
        return Finished(status, out.decode("utf-8", "replace"), err)

    def read(self, path: str) -> str:
        """A text file of the host (its /proc/kallsyms), '' where it cannot
        be read."""
        self.open()
        try:
            r = self._call(self.conn.run(f"cat {shlex.quote(path)}", check=False, encoding="utf-8",
                                         errors="replace"))
        except Exception:  # noqa: BLE001 (unreadable is what the caller is told)
            return ""
        return r.stdout if r.exit_status == 0 else ""

    def close(self) -> str:
        """End the command there: the watcher kills what is left and
        removes the directory. '' when it did, else what may be left.
        Bounded by CLEAN_S, whatever the connection does."""
        if self._closed or self.loop is None:
            self._closed = True
            return ""
        self._closed = True
        left = ""
        if self.conn is not None and not self.abandoned:
            try:
                left = self._call(self._close(), CLEAN_S + 5)
            except KeyboardInterrupt:  # Ctrl-C again: drop the connection; the watcher still cleans up
                self.abandoned = True
            except Exception as e:  # noqa: BLE001
                left = f"{self.workdir or 'a temporary directory'} may be left ({failures.why(e)})"
        if self.conn is not None and self.abandoned:  # its watcher sees the connection drop
            try:
                self._call(self._abort(), 2)
            except BaseException:  # noqa: BLE001 (the process's exit closes the socket anyway)
                pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        return left

    async def _abort(self) -> None:
        self.conn.abort()
        await asyncio.sleep(0.05)  # the transport closes its socket on the loop's next turns

    async def _close(self) -> str:
        left = ""
        if self.watcher is not None and self.lost is None:
            try:
                self.watcher.stdin.write_eof()
                await asyncio.wait_for(self.watcher.wait(), CLEAN_S)
                if self.workdir:
                    r = await asyncio.wait_for(
                        self.conn.run(f"test ! -e {shlex.quote(self.workdir)}", check=False), CLEAN_S)
                    left = "" if r.exit_status == 0 else f"{self.workdir} could not be removed"
            except Exception as e:  # noqa: BLE001
                left = f"{self.workdir} may be left ({failures.why(e)})"
        self.conn.close()
        try:
            await asyncio.wait_for(self.conn.wait_closed(), CLEAN_S)
        except Exception:  # noqa: BLE001
            pass
        return left


async def _first_line(proc, tag: str) -> list[str]:
    """The words of the first line that starts with `tag`; what the
    account's shell start-up files print comes first (blank lines too), at
    most 50 lines of it. [] at the end of the output."""
    for _ in range(50):
        raw = await proc.stdout.readline()
        if not raw:
            return []
        words = raw.decode("utf-8", "replace").split()
        if words[:1] == [tag]:
            return words
    return []


class _Started:
    """An engine command under way on the host (core/transports.Started)."""

    def __init__(self, session: Session, proc, pid: int):
        self.session, self.proc, self.pid = session, proc, pid
        self.stopped = False

    def lines(self) -> Iterator[str]:
        s = self.session
        while True:
            try:
                line = s._call(self.proc.stdout.readline())
            except Exception as e:  # noqa: BLE001
                raise s._failed("measuring", e)
            if not line:
                return
            yield line.decode("utf-8", "replace")

    def end(self) -> tuple[int, str]:
        s = self.session
        try:
            r = s._call(self.proc.wait())
        except Exception as e:  # noqa: BLE001
            raise s._failed("measuring", e)
        if s.lost:
            raise s._failed("measuring", ConnectionError())
        err = (r.stderr or b"").decode("utf-8", "replace")
        if r.exit_signal:  # the host's `timeout` or shell killed by a signal: as a local process would end
            name = r.exit_signal[0]
            num = getattr(signal, f"SIG{name}", None)
            return (128 + int(num)) if num is not None else 128, err
        return (r.exit_status if r.exit_status is not None else 255), err

    def _signal(self, sig: str, group: bool = False) -> None:
        target = f"-- -{self.pid}" if group else str(self.pid)
        self.session._post(self.session.conn.run(f"kill -{sig} {target}", check=False))

    def terminate(self) -> None:  # the deadline (from the timer's thread): stop, keep what was written
        self.stopped = True
        if not self.session.lost:
            self._signal("TERM")

    def running(self) -> bool:
        return self.proc.exit_status is None and self.proc.exit_signal is None and not self.session.lost

    def stop(self) -> None:
        """TERM to `timeout` (it passes it to the engine, which reaps its
        parties), then the whole group killed if it has not ended."""
        s = self.session
        if s.lost or s.abandoned or not self.running():
            return
        try:
            s._call(self._stop(), 2 * STOP_S)
        except BaseException:  # noqa: BLE001 (a second Ctrl-C, SIGTERM, no answer: wait no more; the
            s.abandoned = True  # watcher kills the group when the connection is dropped at close)

    async def _stop(self) -> None:
        conn = self.session.conn
        await conn.run(f"kill -TERM {self.pid}", check=False)
        try:
            await asyncio.wait_for(self.proc.wait(), STOP_S)
        except asyncio.TimeoutError:
            await conn.run(f"kill -KILL -- -{self.pid}", check=False)
