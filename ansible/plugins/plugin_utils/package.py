"""What the wheel way puts on a host, as one zip file (one copy): the
static engine for its architecture (`ctxbench-engine`, which ctxbench
there runs as CTXBENCH_ENGINE), ctxbench's Python package (under `lib/`)
and the entry point that runs that package (run_unpacked.py), which the
host's Python unpacks (`python -m zipfile -e`: no pip, no unzip needed
there); and the requirements pip would fetch for it.

The package is a ctxbench wheel's (`make wheel`), or else the one this
control node runs (a checkout's src/ctxbench or an installed one), so that
the host runs the very code that reads its document here. The engines a
wheel carries for every architecture are left out."""
from __future__ import annotations

import contextlib
import email.parser
import hashlib
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Iterator

from ansible_collections.ctxbench.bench.plugins.plugin_utils.front_end import Failed

WHEEL_MAX = 512 << 20  # bytes: a ctxbench wheel is a few tens of MiB (three static engines)


ENGINE = "ctxbench-engine"  # the engine's name in the zip, and so in the host's private directory
LIB = "lib"                 # the package's folder there
MAIN = "run_unpacked.py"    # its entry point there: this folder's file of that name


def packed(wheel: str | None, engine: str, into: str) -> tuple[str, list[str]]:
    """(the zip's path in the directory `into`, the requirements), made
    once for what it holds: the hosts of a run with one architecture
    share it."""
    return _from_wheel(wheel, engine, into) if wheel else _from_package(engine, into)


def _main_key() -> str:
    st = Path(__file__).with_name(MAIN).stat()
    return f"{MAIN}\0{st.st_size}\0{st.st_mtime_ns}\n"


def _engine_key(engine: str) -> str:
    st = os.stat(engine)
    return f"{os.path.abspath(engine)}\0{st.st_size}\0{st.st_mtime_ns}\n"


def _skipped(name: str) -> bool:
    """A member the host does not need: compiled files, the engines."""
    parts = name.split("/")
    return "__pycache__" in parts or name.endswith((".pyc", ".pyo")) or parts[:2] == ["ctxbench", "engines"]


def _from_package(engine: str, into: str) -> tuple[str, list[str]]:
    from ctxbench.core import locations
    pkg = locations.package()
    files = sorted(p for p in pkg.rglob("*") if p.is_file() and not _skipped(p.relative_to(pkg.parent).as_posix()))
    key = hashlib.sha256(_engine_key(engine).encode())
    # what the package holds now: a file changed since the last zip makes another
    for p in [*files, Path(__file__).with_name(MAIN)]:
        st = p.stat()
        key.update(f"{p}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    path = Path(into) / f"ctxbench-package-{key.hexdigest()[:16]}.zip"
    if not path.exists():
        _write(path, engine, ((p.relative_to(pkg.parent).as_posix(), p.read_bytes()) for p in files))
    return str(path), _installed_requirements()


def _installed_requirements() -> list[str]:
    from importlib.metadata import PackageNotFoundError, requires
    try:
        return _runtime(requires("ctxbench") or [])
    except PackageNotFoundError:  # a package on PYTHONPATH, not installed: nothing says them
        return []


def _runtime(reqs: list[str]) -> list[str]:
    """The requirements without the extras' (tests, runtimes)."""
    return [r for r in reqs if "extra" not in r.partition(";")[2]]


def checked_wheel(wheel: str) -> list[str]:
    """The requirements of the ctxbench wheel `wheel`, or Failed saying
    why it is none: checked on the control node before any host is
    contacted (ctxbench.bench.plan)."""
    with _opened(wheel) as (_, _, reqs):
        return reqs


@contextlib.contextmanager
def _opened(wheel: str) -> Iterator[tuple[zipfile.ZipFile, os.stat_result, list[str]]]:
    """(the wheel open, its file's status, its requirements), or Failed
    with one line."""
    from ctxbench.core.errors import shown
    try:
        st = os.stat(wheel)
        if not os.path.isfile(wheel) or st.st_size > WHEEL_MAX:
            raise Failed(f"ctxbench_wheel: {shown(wheel)} is not a wheel file (a regular file of at most "
                         f"{WHEEL_MAX >> 20} MiB)")
        z = zipfile.ZipFile(wheel)
    except OSError as e:
        raise Failed(f"ctxbench_wheel: cannot read {shown(wheel)} ({e.strerror or e})")
    except zipfile.BadZipFile as e:
        raise Failed(f"ctxbench_wheel: {shown(wheel)} is not a wheel ({e})")
    with z:
        names = z.namelist()
        meta = [n for n in names if n.startswith("ctxbench-") and n.endswith(".dist-info/METADATA")
                and n.count("/") == 1]
        if "ctxbench/__init__.py" not in names or len(meta) != 1:
            raise Failed(f"ctxbench_wheel: {shown(wheel)} is not a ctxbench wheel (no ctxbench package with its "
                         "METADATA)")
        try:
            text = z.read(meta[0]).decode("utf-8", "replace")
        except (OSError, zipfile.BadZipFile, RuntimeError) as e:  # a damaged member, an encrypted one
            raise Failed(f"ctxbench_wheel: cannot read {shown(wheel)}'s METADATA ({e})")
        yield z, st, _runtime(email.parser.Parser().parsestr(text).get_all("Requires-Dist") or [])


def _from_wheel(wheel: str, engine: str, into: str) -> tuple[str, list[str]]:
    with _opened(wheel) as (z, st, reqs):
        key = f"{os.path.abspath(wheel)}\0{st.st_size}\0{st.st_mtime_ns}\n{_engine_key(engine)}{_main_key()}"
        path = Path(into) / f"ctxbench-wheel-{hashlib.sha256(key.encode()).hexdigest()[:16]}.zip"
        if not path.exists():
            _write(path, engine, _members(z))
    return str(path), reqs


def _members(z: zipfile.ZipFile) -> Iterator[tuple[str, bytes]]:
    for i in z.infolist():
        if not i.is_dir() and not _skipped(i.filename):
            yield i.filename, z.read(i)


def _write(path: Path, engine: str, members) -> None:
    """The zip of the engine and the package's (name, bytes) `members`
    (under LIB) at `path`, all or nothing: hosts that make it at once each
    rename a whole one over the other."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".ctxbench-", suffix=".zip", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f, zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
            z.write(engine, ENGINE)
            z.write(Path(__file__).with_name(MAIN), MAIN)
            for name, data in members:
                z.writestr(f"{LIB}/{name}", data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
