"""Standard output and error that cannot stop a command halfway.

A stream closed at start (`>&-`, `2>&-`) is reopened onto /dev/null, so
that nothing crashes on a missing stream and no file the command opens
later lands on descriptor 1 or 2. A stream that fails while the command
runs (a full disk: `> /dev/full`; a reader gone: `| head`) swallows the
rest. Either way the command runs to its end, so its results file is
written, and main() then says what was lost, in one line, and exits
non-zero (quietly for a reader that left: `| head` is a choice).

guard() and release() bracket one command (main() may run many times in
one process: the tests)."""
from __future__ import annotations

import errno
import io
import os
import sys
from types import MappingProxyType

NAMES = MappingProxyType({1: "standard output", 2: "standard error"})


class Guard:
    """One command's standard streams: those closed when it started, and
    why output to one was lost. It lives in the guarded streams it
    installs (sys.stdout, sys.stderr), so that what writes the results
    (core/writer.py) finds it there, and in nothing of this module's."""

    def __init__(self, closed: frozenset[int], saved: tuple):
        self.closed, self.saved = closed, saved
        self.lost: dict[int, OSError] = {}  # descriptor -> why what was written to it was lost


def _guard() -> Guard | None:
    """The command's guard: the one its standard output carries, if any."""
    return getattr(sys.stdout, "guard", None) or getattr(sys.stderr, "guard", None)


def was_closed(fd: int) -> bool:
    g = _guard()
    return g is not None and fd in g.closed


def lost(fd: int) -> OSError | None:
    """Why output to `fd` was lost, or None."""
    g = _guard()
    return g.lost.get(fd) if g is not None else None


def _to_devnull(fd: int) -> None:
    """Point `fd` at /dev/null (what was buffered for it then drains there)."""
    null = os.open(os.devnull, os.O_RDWR)
    if null != fd:
        os.dup2(null, fd)
        os.close(null)


class _Guarded:
    """A text stream whose write and flush never raise OSError: the first
    failure is recorded and everything after it is dropped."""

    def __init__(self, inner, fd: int, guard: Guard):
        self._inner, self._fd, self.guard = inner, fd, guard

    def _fail(self, e: OSError) -> None:
        self.guard.lost.setdefault(self._fd, e)
        try:
            if self._inner.fileno() == self._fd:
                _to_devnull(self._fd)  # the buffered rest can drain; the exit-time flush cannot fail
                self._inner.flush()
        except (OSError, ValueError, io.UnsupportedOperation):
            pass

    def write(self, s: str) -> int:
        if self._fd in self.guard.lost:
            return len(s)
        if self._fd in self.guard.closed and s:
            self.guard.lost[self._fd] = OSError(errno.EBADF, "it is closed")
            return len(s)
        try:
            return self._inner.write(s)
        except OSError as e:
            self._fail(e)
            return len(s)

    def flush(self) -> None:
        if self._fd in self.guard.lost:
            return
        try:
            self._inner.flush()
        except OSError as e:
            self._fail(e)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def guard() -> Guard:
    """Before a command: reopen closed standard streams, guard stdout and
    stderr; the guard release() takes back."""
    closed = set()
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            _to_devnull(fd)
            if fd:
                closed.add(fd)
    g = Guard(frozenset(closed), (sys.stdout, sys.stderr))
    out, err = sys.stdout, sys.stderr
    if out is None or 1 in closed:
        out = open(1, "w", closefd=False, errors="replace")
    if err is None or 2 in closed:
        err = open(2, "w", closefd=False, errors="replace")
    sys.stdout, sys.stderr = _Guarded(out, 1, g), _Guarded(err, 2, g)
    return g


def release(g: Guard) -> dict[int, OSError]:
    """After a command: flush, put the streams back; what was lost, by descriptor."""
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except (OSError, ValueError, AttributeError):
            pass
    sys.stdout, sys.stderr = g.saved
    return dict(g.lost)


def lost_line(fd: int, e: OSError) -> str | None:
    """The one line for a lost stream (None: say nothing)."""
    if e.errno == errno.EPIPE:
        return None  # the reader left (`| head`): its choice, not a fault
    name = NAMES.get(fd, f"descriptor {fd}")
    if e.errno == errno.EBADF:
        return f"{name} is closed: what the command printed there was lost"
    return f"{name}: {e.strerror or e}: what the command printed there was lost"
