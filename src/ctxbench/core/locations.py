"""Where this front end's engines are: the one rule (issue 46). An
installed package uses the engines it carries; a checkout's build is used
only when the package runs from that checkout, decided by the package's
own location, never by a search upward from it, the virtualenv or the
current directory. Its own module: core/engine.py and core/ssh/engines.py
both ask it, and neither may import the other."""
from __future__ import annotations

from pathlib import Path


def package() -> Path:
    """This front end's package directory (.../ctxbench), where it runs from."""
    return Path(__file__).resolve().parents[1]


def checkout(pkg: Path | None = None) -> Path | None:
    """The checkout this package runs from (an editable install, `make
    run`): the package is src/ctxbench of a directory that has engine/src
    and a Makefile beside src/. None for an installed package (a wheel in
    a virtualenv), wherever it is: a build/ or an engine/src in a directory
    above the virtualenv, or above the current directory, is another
    project's, not this package's."""
    pkg = package() if pkg is None else pkg
    root = pkg.parent.parent
    if pkg.name == "ctxbench" and pkg.parent.name == "src" and (root / "engine" / "src").is_dir() \
            and (root / "Makefile").is_file():
        return root
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
