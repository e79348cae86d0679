"""Which engine a host gets: the static build for its architecture (what
`uname -m` says there), from the build directory `make engine-x86_64`,
`make engine-aarch64` and `make engine-armv7` fill. The engine needs
nothing on the host: no Python, no libraries."""
from __future__ import annotations

import functools
import os
import zlib
from pathlib import Path

# uname -m -> the build's directory (mk/static.mk, mk/arm.mk)
ARCH_DIRS = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64",
             "armv7l": "armv7", "armv8l": "armv7", "armv7": "armv7"}
MAKE_TARGET = {"x86_64": "engine-x86_64", "aarch64": "engine-aarch64", "armv7": "engine-armv7"}


class NoEngine(Exception):
    """This host cannot be given an engine; the text says why."""


def default_dir() -> Path:
    """build/ of the checkout this package runs from."""
    for parent in Path(__file__).resolve().parents:
        if (parent / "engine" / "src").is_dir():
            return parent / "build"
    return Path.cwd() / "build"


@functools.lru_cache(maxsize=None)
def gzipped(path: Path) -> bytes:
    """The engine as gzip (fast level: once per architecture and run)."""
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    return z.compress(path.read_bytes()) + z.flush()


def for_arch(machine: str, build: Path) -> Path:
    sub = ARCH_DIRS.get(machine.strip())
    if sub is None:
        raise NoEngine(f"no engine for architecture '{machine.strip()[:40]}' (ctxbench builds x86_64, aarch64, "
                       "armv7)")
    path = build / sub / "ctxbench-engine"
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise NoEngine(f"no {sub} engine here ({path}): make {MAKE_TARGET[sub]}")
    return path
