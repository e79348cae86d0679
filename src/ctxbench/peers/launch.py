"""One launch of a peer: its CPUs, a watchdog, its output bounded, and the
context switches its whole process tree made (getrusage through wait4:
the peer's children and threads are counted once it has reaped them).

Nothing a peer starts outlives its launch:
- the peer leads its own process group, killed on a timeout, an error,
  Ctrl-C, SIGTERM and after a clean exit (anything it left behind);
- its direct child dies with the front end (PR_SET_PDEATHSIG);
- a descendant that keeps the peer's output open does not hold the launch:
  once the peer has exited its output is read for DRAIN_S more, no longer.

Not reached: a descendant that leaves the group for a session of its own
(setsid) and outlives the peer; no peer here does. Making the front end
a child subreaper (PR_SET_CHILD_SUBREAPER), to be handed such orphans,
hung lmbench's lat_ctx: its orphaned children wait for getppid() to be 1."""
from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass

from ctxbench.core.children import child_setup, kill_group
from ctxbench.core.errors import UserError, escaped

MAX_OUTPUT_BYTES = 1 << 20  # a peer printing more is not the peer we know (its output is a few lines)
DRAIN_S = 1.0               # after the peer exits, the most to wait for the rest of its output
GONE_S = 5.0                # the most to wait for a killed group's last process to be gone
VERSION_S = 10.0            # the most a program's --version may take
# how a peer ends when a Ctrl-C or a kill meant for the whole run reached it: killed by the signal, or the
# shell's 128 + signal
INTERRUPTED = {-signal.SIGINT, -signal.SIGTERM, 128 + signal.SIGINT, 128 + signal.SIGTERM}

class PeerFailed(UserError):
    """A peer that could not start, failed, hung or printed too much (its row only)."""

    def __init__(self, message: str):
        super().__init__(message, code=1)


@dataclass(frozen=True)
class Launch:
    argv: tuple[str, ...]
    cpus: tuple[int, ...]
    output: str          # stdout and stderr, as the peer interleaved them
    wall_s: float
    voluntary: int       # ru_nvcsw of the peer's tree
    involuntary: int     # ru_nivcsw


def _gone(pgid: int) -> None:
    """Wait (bounded) until no process of the group is left: a peer's
    orphaned child (stress-ng's) dies a moment after the group's SIGKILL,
    and is reaped by init; the next launch must not meet it."""
    end = time.monotonic() + GONE_S
    while time.monotonic() < end:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.01)


def find(tool: str) -> str | None:
    return shutil.which(tool)


def version(argv: list[str]) -> str:
    """The first line the program prints for its version, or why not."""
    try:
        out, _, _, _, why = _spawn(argv, tuple(sorted(os.sched_getaffinity(0))), VERSION_S)
    except PeerFailed as e:
        return f"unknown ({e.why})"
    if why:
        return f"unknown ({why})"
    for line in out.splitlines():
        if line.strip() and "usage" not in line.lower():
            return escaped(line.strip()[:200])
    return "unknown"


def _on_term(signum, frame):
    raise KeyboardInterrupt  # SIGTERM is an interruption, as in the engine's stream (core/engine.py)


def on_sigterm_interrupt():
    """Install SIGTERM as an interruption (the command's own clean-up, exit
    130); returns the handler it replaced."""
    return signal.signal(signal.SIGTERM, _on_term)


def run(argv: list[str], cpus: tuple[int, ...], timeout_s: float) -> Launch:
    """Run `argv` on `cpus` within `timeout_s`; a PeerFailed on every way
    it can go wrong (the caller keeps the other peers' rows)."""
    out, status, ru, wall, why = _spawn(argv, cpus, timeout_s)
    if why:
        raise PeerFailed(why)
    if status in INTERRUPTED:  # Ctrl-C or kill reached the peer's group (and maybe not us: SIGINT ignored here)
        raise KeyboardInterrupt
    if status != 0:
        said = [ln.strip() for ln in out.splitlines() if ln.strip()]
        last = said[-1] if said else ""
        raise PeerFailed(f"exit status {status}" + (f": {escaped(last[:160])}" if last else ""))
    return Launch(tuple(argv), tuple(cpus), out, wall, int(ru.ru_nvcsw), int(ru.ru_nivcsw))


def _spawn(argv: list[str], cpus: tuple[int, ...], timeout_s: float):
    """(output, exit status, rusage, wall s, why it was stopped or None)."""
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True, preexec_fn=child_setup(cpus, os.getpid()))
    except OSError as e:
        raise PeerFailed(f"cannot start {escaped(argv[0])}: {e.strerror or e}")
    except subprocess.SubprocessError:
        raise PeerFailed(f"cannot start {escaped(argv[0])} on CPU(s) {list(cpus)}")
    pgid, fd = proc.pid, proc.stdout.fileno()
    chunks: list[bytes] = []
    why = None
    ended_at = None
    try:
        size = 0
        while True:
            now = time.monotonic()
            if now - t0 > timeout_s:
                why = f"no answer within {timeout_s:.0f} s; stopped (its process group killed)"
                break
            if ended_at is None and os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
                ended_at = now
            if ended_at is not None and now - ended_at > DRAIN_S:
                break  # its output is held open by something it left behind: what came is all
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                block = os.read(fd, 65536)
                if not block:
                    break
                size += len(block)
                if size > MAX_OUTPUT_BYTES:
                    why = f"printed more than {MAX_OUTPUT_BYTES >> 20} MB; stopped"
                    break
                chunks.append(block)
        kill_group(pgid)  # a timeout, too much output, or what it left behind
        _, status, ru = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    except BaseException:
        kill_group(pgid)
        raise
    finally:
        kill_group(pgid)
        if proc.returncode is None:
            proc.wait()
        proc.stdout.close()
        _gone(pgid)
    return b"".join(chunks).decode("utf-8", "replace"), proc.returncode, ru, time.monotonic() - t0, why
