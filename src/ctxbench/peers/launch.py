"""One launch of a peer: its CPUs, a watchdog, its output bounded, and the
context switches its whole process tree made (getrusage through wait4:
the peer's children and threads are counted once it has reaped them).

The peer leads its own process group, which is killed on a timeout, an
error, Ctrl-C and after a clean exit (anything it left behind); its
direct child dies with the front end (PR_SET_PDEATHSIG), and the peers'
own children end when their pipes close or their parent dies (perf,
hackbench: a read or write fails; stress-ng: its parent-death alarm)."""
from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass

from ctxbench.core.errors import UserError, escaped
from ctxbench.core.children import child_setup, kill_group

MAX_OUTPUT_BYTES = 1 << 20  # a peer printing more is not the peer we know (its output is a few lines)
KEEP_LINES = 3              # of a failed peer's output, for its one line


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


GONE_S = 5.0  # the most to wait for a killed group's last process to be gone


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


def version(argv: list[str], timeout_s: float = 10) -> str:
    """The first line the program prints for its version, or why not."""
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, stdin=subprocess.DEVNULL,
                           errors="replace")
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unknown ({type(e).__name__})"
    for line in (p.stdout + "\n" + p.stderr).splitlines():
        if line.strip() and "usage" not in line.lower():
            return line.strip()[:200]
    return "unknown"


def run(argv: list[str], cpus: tuple[int, ...], timeout_s: float) -> Launch:
    """Run `argv` on `cpus` within `timeout_s`; a PeerFailed on every way
    it can go wrong (the caller keeps the other peers' rows)."""
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                start_new_session=True, preexec_fn=child_setup(cpus, os.getpid()))
    except OSError as e:
        raise PeerFailed(f"cannot start {escaped(argv[0])}: {e.strerror or e}")
    except subprocess.SubprocessError:
        raise PeerFailed(f"cannot start {escaped(argv[0])} on CPU(s) {list(cpus)}")
    pgid = proc.pid
    timed_out = threading.Event()

    def watchdog():
        timed_out.set()
        kill_group(pgid)

    timer = threading.Timer(timeout_s, watchdog)
    timer.daemon = True
    chunks: list[bytes] = []
    status = ru = None
    try:
        timer.start()
        size = 0
        assert proc.stdout is not None
        while True:
            block = proc.stdout.read1(65536)
            if not block:
                break
            size += len(block)
            if size > MAX_OUTPUT_BYTES:
                raise PeerFailed(f"printed more than {MAX_OUTPUT_BYTES >> 20} MB; stopped")
            chunks.append(block)
        _, status, ru = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    except BaseException:
        kill_group(pgid)
        raise
    finally:
        timer.cancel()
        kill_group(pgid)  # what it left behind
        if proc.returncode is None:
            proc.wait()
        _gone(pgid)
    wall = time.monotonic() - t0
    out = b"".join(chunks).decode("utf-8", "replace")
    if timed_out.is_set():
        raise PeerFailed(f"no answer within {timeout_s:.0f} s; stopped (its process group killed)")
    if proc.returncode != 0:
        said = [ln.strip() for ln in out.splitlines() if ln.strip()]
        last = said[-1] if said else ""
        raise PeerFailed(f"exit status {proc.returncode}" + (f": {escaped(last[:160])}" if last else ""))
    return Launch(tuple(argv), tuple(cpus), out, wall, int(ru.ru_nvcsw), int(ru.ru_nivcsw))
