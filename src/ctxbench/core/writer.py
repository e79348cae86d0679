"""Writing results and reports: one rule for where output goes, decided
before measuring, atomic, and never lost.

The output-path rule (the engine follows the same one for its -o):

- `-`, /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to
  that stream of this process; nothing is created, replaced or renamed
  (`-o /dev/stdout > out.json` fills out.json and leaves the link alone).
- A name that does not exist yet, or a regular file: written atomically
  beside it (a temporary file in the same directory, fsync, rename).
- A symlink is followed to what it names: to a regular file, the file is
  written atomically beside the link's target, so the link stays a link;
  to a device or FIFO, by the rule below; to nothing, refused.
- A character device (/dev/null, a terminal) or a FIFO with a reader is
  written as a stream, never replaced. A FIFO nobody reads is refused
  (opened with O_NONBLOCK: ENXIO), never waited on; a reader that stops
  reading fails the write after STREAM_WAIT_S without progress.
- Standard input (/dev/stdin, /dev/fd/0, /proc/self/fd/0): refused (its
  link leads to the file the input comes from, which would be replaced).
- A directory, a block device, a socket: refused.
- Never one of the command's input files, nor the results store.

check_writable() decides all this before anything is measured (a FIFO is
held open from then on, so its reader sees one document); the final
rename re-checks the name, and a name that has become something else is
not replaced. A write that fails after measuring (a full disk, a reader
gone, the name changed) keeps the results in a fallback file named in the
one-line error, rather than losing minutes of measurement.
"""
from __future__ import annotations

import datetime
import errno
import json
import math
import os
import re
import select
import stat
import sys
import tempfile
import time
from types import MappingProxyType

from ctxbench.core.errors import UserError, shown
from ctxbench.core import streams

STREAM_WAIT_S = 60.0  # longest wait for a stream's reader to take more
_FD_NAME = re.compile(r"^/(?:dev/fd|proc/(?:self|thread-self|(\d+))/fd)/(\d+)$")
_STD_NAME = MappingProxyType({"-": 1, "/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2})


def jsonable(o):
    """Non-finite floats become null (JSON has no nan/inf)."""
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, dict):
        return {k: jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [jsonable(v) for v in o]
    return o


def _named_fd(path: str) -> int | None:
    """The descriptor of this process that `path` names, if it names one."""
    if path in _STD_NAME:
        return _STD_NAME[path]
    p = os.path.normpath(path)
    if p in _STD_NAME:
        return _STD_NAME[p]
    m = _FD_NAME.match(p)
    if m and (m.group(1) is None or int(m.group(1)) == os.getpid()):
        return int(m.group(2))
    return None


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISLNK, "a symlink")):
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def same_file(a: str, b: str) -> bool:
    """Whether two names lead to one file; for a name not made yet, whether
    they resolve to one name (a symlinked directory followed)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def same_output(a: "Output", b: "Output") -> bool:
    """Whether two outputs land in one place: one name, one descriptor, or
    a descriptor open on the other's file (`-o - --samples x > x`)."""
    if a.fd is not None and b.fd is not None:
        return a.fd == b.fd or _same_inode(os.fstat(a.fd), f"/proc/self/fd/{b.fd}")
    if a.fd is None and b.fd is None:
        return same_file(a.target or a.path, b.target or b.path)
    stream, file = (a, b) if a.fd is not None else (b, a)
    try:
        return _same_inode(os.fstat(stream.fd), file.target or file.path)
    except OSError:
        return False


def _refuse(path: str, why: str, verb: str = "cannot write") -> UserError:
    return UserError(f"{verb} {shown(path)}: {why}", why=why)


def _probe_dir(path: str, d: str) -> None:
    """Can a file be created in `d`? Tried, not guessed: root passes
    os.access() on /proc and on read-only mounts alike."""
    if not os.path.isdir(d):
        raise _refuse(path, f"directory {shown(d)} does not exist")
    tmp = None
    try:  # one try from the file's making to its removal: Ctrl-C or SIGTERM in between leaves nothing
        fd, tmp = tempfile.mkstemp(prefix=".ctxbench-", suffix=".tmp", dir=d)
        os.close(fd)
    except OSError as e:
        raise _refuse(path, f"cannot create a file in {shown(d)}: {e.strerror or e}")
    finally:
        if tmp is not None:
            os.unlink(tmp)


def _same_inode(st: os.stat_result, path: str) -> bool:
    try:
        other = os.stat(path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (other.st_dev, other.st_ino)


class Output:
    """Where one output goes, decided by the rule above. Either a file
    (`target`: the name the rename lands on) or a stream (`fd`)."""

    def __init__(self, path: str, inputs: tuple[str, ...] | list[str] = ()):
        self.path = path
        self.target: str | None = None
        self.fd: int | None = None
        self._own_fd = False
        fd = _named_fd(path)
        if fd is not None:
            self._open_named(fd, inputs)
            return
        try:
            st = os.stat(path)  # follows symlinks: what the name leads to decides
        except FileNotFoundError:
            if os.path.islink(path):
                raise _refuse(path, f"it is a symlink to nothing ({shown(os.readlink(path))})", "refusing to write")
            st = None
        except OSError as e:
            raise _refuse(path, e.strerror or str(e))
        if st is None or stat.S_ISREG(st.st_mode):
            self.target = os.path.realpath(path)
            for src in inputs:
                if st is not None and same_file(self.target, src):
                    raise _refuse(path, "it is one of the input files", "refusing to write")
            _probe_dir(path, os.path.dirname(self.target) or ".")
            if st is not None and not os.access(self.target, os.W_OK):
                raise _refuse(path, "permission denied")
        elif stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
            self._open_stream(st)
        elif stat.S_ISDIR(st.st_mode):
            raise _refuse(path, "it is a directory")
        else:
            raise _refuse(path, f"it is {_kind(st.st_mode)}; choose a file name", "refusing to write")

    def _open_named(self, fd: int, inputs) -> None:
        if fd == 0:
            raise _refuse(self.path, "it is standard input (its file would be replaced); choose a file name",
                          "refusing to write")
        what = {1: "standard output", 2: "standard error"}.get(fd, f"descriptor {fd}")
        if streams.was_closed(fd):
            raise _refuse(self.path, f"{what} is closed")
        try:
            st = os.fstat(fd)
        except OSError as e:
            raise _refuse(self.path, f"{what}: {e.strerror or e}")
        # `-o - >> in.json`: the descriptor is an input file, which the
        # document would be written into, in place and not atomically
        if stat.S_ISREG(st.st_mode) and any(_same_inode(st, src) for src in inputs):
            raise _refuse(self.path, f"{what} is one of the input files", "refusing to write")
        self.fd = fd

    def _open_stream(self, st: os.stat_result) -> None:
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        except OSError as e:
            if e.errno == errno.ENXIO and stat.S_ISFIFO(st.st_mode):
                raise _refuse(self.path, "it is a FIFO that nobody reads (start its reader first, or choose a file name)")
            raise _refuse(self.path, e.strerror or str(e))
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):  # changed between stat and open
            os.close(fd)
            raise _refuse(self.path, "it changed while being opened")
        self.fd, self._own_fd = fd, True

    @property
    def is_stream(self) -> bool:
        return self.fd is not None

    def write(self, data: bytes) -> None:
        """All of `data`, or OSError (the caller decides what it means)."""
        if self.fd is None:
            assert self.target is not None
            write_atomic(self.target, data)
            return
        if self.fd in (1, 2):
            for s in (sys.stdout, sys.stderr):
                try:
                    s.flush()  # what was printed before comes first
                except (OSError, ValueError, AttributeError):
                    pass
            gone = streams.lost(self.fd)  # failed earlier: now pointed at /dev/null
            if gone is not None:
                raise OSError(gone.errno, gone.strerror or str(gone))
        try:
            _write_stream(self.fd, data)
        finally:
            self.close()

    def close(self) -> None:
        if self._own_fd and self.fd is not None:
            os.close(self.fd)
            self.fd, self._own_fd = -1, False


def check_writable(path: str, inputs: tuple[str, ...] | list[str] = ()) -> Output:
    """Decide where `path` goes, before any measurement; one clear
    UserError if it cannot or must not be written. Never the results
    store ($CTXBENCH_STORE's, the config's or the default; a command with
    --store also checks its own, core/store/choice.py)."""
    from ctxbench.core.store import choice
    choice.never_onto(None, [path])
    return Output(path, inputs)


def _write_stream(fd: int, data: bytes) -> None:
    """Write everything to a device or FIFO; wait for a slow reader, but
    at most STREAM_WAIT_S without progress."""
    view = memoryview(data)
    deadline = time.monotonic() + STREAM_WAIT_S
    while view:
        try:
            n = os.write(fd, view[:1 << 20])
        except BlockingIOError:
            n = 0
        if n > 0:
            view = view[n:]
            deadline = time.monotonic() + STREAM_WAIT_S
            continue
        left = deadline - time.monotonic()
        if left <= 0:
            raise OSError(errno.ETIMEDOUT, f"the reader took nothing for {STREAM_WAIT_S:.0f} s")
        p = select.poll()
        p.register(fd, select.POLLOUT)
        p.poll(left * 1000)


def write_atomic(path: str, data: bytes, replace_link: bool = False) -> None:
    """Temp file in the same directory, fsync, rename: all or nothing.
    The name is checked again just before the rename: one that has become
    a device, FIFO, directory or (unless `replace_link`: a figure's name,
    where a symlink was planted, not chosen) a symlink since is not
    replaced. Raises OSError."""
    staged = Staged(path)
    try:
        staged.file.write(data)
        staged.commit(replace_link)
    except BaseException:
        staged.discard()
        raise


class Staged:
    """A file written piece by piece into a temporary file beside `path`
    (`file`), then put in place whole by commit(), or removed by discard():
    an output too large for memory is still all or nothing."""

    def __init__(self, path: str):
        self.path = path
        d = os.path.dirname(os.path.abspath(path)) or "."
        self.tmp = None
        try:  # mkstemp inside: an interruption right after it still removes the file
            fd, self.tmp = tempfile.mkstemp(prefix=".ctxbench-", suffix=".tmp", dir=d)
            self.file = os.fdopen(fd, "wb")
        except BaseException:
            self.discard()
            raise

    def commit(self, replace_link: bool = False) -> None:
        """fsync, and the rename (the name checked again first). OSError."""
        if not self.file.closed:  # a writer that owned it (pyarrow's) may have closed it
            self.file.flush()
        fd = os.open(self.tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        self.file.close()
        mode = 0o644
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            st = None
        if st is not None and not (replace_link and stat.S_ISLNK(st.st_mode)):
            if not stat.S_ISREG(st.st_mode):
                raise OSError(errno.EEXIST, f"it became {_kind(st.st_mode)} meanwhile; not replaced", self.path)
            mode = stat.S_IMODE(st.st_mode)  # a replaced file keeps its permissions
        os.chmod(self.tmp, mode)
        os.replace(self.tmp, self.path)
        self.tmp = None

    def discard(self) -> None:
        """The temporary file removed (nothing of it left); safe to call twice."""
        try:
            if getattr(self, "file", None) is not None:
                self.file.close()
        except OSError:
            pass
        try:
            if self.tmp is not None:
                os.unlink(self.tmp)
        except OSError:
            pass
        self.tmp = None


def results_text(doc) -> str:
    """A results document's record (core/results.Document: a command's,
    lifecycle.document, or one read) as the file's text."""
    from ctxbench.core import results
    return results.encode(doc).decode("utf-8")


def _fallback_path(path: str) -> str | None:
    """Where measured results go when `path` could not take them."""
    name = f"ctxbench-unsaved-{datetime.datetime.now():%Y%m%d-%H%M%S}-{os.getpid()}.json"
    for d in (os.getcwd(), tempfile.gettempdir()):
        cand = os.path.join(d, name)
        if os.path.abspath(cand) != os.path.abspath(path) and os.access(d, os.W_OK):
            return cand
    return None


def _deliver(out: str | Output, data: bytes) -> str | None:
    """Write; None, or why it failed. A name given as text is decided now."""
    try:
        (out if isinstance(out, Output) else Output(out)).write(data)
        return None
    except UserError as e:
        return e.why
    except OSError as e:
        return e.strerror or str(e)


def _name(out: str | Output) -> str:
    return out.path if isinstance(out, Output) else out


def write_results(out: str | Output, doc) -> None:
    """Write a results document's record; if that fails, keep it in a
    fallback file and stop with one line naming both (exit 1). (A document
    the model refuses never gets here: lifecycle.document keeps it,
    keep_unfit.)"""
    data = results_text(doc).encode("utf-8")
    _kept(out, data, _deliver(out, data))


def keep_unfit(out: str | Output, doc: dict, e) -> None:
    """A document (builtins) the results model refused, `e` its
    ValidationError: kept as it is in a fallback file, and one line that
    says what is wrong (exit 1), rather than losing the measurement."""
    from ctxbench.core import results
    _kept(out, _json_bytes(doc), f"the results do not fit {results.SCHEMA} ({results.problem(e, jsonable(doc))})")


def write_json(out: str | Output, obj) -> None:
    """Write a JSON file that is not a results document (history's
    series), with write_results' fallback."""
    data = _json_bytes(obj)
    _kept(out, data, _deliver(out, data))


def _json_bytes(obj) -> bytes:
    return (json.dumps(jsonable(obj), indent=1, allow_nan=False) + "\n").encode("utf-8")


def _kept(out: str | Output, data: bytes, why: str | None) -> None:
    """Nothing if `why` is None (written); else `data` kept in a fallback
    file and one line naming both (exit 1)."""
    if why is None:
        return
    fb = _fallback_path(_name(out))
    if fb:
        try:
            write_atomic(fb, data)
        except OSError:
            fb = None
    kept = f"the results were kept in {shown(fb)}" if fb else "and no fallback file could be written either"
    raise UserError(f"cannot write {shown(_name(out))} ({why}): {kept}", code=1)


def write_text(out: str | Output, text: str, what: str = "file") -> None:
    """A report or other derived file: one clear line if it cannot be written."""
    why = _deliver(out, text.encode("utf-8"))
    if why is not None:
        raise UserError(f"cannot write {what} {shown(_name(out))}: {why}", code=1)
