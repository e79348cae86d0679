"""The engine on another host, over one SSH connection for the whole
command (`ctxbench <command> --host [user@]host[:port]`): a transport of
the engine seam (core/transports.py), as Local is, so every command's
engine work (a sweep's pilot and refits, irq's batches, anatomy's rungs)
runs there while the analysis, figures, store and report stay here.

asyncssh does the SSH (the user's ssh config, agent and known_hosts are
honoured; host keys are checked). The front end is synchronous, so the
connection lives in an event loop on a thread of its own and each call
waits for its answer; Ctrl-C here interrupts that wait. So do SIGTERM
and SIGHUP, which the command takes as interruptions from its first
instruction (ctxbench/__init__.py, core/interrupts.py).

On the host, one shell (the watcher) makes a private temporary directory,
takes the static engine for the host's architecture on its standard input
(core/ssh/engines.py), and then waits on that input for the whole command.
Each engine command runs in the directory under `timeout`, which puts
itself and the engine in a process group of their own and writes nothing
but the engine's output; its pid goes into the directory's list. When the
command ends here, the watcher's input is closed: it kills every group on
the list and removes the directory. A dropped connection closes that
input too, so a front end killed outright, or a server that goes away,
leaves nothing running there.

Every command there starts the account's shell, and its start-up files
may print (a greeting, errors of a .bashrc) on stdout and stderr before
the command runs. Each command therefore says where its own words begin:
a tagged first line on stdout, a marker line on stderr. What comes before
them is the start-up's, said once per ctxbench command (escaped, in one
line) and never passed on as the engine's. The first exchange is bounded
by what a start-up needs (STARTUP_S): a start-up that hangs, or one that
prints without a newline (so that the tagged line never starts a line),
is one line naming the cause (the fleet's fast way, which runs each host's
engine through a session too, takes text without a newline as the
start-up's). Each command's stderr is read as it comes, its last ERR_KEEP
bytes kept: unread, a full buffer would stall its stdout. The directory
is taken byte for byte from the tagged line (a TMPDIR with spaces, quotes
or bytes that are no UTF-8) and written back into commands as octal
escapes."""
from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ctxbench.core.errors import UserError, escaped
from ctxbench.core.ssh import engines, failures, preflight
from ctxbench.core.ssh.engines import OPTIONS, SETS
from ctxbench.core.ssh.loop import Loop
from ctxbench.core.ssh.hosts import Host
from ctxbench.core.transports import ERR_KEEP, OUT_MAX, Finished

PREFIX = "ctxbench-host."
TAG = b"ctxbench-host"  # the first word of each of our lines on stdout
MARK = b"ctxbench-host err"  # our line on stderr: what the host's shell printed before it is its start-up's
FULL = "No space left on device"
CLEAN_S = 15          # the clean-up's own bound (Ctrl-C, a failure, the end)
KEEPALIVE_S = 10      # seconds between keepalives; 3 unanswered: the connection is lost


def _startup_s() -> float:
    """The first exchange's bound: 10 s, or CTXBENCH_SSH_STARTUP_S (a test's knob, 0.5 to 600) where it is one."""
    try:
        v = float(os.environ.get("CTXBENCH_SSH_STARTUP_S") or 10)
    except ValueError:
        return 10.0
    return v if 0.5 <= v <= 600 else 10.0


STARTUP_S = _startup_s()  # the first exchange: the account's shell starting (its start-up files) up to our
#                           first line; 0.1-0.4 s where a .bashrc runs pyenv or similar (docs/host.md)
START_S = 60          # an engine command's start there (the user's shell, then the pid line)
OPEN_S = 300          # connecting and copying the engine, on the slowest link we expect
STOP_S = 5            # an engine told to stop has this long to reap its parties before they are killed
STREAM_LIMIT_S = 3 * 24 * 3600  # `timeout` on a streaming command: past any budget (tasks: 24 h); the watcher is the real bound
# what the watcher and every engine command need on the host besides the shell's builtins
NEEDED = ("mktemp", "uname", "head", "cat", "grep", "mv", "rm", "chmod", "sleep", "timeout")

# The watcher: it runs no engine itself; it stays for every engine command
# of this front end's command (of a fleet's host, on the fast way too). On a
# dropped connection it gives each engine still running a second to end
# as on SIGTERM (it kills what it started outside its own group: a peer's
# process group, `exec`), then kills its group. First it says where its
# own words begin on stderr, and names what the host lacks of NEEDED. A
# write to a connection already gone fails (SIGPIPE ignored), so the
# script still reaches its clean-up. $d is made absolute (a relative
# TMPDIR; `--`: one that starts with '-'), and refused with a newline in
# it (our lines are lines). Its last line says the directory is gone.
# Our scripts first undo what the account's start-up may have set (engines.SETS).
WATCHER = SETS + r"""
trap '' PIPE
printf '\n%s\n' "{mark}" >&2
m=; for c in {needed}; do command -v "$c" > /dev/null 2>&1 || m="$m $c"; done
[ -z "$m" ] || {{ echo "ctxbench-host missing$m"; exit 96; }}
timeout -k 1 5 true > /dev/null 2>&1 || {{ echo "ctxbench-host oldtimeout"; exit 96; }}
d=$(mktemp -d -- "${{TMPDIR:-/tmp}}/{prefix}XXXXXX") || exit 97
case $d in /*) ;; *) d="$PWD/$d";; esac
case $d in *'
'*) echo "the temporary directory's name has a newline in it (TMPDIR there)" >&2; rm -rf "$d"; exit 97;; esac
: > "$d/pids" || {{ rm -rf "$d"; exit 98; }}
""" + engines.take_engine("ctxbench-host") + r"""echo "ctxbench-host copied"
cat > /dev/null
for p in $(cat "$d/pids"); do kill -TERM -- -"$p"; done 2>/dev/null
[ -s "$d/pids" ] && sleep 1
for p in $(cat "$d/pids"); do kill -KILL -- -"$p"; done 2>/dev/null
cd / && rm -rf "$d"
[ -e "$d" ] || echo "ctxbench-host removed"
"""

# One engine command: `timeout`'s pid (the group it makes for itself and
# the engine) on the list while it runs and on the first line, then the
# engine's output; taken off the list when it ends, so that the watcher
# never kills a group whose number another process has since taken. A
# shell of its own writes both before it becomes `timeout` (exec keeps its
# pid): the pid line is on stdout before the engine can write a byte (said
# by the shell that started it, the engine's first line could come first:
# a fast `list` was then read as the start-up's chatter). The marker on
# stderr comes first: what the shell printed before it is its start-up's,
# after it the command's (the engine's, `timeout`'s, `cd`'s).
ENGINE = (SETS + "; printf '\\n%s\\n' \"{mark}\" >&2; "
          "cd {d} || exit 97; "
          "sh -c 'echo $$ >> pids && echo \"ctxbench-host pid $$\" && exec timeout -k {stop} {limit} "
          "./ctxbench-engine \"$@\"' sh {args} < /dev/null & p=$!; "
          "wait $p; s=$?; grep -vx \"$p\" pids > pids.new; mv pids.new pids; exit $s")


def engine_command(workdir: bytes, args: list[str], limit: float) -> str:
    """The shell command that runs `ctxbench-engine args` in `workdir`
    under `timeout` (`limit` s), as ENGINE says."""
    return ENGINE.format(mark=MARK.decode(), d=_in_shell(workdir), stop=STOP_S,
                         limit=max(1, int(limit)), args=" ".join(map(shlex.quote, args)))


def _in_shell(path: bytes) -> str:
    """`path`, any bytes but NUL, as a shell word that gives it back:
    octal escapes in printf's format (no quoting, no encoding can bend
    them; $() drops trailing newlines only, and no path of ours ends so)."""
    return "\"$(printf '" + "".join(f"\\{b:03o}" for b in path) + "')\""


class _NoNewline(Exception):
    """Our tagged line came in the middle of a line: the shell's start-up
    printed this without a newline."""

    def __init__(self, before: bytes, line: bytes):
        super().__init__(before)
        self.before, self.line = before, line


class _Chatter:
    """What the account's shell printed at start-up, before our lines
    (stdout's and stderr's): counted, the first line kept."""

    def __init__(self):
        self.lines = 0
        self.first = self.last = ""

    def add(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").strip()
        if text.endswith(OPTIONS):  # the trace of our first command (PS4 before it): the start-up set -x
            text = "set -x (the shell traces every command: ctxbench's scripts turn it off)"
        if text:
            self.lines += 1
            self.first, self.last = self.first or text, text

    def then(self, other: "_Chatter") -> None:
        """`other`'s lines counted as printed after these."""
        self.lines += other.lines
        self.first, self.last = self.first or other.first, other.last or self.last

    def said(self, who: str) -> str:
        """The one line that says it (escaped), '' where it printed nothing;
        `who` names the host ("--host NAME")."""
        if not self.lines:
            return ""
        more = f" (and {self.lines - 1} more line{'s' if self.lines > 2 else ''})" if self.lines > 1 else ""
        return (f"warning: {who}: its shell's start-up prints this before every command (ignored): "
                f"'{escaped(self.first[:100])}'{more}")


class Session:
    """A transport (start, run) whose engine runs on `host`. Opened on the
    first call; close() ends it (the watcher removes everything).

    The same steps serve a caller that has an event loop of its own (the
    fleet's fast way, fleet/remote.py: many hosts on one loop): it awaits
    connect(), prepare(), copy(), document() and aclose() there, and never
    calls the synchronous methods. `banner_without_newline` takes a
    start-up that prints without a newline as its chatter (the fleet) rather
    than refusing it (--host); `who` names the host in the start-up's
    warning."""

    def __init__(self, host: Host, build: Path, ssh_config: tuple[str, ...] = (), connect_s: float = 20.0,
                 who: str | None = None, banner_without_newline: bool = False):
        self.host, self.build, self.ssh_config, self.connect_s = host, build, ssh_config, connect_s
        self.who = who or f"--host {escaped(host.name)}"
        self.banner_without_newline = banner_without_newline
        self.loop: asyncio.AbstractEventLoop | None = None
        self.conn = None
        self.watcher = None
        self.arch = ""
        self.workdir = ""              # the directory there, for messages (escaped where printed)
        self._workdir = b""            # ... byte for byte, for commands
        self.lost: str | None = None   # why the connection dropped, once it did
        self.started_up = False        # the watcher's shell has started and made its directory
        self.opened = False            # the engine is there (a drop before that is the connect's failure)
        self.abandoned = False         # a second Ctrl-C: no more waiting on the host (its watcher cleans up)
        self.timings: dict[str, float] = {}  # connect, prepare, copy (s): the command's one-off cost
        self.engine: Path | None = None   # the engine for the host's architecture, once prepared
        self._unpack = ""
        self._closed = False
        self.chatter = _Chatter()      # what its shell's start-up printed (said once, when opened)
        self.checked: preflight.Checked | None = None  # the files asyncssh reads here, checked

    @property
    def name(self) -> str:
        return escaped(self.host.name)

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

    def _refused(self, why: str) -> UserError:
        """One line naming the host; `why` alone in its .why (a fleet's row)."""
        return UserError(f"--host {self.name}: {why}", code=1, why=why)

    def _failed(self, doing: str, e: BaseException) -> UserError:
        """One line: `doing` ("measuring") failed, and why."""
        if self.lost:  # the host's watcher stops what ran there and removes its directory
            return self._refused(f"{escaped(self.lost)} while {doing}")
        return self._refused(f"{doing} failed: {escaped(failures.why(e, self.checked))}")

    def open(self) -> "Session":
        if self.conn is not None:
            return self
        if self._closed:
            raise self._refused("the connection was closed")
        self.check_files()
        if self.loop is None:
            self.loop = Loop()
            threading.Thread(target=self.loop.run_forever, name="ctxbench-ssh", daemon=True).start()
        try:
            self._call(asyncio.wait_for(self._open(), OPEN_S))
        except UserError:
            self._close_unopened()
            raise
        except Exception as e:  # noqa: BLE001 (every way in fails the same way: one line)
            self._close_unopened()
            raise self._failed("connecting and copying the engine", e)
        except BaseException:
            self._close_unopened()
            raise
        if self.chatter.lines:  # once per command, not once per engine command
            print(self.startup(), file=sys.stderr)
        return self

    def startup(self) -> str:
        """The one line that says what the host's shell start-up printed
        before our first line (escaped), '' where it printed nothing."""
        return self.chatter.said(self.who)

    def _close_unopened(self) -> None:
        """After a failed open: a shell that has not yet started (its
        start-up hangs, or this was interrupted in it) is not waited for:
        the connection is dropped, and its watcher, if it ever runs, finds
        its input closed and removes what it made."""
        if not self.started_up:
            self.abandoned = True
        self.close()

    async def _open(self) -> None:
        await self.connect()
        await self.prepare()
        await self.copy()

    # ---- opening, step by step (on whichever loop awaits them) ----------

    def check_files(self) -> None:
        """The files asyncssh will read here (keys, ssh configs), checked
        before it opens any of them (a FIFO waits for ever, /dev/zero fills
        memory): a UserError saying what one is. Once."""
        if self.checked is None:
            self.checked = preflight.check(self.host, self.ssh_config)

    async def connect(self) -> None:
        """Connect to the host (check_files first). Timed as
        timings["connect"]."""
        import asyncssh
        session = self

        class _Client(asyncssh.SSHClient):
            def connection_lost(self, exc):
                session.dropped(exc)

        self.check_files()
        h = self.host
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

    def dropped(self, exc: BaseException | None) -> None:
        """asyncssh's word that the connection is gone: once the session is
        open, why (while connecting, the exception itself says it)."""
        if self.opened:
            self.lost = self.lost or ("the connection was lost" + (f" ({exc})" if exc else ""))

    async def prepare(self) -> str:
        """Start the watcher: the directory made there, the host's
        architecture known and its engine found here. Timed as
        timings["prepare"]. The architecture."""
        t0 = time.monotonic()
        head = await self._first_exchange()
        self.started_up = True
        _, self.arch, self._workdir, self._unpack = head
        self.workdir = self._workdir.decode("utf-8", "surrogateescape")
        try:
            self.engine = engines.for_arch(self.arch, self.build)
        except engines.NoEngine as e:
            raise self._refused(escaped(str(e)))
        self.timings["prepare"] = time.monotonic() - t0
        return self.arch

    async def copy(self) -> None:
        """Copy the engine into the directory (the host checks that it runs
        there). Timed as timings["copy"]; the session is then open."""
        t0 = time.monotonic()
        self.watcher.stdin.write(engines.payload(self.engine, self._unpack))
        if (await self.watcher.stdout.readline()).strip() != b"ctxbench-host copied":
            self.watcher.stdin.write_eof()
            raise await self._not_copied()
        self.timings["copy"] = time.monotonic() - t0
        self.opened = True

    async def _not_copied(self) -> UserError:
        """Why the watcher did not take the engine, in its words."""
        said, engine = await self._said(self.watcher, FULL), self.engine
        if FULL in said:  # else the line is head's 'Broken pipe', after gzip's write failed
            return self._refused(f"the disk of its TMPDIR is full: could not copy the engine "
                                 f"to {escaped(self.workdir)}: {said}")
        if said.startswith("the engine does not run on this machine"):  # a directory where programs run
            why = said.split("): ", 1)[-1]
            return self._refused(f"the {escaped(engine.parent.name)} engine built here "
                                 f"({escaped(str(engine))}) does not run there, though its `uname -m` says "
                                 f"{escaped(self.arch)} ({why})")
        return self._refused(f"could not copy the engine there: {said}")

    async def _first_exchange(self) -> tuple[str, str, bytes, str]:
        """Start the watcher and read its first line (TAG, `uname -m`, its
        directory, how it unpacks), within STARTUP_S; what the shell's
        start-up printed before it is said once, here."""
        t0 = time.monotonic()
        self.watcher = await self.conn.create_process(
            WATCHER.format(prefix=PREFIX, mark=MARK.decode(), needed=" ".join(NEEDED)), encoding=None)
        chatter = self.chatter
        try:
            line, marked = await self._first_words(t0)
        except _NoNewline as e:
            self.watcher.stdin.write_eof()  # the watcher, which has made its directory, removes it and ends
            text = e.before.decode("utf-8", "replace").strip()
            raise self._refused(f"the host's shell printed without a newline at its start-up "
                                f"('{escaped(text[-60:])}'), so ctxbench's first line was not a line: end what "
                                "the account's start-up files print with a newline")
        except asyncio.TimeoutError:
            raise self._refused(f"its start-up did not finish in {STARTUP_S:g} s (the account's "
                                "shell start-up files there, .bashrc or $BASH_ENV, hang or wait)")
        if line is not None and line.split(b" ")[1:2] == [b"missing"]:
            gone = ", ".join(w.decode("utf-8", "replace") for w in line.split()[2:])
            raise self._refused(f"the host has no {escaped(gone)} on its PATH: --host needs "
                                "GNU coreutils there (`timeout` runs the engine; docs/host.md)")
        if line is not None and line.split(b" ")[1:2] == [b"oldtimeout"]:  # busybox's, or an old one
            raise self._refused("its `timeout` is not GNU coreutils' (`timeout -k 1 5 true` "
                                "failed: ctxbench stops the engine with -k): --host needs GNU coreutils there "
                                "(docs/host.md)")
        head = _head(line)
        if head is None:
            self.watcher.stdin.write_eof()  # its `read` fails: it removes what it made and ends
            said = await self._said(self.watcher)
            if not marked:  # the shell ended before our script ran: its last words are the start-up's
                raise self._refused(f"its shell ended during its start-up: "
                                    f"{escaped(chatter.last) if chatter.last else said}")
            if line is not None:  # the directory is made: the words about it are `uname -m`'s
                arch = line.split(b" ")[1]
                raise self._refused("its `uname -m` printed " + (
                    f"not one word on one line ('{escaped(arch.decode('utf-8', 'replace'))}' and more)" if arch
                    else "nothing") + ": ctxbench picks the engine by it")
            raise self._refused(f"could not make a temporary directory there (in its TMPDIR, "
                                f"else /tmp): {said}")
        return head

    async def _first_words(self, t0: float) -> tuple[bytes | None, bool]:
        """The watcher's tagged line, and whether its marker came on stderr,
        within STARTUP_S of `t0`. stderr is read up to the marker while
        stdout is: a start-up that prints more than the channel's window
        (2 MiB) on stderr, unread, would stall stdout, our line with it."""
        on_stderr = _Chatter()
        marking = asyncio.ensure_future(_until_mark(self.watcher, on_stderr))
        try:
            line = await asyncio.wait_for(self._first_line(), STARTUP_S)
            return line, await asyncio.wait_for(marking, max(0.5, STARTUP_S - (time.monotonic() - t0)))
        finally:
            marking.cancel()
            self.chatter.then(on_stderr)  # said in that order: stdout's lines, then stderr's

    async def _first_line(self) -> bytes | None:
        """The watcher's tagged line; a start-up's text without a newline
        before it is its chatter where banner_without_newline, else
        _NoNewline."""
        try:
            return await _tagged(self.watcher, self.chatter)
        except _NoNewline as e:
            if not self.banner_without_newline:
                raise
            self.chatter.add(e.before)  # our line is whole after the start-up's text
            return e.line

    @staticmethod
    async def _said(proc, rather: str = "") -> str:
        """The last line the command said on stderr (after the start-up's),
        escaped, the last that holds `rather` where one does; else its exit
        status."""
        r = await proc.wait()
        err = _own(r.stderr or b"").splitlines()
        return next((x for x in reversed(err) if rather and rather in x), err[-1] if err else
                    f"exit status {r.exit_status}")

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
        proc = await self.conn.create_process(engine_command(self._workdir, args, limit), encoding=None)
        err = asyncio.ensure_future(_tail(proc.stderr, ERR_KEEP))  # from the start: the start-up's too
        try:
            first = await _tagged(proc, _Chatter())  # the start-up's lines: said once, at the first exchange
        except _NoNewline as e:  # the first exchange had none: a start-up that prints differently each time
            first = e.line
        except BaseException:
            err.cancel()
            raise
        words = (first or b"").split(b" ")
        if words[1:2] != [b"pid"] or len(words) != 3 or not words[2].isdigit():
            r, said = await _ending(proc, err)
            said = _last(said, r)
            if said == "exit status 97":  # ENGINE's `cd {d} || exit 97`, which says nothing itself
                said = f"`cd` into its directory {escaped(self.workdir)} failed"
            raise self._refused(f"the engine could not be started there: {said}")
        return _Started(self, proc, int(words[2]), err)

    def run(self, args: list[str], timeout_s: float) -> Finished:
        started = self.start(args, timeout_s)
        named = f"'ctxbench-engine {escaped(args[0]) if args else ''}'"
        try:  # past the host's own `timeout` and the keepalives' verdict on a frozen connection
            brought = self._call(started.bring(), timeout_s + STOP_S + 4 * KEEPALIVE_S)
        except KeyboardInterrupt:
            started.stop()
            raise
        except Exception as e:  # noqa: BLE001 (a lost connection, no answer: one line)
            started.stop()
            raise self._failed(f"running {named}", e)
        if brought.out is None:  # as a local engine's (core/transports.py): a one-document command never prints this much
            started.stop()
            raise self._refused(f"{named} printed more than {OUT_MAX >> 20} MiB: no document of the engine's is "
                                "that large")
        if self.lost:
            raise self._failed("measuring", ConnectionError())
        if brought.code() == 124:
            raise TimeoutError(f"'ctxbench-engine {escaped(' '.join(args))}' on {self.name} did not finish in "
                               f"{timeout_s:.0f} s")
        return Finished(brought.code(), brought.out.decode("utf-8", "replace"), brought.err)

    async def document(self, args: list[str], limit_s: float) -> "Brought":
        """run()'s work on the caller's loop, judged by the caller: start
        `ctxbench-engine args` there under `timeout` (`limit_s`), bounded
        by START_S, and bring back what it printed (stdout up to OUT_MAX,
        stderr's last ERR_KEEP bytes after the start-up's) and how it
        ended. An engine still running when this is cancelled is the
        watcher's to end, at aclose()."""
        started = await asyncio.wait_for(self._start(args, limit_s), START_S)
        return await started.bring()

    async def aclose(self) -> str:
        """close()'s work on the caller's loop: the watcher kills what is
        left and removes the directory; '' when it did, else what may be
        left. A watcher whose shell has not started (its start-up hangs) is
        not waited for: the connection is dropped, and its watcher, if it
        ever runs, finds its input closed and removes what it made. Bounded
        by CLEAN_S (and 5 s more to close the connection)."""
        if self._closed or self.conn is None:
            self._closed = True
            return ""
        self._closed = True
        if not self.started_up:
            self.conn.abort()
            return ""
        try:
            return await asyncio.wait_for(self._close(), CLEAN_S + 5)
        except Exception as e:  # noqa: BLE001
            self.conn.abort()
            return f"{escaped(self.workdir)} may be left ({failures.why(e)})"

    def read(self, path: str) -> str:
        """A text file of the host (its /proc/kallsyms), '' where it cannot
        be read."""
        self.open()
        start = TAG + b" file\n"  # what the shell's start-up printed comes before it, not in the file
        try:
            r = self._call(self.conn.run(f"echo '{start.decode().strip()}' && cat {shlex.quote(path)}",
                                         check=False, encoding=None))
        except Exception:  # noqa: BLE001 (unreadable is what the caller is told)
            return ""
        out = r.stdout or b""
        i = out.find(start)
        if r.exit_status != 0 or i < 0:
            return ""
        return out[i + len(start):].decode("utf-8", "replace")

    def close(self) -> str:
        """End the command there: the watcher kills what is left and
        removes the directory. '' when it did, else what may be left.
        Bounded by CLEAN_S, whatever the connection does."""
        return self._end()

    def _end(self) -> str:
        if self._closed or self.loop is None:
            self._closed = True
            return ""
        self._closed = True
        with self._children_first():
            return self._end_open()

    @contextlib.contextmanager
    def _children_first(self):
        """While the session closes, a signal (SIGTERM, Ctrl-C, SIGHUP)
        first ends the processes the loop started (a ProxyCommand and its
        group), then does what it did: at the command's end (atexit, in
        cli._exit) it is an immediate exit that would leave them running."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        old = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}

        def ending(signum, frame):
            self.loop.end_children(0.5)
            old[signum](signum, frame)

        for sig, handler in old.items():
            if callable(handler):  # not SIG_IGN (nohup's), not SIG_DFL
                signal.signal(sig, ending)
        try:
            yield
        finally:
            for sig, handler in old.items():
                if callable(handler):
                    signal.signal(sig, handler)

    def _end_open(self) -> str:
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
        self.loop.end_children()  # a ProxyCommand asyncssh started, however the connection ended
        self.loop.call_soon_threadsafe(self.loop.stop)
        return left

    async def _left(self) -> str:
        """Whether the directory is still there, when the watcher did not
        say it removed it (it ended on a failure): a word on stdout, as
        bytes (the start-up may print bytes that are no UTF-8 there)."""
        r = await self.conn.run(f"if [ -e {_in_shell(self._workdir)} ]; then echo '{TAG.decode()} left'; "
                                f"else echo '{TAG.decode()} gone'; fi", check=False, encoding=None)
        said = (r.stdout or b"").splitlines()
        if TAG + b" gone" in said:
            return ""
        return f"{self.workdir} " + ("could not be removed" if TAG + b" left" in said else "may be left")

    async def _abort(self) -> None:
        self.conn.abort()
        await asyncio.sleep(0.05)  # the transport closes its socket on the loop's next turns

    async def _close(self) -> str:
        left = ""
        if self.watcher is not None and self.lost is None:
            try:
                self.watcher.stdin.write_eof()
                r = await asyncio.wait_for(self.watcher.wait(), CLEAN_S)
                if self._workdir and TAG + b" removed" not in (r.stdout or b"").splitlines():
                    left = await asyncio.wait_for(self._left(), CLEAN_S)
            except Exception as e:  # noqa: BLE001
                left = f"{self.workdir or 'a temporary directory'} may be left ({failures.why(e)})"
        self.conn.close()
        try:
            await asyncio.wait_for(self.conn.wait_closed(), CLEAN_S)
        except Exception:  # noqa: BLE001
            pass
        return left


@dataclass(frozen=True)
class Brought:
    """What one engine command there left: what it printed (None: more than
    OUT_MAX, the rest unread), how the host's shell ended (no status and no
    signal: the connection went away), and what it said on stderr after the
    start-up's (its last ERR_KEEP bytes, escaped)."""
    out: bytes | None
    status: int | None
    signal: str | None
    err: str

    def code(self) -> int:
        """The status as a local process's: 128 + the signal that ended it,
        255 where it ended with neither."""
        return _code(self.status, self.signal)


def _code(status: int | None, sig: str | None) -> int:
    if sig:  # the host's `timeout` or shell killed by a signal: as a local process would end
        num = getattr(signal, f"SIG{sig}", None)
        return (128 + int(num)) if num is not None else 128
    return status if status is not None else 255


async def _ending(proc, err: asyncio.Future) -> tuple:
    """(how `proc` ended, what it said on stderr after the start-up's:
    escaped), `err` being its stderr read as it comes (_tail)."""
    r = await proc.wait()
    said = await err + (r.stderr or b"")
    return r, _own(said[-ERR_KEEP:])


def _last(said: str, r) -> str:
    """The last line of `said`, else how `r` ended: the signal that killed
    it (an engine killed before it said its pid: SIGKILL), else its exit status."""
    lines = said.splitlines()
    if lines:
        return lines[-1]
    if r.exit_signal:
        return f"killed (SIG{escaped(str(r.exit_signal[0]))})"
    return f"exit status {r.exit_status}"


async def _tail(stream, keep: int) -> bytes:
    """All of `stream`, read as it comes; its last `keep` bytes."""
    kept = bytearray()
    while chunk := await stream.read(1 << 16):
        kept += chunk
        if len(kept) > keep:
            del kept[:len(kept) - keep]
    return bytes(kept)


async def _bounded(stream, limit: int) -> bytes | None:
    """All of `stream` up to its end, None past `limit` bytes (read no further)."""
    chunks, got = [], 0
    while chunk := await stream.read(1 << 20):
        got += len(chunk)
        if got > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


async def _tagged(proc, chatter: _Chatter) -> bytes | None:
    """Our first line on stdout (it starts with TAG), without its newline;
    the lines before it are the start-up's (counted in `chatter`). None at
    the end of the output; _NoNewline where TAG comes inside a line."""
    while True:
        raw = await proc.stdout.readline()
        if not raw:
            return None
        if raw.startswith(TAG + b" "):
            return raw.rstrip(b"\r\n")
        if TAG + b" " in raw:
            i = raw.index(TAG + b" ")
            raise _NoNewline(raw[:i], raw[i:].rstrip(b"\r\n"))
        chatter.add(raw)


async def _until_mark(proc, chatter: _Chatter) -> bool:
    """stderr's lines up to our marker: the start-up's (counted in
    `chatter`). Whether the marker came."""
    while True:
        raw = await proc.stderr.readline()
        if not raw:
            return False
        if raw.rstrip(b"\r\n") == MARK:
            return True
        chatter.add(raw)


def _head(line: bytes | None) -> tuple[str, str, bytes, str] | None:
    """The watcher's first line, `TAG <uname -m> <dir> <gzip|plain>`, its
    directory taken byte for byte (spaces and all: the words around it
    have none); None where it is not that line."""
    if line is None:
        return None
    _, _, rest = line.partition(b" ")
    arch, _, rest = rest.partition(b" ")
    workdir, _, unpack = rest.rpartition(b" ")
    if not arch or not workdir.startswith(b"/") or unpack not in (b"gzip", b"plain"):
        return None
    return TAG.decode(), arch.decode("utf-8", "replace"), workdir, unpack.decode()


def _own(err: bytes) -> str:
    """What a command there said on stderr after our marker (the shell's
    start-up printed what comes before it), each line escaped; all of it
    where the marker never came (the shell ended in its start-up)."""
    i = err.find(b"\n" + MARK + b"\n")
    if i >= 0:
        err = err[i + len(MARK) + 2:]
    elif err.startswith(MARK + b"\n"):
        err = err[len(MARK) + 1:]
    return "\n".join(escaped(x) for x in err.decode("utf-8", "replace").split("\n"))


class _Started:
    """An engine command under way on the host (core/transports.Started)."""

    def __init__(self, session: Session, proc, pid: int, err: asyncio.Future):
        self.session, self.proc, self.pid = session, proc, pid
        self.err = err  # its stderr, read as it comes (_tail)
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

    async def bring(self) -> Brought:
        """Its stdout to the end (bounded by OUT_MAX) while its stderr is
        read as it comes (its tail kept), then how it ended."""
        try:
            out = await _bounded(self.proc.stdout, OUT_MAX)
            if out is None:
                return Brought(None, None, None, "")
            r, said = await _ending(self.proc, self.err)
        finally:
            self.err.cancel()
        return Brought(out, r.exit_status, r.exit_signal[0] if r.exit_signal else None, said)

    def end(self) -> tuple[int, str]:
        s = self.session
        try:
            r, said = s._call(_ending(self.proc, self.err))
        except Exception as e:  # noqa: BLE001
            raise s._failed("measuring", e)
        if s.lost:
            raise s._failed("measuring", ConnectionError())
        return _code(r.exit_status, r.exit_signal[0] if r.exit_signal else None), said

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
