"""Writing results and reports: checked up front, atomic, and never lost.

- Up front (before anything is measured): the target must be a regular
  file or not exist yet, in a writable directory, and must not be one of
  the command's input files. A device, a FIFO or a symlink to one is
  refused: os.replace() would put a regular file in its place (as root,
  `-o /dev/null` would delete the system's device).
- The write itself: a temporary file beside the target, fsync, rename.
- A write that still fails after measuring (a full disk, /proc, a file
  system that refuses renames) keeps the results in a fallback file named
  in the one-line error, rather than losing minutes of measurement.
"""
from __future__ import annotations

import datetime
import json
import math
import os
import stat
import tempfile

from ctxbench.core.errors import UserError


def jsonable(o):
    """Non-finite floats become null (JSON has no nan/inf)."""
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, dict):
        return {k: jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [jsonable(v) for v in o]
    return o


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def check_writable(path: str, inputs: tuple[str, ...] | list[str] = ()) -> None:
    """Fail early, before any measurement, if `path` cannot or must not be written."""
    d = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(d):
        raise UserError(f"cannot write '{path}': directory '{d}' does not exist")
    if os.path.lexists(path):
        try:
            st = os.stat(path)  # follows a symlink: what would be replaced is its target's name
        except OSError as e:
            raise UserError(f"cannot write '{path}': {e.strerror}")
        if stat.S_ISDIR(st.st_mode):
            raise UserError(f"cannot write '{path}': it is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise UserError(f"refusing to write '{path}': it exists and is not a regular file "
                            "(a device, FIFO or socket); choose a file name")
        for src in inputs:
            if _same_file(path, src):
                raise UserError(f"refusing to write '{path}': it is one of the input files")
    if not os.access(d, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UserError(f"cannot write '{path}': permission denied")


def write_text_atomic(path: str, text: str) -> None:
    """Temp file in the same directory, fsync, rename: all or nothing.
    Raises OSError (the caller decides what a failure means)."""
    if os.path.lexists(path) and not os.path.isfile(path):
        raise OSError(0, "it is not a regular file", path)  # appeared since the up-front check
    d = os.path.dirname(os.path.abspath(path)) or "."
    fd, tmp = tempfile.mkstemp(prefix=".ctxbench-", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def results_text(doc: dict) -> str:
    return json.dumps(jsonable(doc), indent=1, allow_nan=False) + "\n"


def _fallback_path(path: str) -> str | None:
    """Where measured results go when `path` could not take them."""
    name = f"ctxbench-unsaved-{datetime.datetime.now():%Y%m%d-%H%M%S}-{os.getpid()}.json"
    for d in (os.getcwd(), tempfile.gettempdir()):
        cand = os.path.join(d, name)
        if os.path.abspath(cand) != os.path.abspath(path) and os.access(d, os.W_OK):
            return cand
    return None


def write_results(path: str, doc: dict) -> None:
    """Write a results document; if that fails, keep it in a fallback file
    and stop with one line naming both (exit 1)."""
    text = results_text(doc)
    try:
        write_text_atomic(path, text)
        return
    except OSError as e:
        why = e.strerror or str(e)
    fb = _fallback_path(path)
    if fb:
        try:
            write_text_atomic(fb, text)
        except OSError:
            fb = None
    kept = f"the results were kept in '{fb}'" if fb else "and no fallback file could be written either"
    raise UserError(f"cannot write '{path}' ({why}): {kept}", code=1)


def write_text(path: str, text: str, what: str = "file") -> None:
    """A report or other derived file: one clear line if it cannot be written."""
    try:
        write_text_atomic(path, text)
    except OSError as e:
        raise UserError(f"cannot write {what} '{path}': {e.strerror or e}", code=1)
