"""One host of a fleet run on the fast way, over SSH: the host's engine
runs through the --host session (core/ssh/session.py), awaited on the
fleet's own event loop, one session per host: connect, start the watcher
there (a private temporary directory, the architecture), copy the matching
static engine, run the engine's part of the command under a time limit,
bring its document back (bounded), and end the session: the watcher kills
what is left and removes the directory, whatever happened (refused,
unreachable, killed, disk full, timeout, Ctrl-C here). A front end killed
here outright, or a host whose connection drops, leaves nothing running
there either: the watcher's input closes with the connection."""
from __future__ import annotations

import asyncio
import datetime
import os
import signal
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ctxbench.core.errors import UserError, escaped, file_kind
from ctxbench.core.ssh import failures
from ctxbench.core.ssh.hosts import Host, shown
from ctxbench.core.ssh.session import Brought, Session
from ctxbench.core.transports import OUT_MAX

CLEAN_S = 20  # the clean-up's own bound, after a failure or Ctrl-C (the session's, and closing the connection)


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


def session_for(host: Host, s: Settings) -> Session:
    """The host's session: a start-up that prints without a newline is
    taken as its chatter (said once in the host's warning), not refused."""
    return Session(host, s.build, tuple(s.ssh_config), s.connect_s, who=f"fleet: host {shown(host.name)}",
                   banner_without_newline=True)


async def on_host(host: Host, engine_args: list[str], s: Settings,
                  report: Callable[[Host, str], None]) -> Outcome:
    """Measure on one host; never raises (but for cancellation, after
    cleaning up): its outcome says what happened."""
    out, session = Outcome(host), session_for(host, s)
    try:
        await asyncio.wait_for(_measured(out, session, engine_args, s, report), s.timeout_s)  # everything included
    except Exception as e:  # noqa: BLE001 (every failure is this host's row)
        out.reason = _why(e, session, s)
    finally:
        out.timings = {**session.timings, **out.timings}  # connect, prepare, copy: as far as it got
        out.arch, out.startup = out.arch or session.arch, session.startup()
        await _ended(out, session)
    return out


async def _measured(out: Outcome, session: Session, engine_args: list[str], s: Settings,
                    report: Callable[[Host, str], None]) -> None:
    """The host's steps, each timed in out.timings and said to `report`;
    out.ok with the engine's document in out.output, or HostFailed."""
    host = out.host
    if host.key and (why := key_file_problem(host.key)):
        raise HostFailed(why)
    session.check_files()
    report(host, "connecting")
    await session.connect()
    out.arch = await session.prepare()
    report(host, f"copying the {out.arch} engine")
    await session.copy()  # the copy is most of a fleet run's overhead
    out.started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")  # as the lifecycle dates a local run
    report(host, "measuring")
    t0 = time.monotonic()
    brought = await session.document(engine_args, s.timeout_s)
    out.timings["run"] = time.monotonic() - t0
    _judge(brought, out.timings["run"], max(1, int(s.timeout_s)))
    # exit 1 with a document: some ids failed, the others' results are in it (its `failures`)
    out.output, out.ok = brought.out, True


def _judge(b: Brought, ran: float, limit: int) -> None:
    """HostFailed where the engine did not bring back a document: killed,
    past the limit, failed, or the connection gone."""
    if b.out is None:
        raise HostFailed(f"the engine printed more than {OUT_MAX >> 20} MiB: no document of the engine's is that "
                         "large")
    if b.signal:
        raise HostFailed(f"the engine was killed (SIG{b.signal}) after {ran:.1f} s")
    if b.status is None:  # the channel closed with no status: the server or the connection went away
        raise HostFailed(f"connection lost (the host's command ended with no exit status after {ran:.1f} s)")
    if b.status == 124 or (b.status == 137 and ran >= limit):
        raise HostFailed(f"the engine ran past the {limit} s limit")
    if b.status > 128:
        sig = b.status - 128
        name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
        raise HostFailed(f"the engine was killed ({name}) after {ran:.1f} s")
    if b.status not in (0, 1) or (b.status == 1 and not b.out.strip()):
        said = b.err.strip().splitlines()
        raise HostFailed(f"the engine failed: {said[-1] if said else f'exit status {b.status}'}")


def _why(e: BaseException, session: Session, s: Settings) -> str:
    """The host's row for what ended its steps."""
    if isinstance(e, HostFailed):
        return str(e)
    if isinstance(e, UserError):  # the session's own words, without its "--host NAME: "
        return e.why
    if not isinstance(e, asyncio.TimeoutError):
        return failures.why(e, session.checked)
    if session.conn is None:
        return f"no answer within {min(s.connect_s, s.timeout_s):g} s (unreachable?)"
    return f"timed out after {s.timeout_s:g} s"


async def _ended(out: Outcome, session: Session) -> None:
    """End the session (its watcher kills the engine's groups and removes
    the directory), timed as out.timings["clean"] where the directory was
    made; what could not be removed in out.left. Run to its end even when
    the host's task is being cancelled (Ctrl-C here), then the
    cancellation goes on."""
    t0 = time.monotonic()
    task = asyncio.ensure_future(session.aclose())
    try:
        out.left = await asyncio.shield(task)
    except asyncio.CancelledError:
        try:
            await asyncio.wait_for(task, CLEAN_S)  # Ctrl-C here: finish removing, then go
        except Exception:  # noqa: BLE001
            pass
        raise
    if session.started_up:
        out.timings["clean"] = time.monotonic() - t0
    out.left = escaped(out.left) if out.left else ""
