"""Where this front end's engines are: the one rule (issue 46). An
installed package uses the engines it carries; a checkout's build is used
only when the package runs from that checkout, decided by the package's
own location, never by a search upward from it, the virtualenv or the
current directory. Its own module: core/engine.py, core/ssh/engines.py and
runtimes/harness.py all ask it, and none may import another."""
from __future__ import annotations

import os
import stat
from pathlib import Path

PYPROJECT_MAX = 1 << 20  # bytes: a checkout's pyproject.toml is a few KiB; /dev/zero must not fill memory


def package() -> Path:
    """This front end's package directory (.../ctxbench), where it runs from."""
    return Path(__file__).resolve().parents[1]


def installed(pkg: Path | None = None) -> bool:
    """Whether the package is an installed distribution: pip (a wheel, also
    with --target) writes ctxbench-<version>.dist-info beside it, whatever
    the directory is called. An editable install's dist-info is in
    site-packages, not beside the checkout's src/ctxbench."""
    pkg = package() if pkg is None else pkg
    return any(pkg.parent.glob("ctxbench-*.dist-info"))


def checkout(pkg: Path | None = None) -> Path | None:
    """The checkout this package runs from (an editable install, `make
    run`): the package is src/ctxbench of a directory whose pyproject.toml
    is ctxbench's and that has engine/src and a Makefile, and it is no
    installed distribution (installed()). None for an installed package,
    wherever it is: a build/ or an engine/src in a directory above it, even
    one that looks like a checkout (pip install --target D/src), is
    another project's, not this package's."""
    pkg = package() if pkg is None else pkg
    root = pkg.parent.parent
    if pkg.name != "ctxbench" or pkg.parent.name != "src" or installed(pkg) \
            or not (root / "engine" / "src").is_dir() or not (root / "Makefile").is_file():
        return None
    return root if _project(root / "pyproject.toml") == "ctxbench" else None


def _project(path: Path) -> object:
    """The [project] name a pyproject.toml gives; None where it cannot be read."""
    try:
        import tomllib  # the standard library's TOML reader (Python 3.11)
    except ImportError:  # older Pythons: the same reader, packaged (pyproject.toml)
        import tomli as tomllib
    try:  # O_NONBLOCK: a FIFO opens at once (and is refused), never waited on
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # a FIFO, /dev/zero: no project's file
                return None
            data = f.read(PYPROJECT_MAX + 1)  # bounded: a file can grow after the check
        if len(data) > PYPROJECT_MAX:
            return None
        return tomllib.loads(data.decode()).get("project", {}).get("name")
    except (OSError, ValueError, AttributeError):  # ValueError: TOMLDecodeError, UnicodeDecodeError
        return None


def packaged(pkg: Path | None = None) -> Path:
    """The static engines an installed package carries: ctxbench/engines/<arch>/
    (CMakeLists.txt installs them there: `make wheel`)."""
    return (package() if pkg is None else pkg) / "engines"


def static_dir(pkg: Path | None = None) -> Path:
    """Where this front end's static engines are, one folder per
    architecture (<arch>/ctxbench-engine; --host and the fleet copy them to
    other hosts): the checkout's build/ (`make engine-<arch>`) when it runs
    from a checkout, else the engines the installed package carries."""
    root = checkout(pkg)
    return root / "build" if root is not None else packaged(pkg)
