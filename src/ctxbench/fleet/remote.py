"""One host of a fleet run, over SSH (asyncssh: the user's ssh config,
agent and known_hosts are honoured; host keys are checked): connect, find
the architecture, copy the matching static engine into a private temporary
directory, run the engine's part of the command there under a time limit,
bring its output back, and remove the directory and every process it
started, whatever happened (refused, unreachable, killed, disk full,
timeout, Ctrl-C here).

On the host, the script's shell and `timeout` (which puts itself and the
engine in a group of their own) write their pids beside the engine, so the
clean-up kills both process groups, the engine's parties included; the
script removes its own directory when the engine ends; and a watcher on
its standard input kills and removes everything when the connection
drops, so a front end killed here with SIGKILL leaves nothing running
there either."""
from __future__ import annotations

import asyncio
import datetime
import os
import shlex
import signal
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ctxbench.core.errors import UserError, escaped, file_kind
from ctxbench.core.ssh import engines, failures, preflight
from ctxbench.core.ssh.hosts import Host, shown
# --host's reading of a host's first line (its start-up's chatter skipped, the directory byte for byte)
from ctxbench.core.ssh.session import STARTUP_S, TAG, _Chatter, _head, _in_shell, _NoNewline, _tagged

CLEAN_S = 15         # the clean-up's own bound, after a failure or Ctrl-C
ERR_KEPT = 64 << 10  # of a host's stderr (its start-up's, the engine's), the last bytes kept
PREFIX = "ctxbench-fleet."


@dataclass(frozen=True)
class Settings:
    build: Path                  # where the static engines are (engines.default_dir())
    timeout_s: float             # per host, everything included
    ssh_config: tuple[str, ...]  # ssh config files (default: ~/.ssh/config when it exists)
    connect_s: float = 20.0


@dataclass
class Outcome:
    host: Host
    ok: bool = False
    reason: str = ""
    arch: str = ""
    output: bytes = b""
    timings: dict[str, float] = field(default_factory=dict)   # connect, prepare, copy, run, clean (s)
    left: str = ""               # what the clean-up could not remove, if anything
    startup: str = ""            # what the host's shell start-up printed before our first line (ignored)
    started: str | None = None   # when the engine started measuring (local clock, ISO)


class HostFailed(Exception):
    """This host's row fails with this reason."""


def key_file_problem(key: str) -> str | None:
    """Why the inventory's key file cannot be offered (None: it can), said
    as what it is: missing, a directory, a FIFO (never opened here)."""
    try:
        mode = os.stat(key).st_mode
    except FileNotFoundError:
        what = "does not exist"
    except OSError as e:
        what = f"cannot be read ({e.strerror or e})"
    else:
        if stat.S_ISREG(mode):
            return None
        what = "is " + file_kind(mode)
    return f"its key file {shown(key)} {what} (ansible_ssh_private_key_file)"


def _why(e: BaseException) -> str:
    return str(e) if isinstance(e, HostFailed) else failures.why(e)


# One shell on the host does it all (each SSH command starts the user's login
# shell, whose rc files can cost 0.4 s: a fleet pays that once a host): it
# makes the directory and says the architecture, takes the engine (its size
# on a line, then its bytes) from its standard input, says when it has it,
# runs it, and removes the directory. Its standard input stays open for the
# whole run: when it ends (the front end here died, or the connection
# dropped) a watcher removes the directory and kills the group, so a front
# end killed with SIGKILL leaves no engine running on the host. `timeout`
# puts itself and the engine in a process group of their own: its pid is
# the second line of the pid file, and both groups are killed. Until the
# watcher runs, the shell's own traps remove the directory: a connection cut
# while the script writes its first line (SIGPIPE there) or before the
# engine arrives would otherwise leave it for good; `exit` in a trap runs
# the EXIT trap, a signal alone would not.
SCRIPT = engines.SETS + r"""
d=; trap '[ -z "$d" ] || rm -rf "$d"' EXIT; trap 'exit 129' HUP INT PIPE TERM
d=$(mktemp -d -- "${{TMPDIR:-/tmp}}/{prefix}XXXXXX") || exit 97
echo $$ > "$d/pid" || {{ rm -rf "$d"; exit 98; }}
""" + engines.take_engine(TAG.decode()) + r"""exec 3<&0
( cat <&3 > /dev/null; t=$(sed -n 2p "$d/pid"); [ -n "$t" ] && kill -KILL -- -"$t"; rm -rf "$d"
  kill -KILL -- -$$ ) > /dev/null 2>&1 &
echo "ctxbench-fleet copied"
cd "$d" && {{ timeout -k 5 {limit} ./ctxbench-engine {args} < /dev/null & echo $! >> "$d/pid"; wait $!; }}; s=$?
cd / && rm -rf "$d"
exit $s
"""


async def on_host(host: Host, engine_args: list[str], s: Settings,
                  report: Callable[[Host, str], None]) -> Outcome:
    """Measure on one host; never raises (but for cancellation, after
    cleaning up): its outcome says what happened."""
    import asyncssh
    out = Outcome(host)
    conn, workdir, proc, drained = None, None, None, None
    t0 = time.monotonic()

    def lap(name: str) -> None:
        nonlocal t0
        now = time.monotonic()
        out.timings[name] = now - t0
        t0 = now

    err: list[bytes] = []  # stderr's last bytes, read as they come: unread, a full buffer stalls the channel

    async def drain() -> None:
        kept = 0
        while chunk := await proc.stderr.read(1 << 16):
            err.append(chunk)
            kept += len(chunk)
            while kept - len(err[0]) >= ERR_KEPT:
                kept -= len(err.pop(0))

    async def ended() -> tuple:
        """(the remote shell's completion, its last line on stderr)."""
        r = await proc.wait()
        await drained
        said = b"".join(err).decode("utf-8", "replace").strip().splitlines()
        return r, (escaped(said[-1]) if said else "")

    async def first_line() -> tuple:
        """(arch, directory as bytes, how it unpacks) from the script's
        first line, within STARTUP_S: the lines the shell's start-up
        prints before it (a banner, with or without a newline) skipped,
        and kept in out.startup."""
        chatter = _Chatter()
        try:
            line = await asyncio.wait_for(_tagged(proc, chatter), STARTUP_S)
        except _NoNewline as e:  # our line is whole after the start-up's text
            chatter.add(e.before)
            line = e.line
        except asyncio.TimeoutError:
            raise HostFailed(f"its start-up did not finish in {STARTUP_S:g} s (the account's shell start-up "
                             "files there, .bashrc or $BASH_ENV, hang or wait)")
        if chatter.lines:
            more = f" (and {chatter.lines - 1} more line(s))" if chatter.lines > 1 else ""
            out.startup = (f"warning: fleet: host {shown(host.name)}: its shell's start-up prints this before "
                           f"every command (ignored): '{escaped(chatter.first[:100])}'{more}")
        head = _head(line)
        if head is None:
            proc.stdin.write_eof()  # its `read` fails: it removes what it made and ends
            why = (await ended())[1]
            raise HostFailed(f"could not make a temporary directory: {why or 'no reason given'}")
        return head[1:]

    async def steps() -> None:
        nonlocal conn, workdir, proc, drained
        if host.key and (why := key_file_problem(host.key)):
            raise HostFailed(why)
        try:  # what asyncssh will read here, before it reads it (a FIFO key waits for ever, /dev/zero fills memory)
            preflight.check(host, tuple(s.ssh_config))
        except UserError as e:
            raise HostFailed(e.why)
        report(host, "connecting")
        opts = dict(port=host.port or (), username=host.user or (), config=list(s.ssh_config),
                    connect_timeout=s.connect_s)
        if host.key:
            opts["client_keys"] = [host.key]
        conn = await asyncssh.connect(host.address, **opts)
        lap("connect")
        limit = max(1, int(s.timeout_s))
        script = SCRIPT.format(prefix=PREFIX, limit=limit, args=" ".join(map(shlex.quote, engine_args)))
        proc = await conn.create_process(script, encoding=None)
        drained = asyncio.ensure_future(drain())
        out.arch, workdir, unpack = await first_line()
        try:
            engine = engines.for_arch(out.arch, s.build)
        except engines.NoEngine as e:
            raise HostFailed(str(e))
        lap("prepare")
        report(host, f"copying the {out.arch} engine")
        proc.stdin.write(engines.payload(engine, unpack))  # the copy is most of a fleet run's overhead
        if (await proc.stdout.readline()).strip() != b"ctxbench-fleet copied":
            why = (await ended())[1]
            raise HostFailed(f"could not copy the engine: {why or 'no reason given'}")
        lap("copy")
        out.started = datetime.datetime.now().isoformat(timespec="seconds")  # as the lifecycle dates a local run
        report(host, "measuring")
        output = await proc.stdout.read()
        r, why = await ended()
        lap("run")
        if r.exit_signal:
            raise HostFailed(f"the engine was killed (SIG{r.exit_signal[0]}) after {out.timings['run']:.1f} s")
        if r.exit_status is None:  # the channel closed with no status: the server or the connection went away
            raise HostFailed(f"connection lost (the host's command ended with no exit status after "
                             f"{out.timings['run']:.1f} s)")
        ran = out.timings["run"]
        if r.exit_status == 124 or (r.exit_status == 137 and ran >= limit):
            raise HostFailed(f"the engine ran past the {limit} s limit")
        if r.exit_status > 128:
            sig = r.exit_status - 128
            name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
            raise HostFailed(f"the engine was killed ({name}) after {ran:.1f} s")
        if r.exit_status not in (0, 1) or (r.exit_status == 1 and not output.strip()):
            raise HostFailed(f"the engine failed: {why or f'exit status {r.exit_status}'}")
        # exit 1 with a document: some ids failed, the others' results are in it (its `failures`)
        out.output, out.ok = output, True
        workdir = None  # the script removed its directory as the engine ended

    try:
        await asyncio.wait_for(steps(), s.timeout_s)  # the per-host bound, everything included
    except Exception as e:  # noqa: BLE001 (every failure is this host's row)
        if not isinstance(e, asyncio.TimeoutError):
            out.reason = _why(e)
        elif conn is None:
            out.reason = f"no answer within {min(s.connect_s, s.timeout_s):g} s (unreachable?)"
        else:
            out.reason = f"timed out after {s.timeout_s:g} s"
    finally:
        if conn is not None:
            t1 = time.monotonic()
            out.left = await _clean(conn, workdir)
            if workdir:
                out.timings["clean"] = time.monotonic() - t1
            conn.close()
        if drained is not None:
            drained.cancel()
    return out


async def _clean(conn, workdir: bytes | None) -> str:
    """Kill the engine's process group and remove the directory; '' when
    nothing is left, else what could not be removed. Bounded by CLEAN_S and
    run to its end even when the host's task is being cancelled."""
    if not workdir:
        return ""
    wd = _in_shell(workdir)  # byte for byte: a TMPDIR with a space, a quote or no UTF-8
    shown_wd = escaped(workdir.decode("utf-8", "replace"))
    cmd = (f"if [ -f {wd}/pid ]; then for p in $(sed -n '2p;1p' {wd}/pid); do kill -KILL -- -$p; done; "
           f"fi 2>/dev/null; rm -rf {wd}; test ! -e {wd}")

    async def clean() -> str:
        r = await conn.run(cmd, check=False)
        return "" if r.exit_status == 0 else f"{shown_wd} could not be removed"

    task = asyncio.ensure_future(asyncio.wait_for(clean(), CLEAN_S))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        try:
            await asyncio.wait_for(task, CLEAN_S)  # Ctrl-C here: finish removing, then go
        except Exception:  # noqa: BLE001
            pass
        raise
    except Exception as e:  # noqa: BLE001
        return f"{shown_wd} may be left ({_why(e)})"
