"""What every figure shares: a headless matplotlib, the machine label, and
the ways a figure leaves the program (PNG bytes, a file: write_files)."""
from __future__ import annotations

import io
import math
import os
import stat
import tempfile

import matplotlib

from ctxbench.core import writer
from ctxbench.core.errors import UserError, shown
from ctxbench.core.model import Environment, Result, Summary

matplotlib.use("Agg")  # no display, no network: figures are files or bytes
import matplotlib.pyplot as plt  # noqa: E402


def machine_label(env: Environment | dict) -> str:
    """Hostname, CPU, kernel and VM-ness, for the corner of a figure."""
    return Environment(env).label


def ci_of(result: dict) -> tuple[float, float, float]:
    """(median, low, high) of the kept samples, nan when unknown."""
    s = Result(result).summary
    return (s.median, *s.ci95)


def png_bytes(fig, dpi: int = 110) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def size_label(b: int) -> str:
    for unit, k in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= k and b % k == 0:
            return f"{b // k}{unit}"
    return f"{b}"


FORMATS = ("png", "svg")


def check_dir(directory: str) -> None:
    """Before measuring: `directory` is a directory, or one can be made
    there (its nearest existing ancestor is a writable directory)."""
    d = os.path.abspath(directory)
    while not os.path.lexists(d):
        d = os.path.dirname(d)
    if not os.path.isdir(d):
        what = "it" if d == os.path.abspath(directory) else shown(d)
        raise UserError(f"cannot write figures to {shown(directory)}: {what} is not a directory")
    try:
        fd, probe = tempfile.mkstemp(prefix=".ctxbench-", suffix=".tmp", dir=d)
    except OSError as e:
        raise UserError(f"cannot write figures to {shown(directory)}: cannot create a file in {shown(d)}: "
                        f"{e.strerror or e}")
    os.close(fd)
    os.unlink(probe)


def check_files(directory: str, names: list[str], protect: tuple[str, ...] | list[str] = ()) -> list[str]:
    """Before any figure is written: <directory>/<name> for each name, each
    one a name a figure may take. A symlink there will be replaced itself,
    never followed; a directory, device or FIFO, or one of the `protect`ed
    files (the command's inputs and other outputs, existing or not yet),
    is refused. Returns the paths."""
    check_dir(directory)
    inodes, reals = set(), set()
    for p in protect:
        reals.add(os.path.realpath(p))
        try:
            st = os.stat(p)
            inodes.add((st.st_dev, st.st_ino))
        except OSError:
            pass
    real_dir = os.path.realpath(directory)
    paths = [os.path.join(directory, n) for n in names]
    for n, p in zip(names, paths):
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            st = None
        if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            raise UserError(f"refusing to write figure {shown(p)}: it exists and is not a regular file")
        if os.path.join(real_dir, n) in reals or (st is not None and (st.st_dev, st.st_ino) in inodes):
            raise UserError(f"refusing to write figure {shown(p)}: it is one of this command's own files")
    return paths


def write_files(directory: str, files: list[tuple[str, bytes]], protect: tuple[str, ...] | list[str] = ()) -> list[str]:
    """The one place figure files are written: <directory>/<name> for each
    (name, bytes), all checked first (check_files), then each written
    atomically (a temporary file in `directory`, then a rename, which
    replaces a symlink rather than its target). UserError, or OSError
    when a write fails."""
    paths = check_files(directory, [n for n, _ in files], protect)
    os.makedirs(directory, exist_ok=True)
    for p, (_, data) in zip(paths, files):
        writer.write_atomic(p, data, replace_link=True)
    return paths


def save(fig, directory: str, name: str, formats: tuple[str, ...] = FORMATS, dpi: int = 110,
         protect: tuple[str, ...] | list[str] = ()) -> list[str]:
    """<directory>/<name>.<format> for each format (through write_files)."""
    files = []
    for ext in formats:
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, dpi=dpi, bbox_inches="tight")
        files.append((f"{name}.{ext}", buf.getvalue()))
    plt.close(fig)
    return write_files(directory, files, protect)


# ---- shared by the panel figures of tasks, irq and noise --------------------

MS = 1e6  # ns per ms


def finish_titled(fig):
    fig.tight_layout(rect=(0, 0, 1, 0.88))  # room for the two-line title
    return fig


def err_bar(s: Summary, scale: float):
    m = s.mean / scale
    lo, hi = s.ci95
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return m, 0.0, 0.0
    return m, max(m - lo / scale, 0.0), max(hi / scale - m, 0.0)


def panel_grid(k: int):
    cols = min(3, k)
    rows = (k + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.4 * rows), squeeze=False)
    for ax in axes.flat[k:]:
        ax.set_visible(False)
    return fig, list(axes.flat)
