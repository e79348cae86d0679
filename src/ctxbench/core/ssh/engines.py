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
    """Where the static engines are: $CTXBENCH_ENGINES (a fleet passes its
    --engines on), else the build/ of the checkout this package runs from,
    else the engines the installed package carries (the wheel: `make
    wheel`)."""
    if os.environ.get("CTXBENCH_ENGINES"):
        return Path(os.environ["CTXBENCH_ENGINES"])
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "engine" / "src").is_dir():
            return parent / "build"
    return packaged()


def packaged() -> Path:
    """The engines inside the installed package: ctxbench/engines/<arch>/."""
    return Path(__file__).resolve().parents[2] / "engines"


def here() -> str | None:
    """This machine's architecture as the engines' folders name it."""
    return ARCH_DIRS.get(os.uname().machine)


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


# The shell lines that take the engine on a host, shared by --host's watcher
# (core/ssh/session.py) and the fleet's script (fleet/remote.py), after each
# has made its directory $d: say `TAG <uname -m> $d <gzip|plain>`, read the
# engine's size on a line and then its bytes (gzipped where the host has
# gzip: a third of the bytes), make it executable and see that it runs
# there; on any failure remove $d and exit 98 (99: it cannot run there).
_TAKE_ENGINE = r"""if command -v gzip >/dev/null; then z=gzip; else z=plain; fi
echo "TAG $(uname -m) $d $z"
read n || { rm -rf "$d"; exit 98; }
if [ $z = gzip ]; then head -c "$n" | gzip -dc > "$d/ctxbench-engine"; else head -c "$n" > "$d/ctxbench-engine"; fi \
  || { rm -rf "$d"; exit 98; }
chmod 700 "$d/ctxbench-engine" || { rm -rf "$d"; exit 98; }
"$d/ctxbench-engine" --version > /dev/null 2>&1 \
  || { echo "the engine cannot run in $d (a noexec file system? set TMPDIR there)" >&2; rm -rf "$d"; exit 99; }
"""


def take_engine(tag: str) -> str:
    """Those lines, saying `tag`, as a piece of a str.format template (its
    braces doubled: the scripts are formatted with their own fields)."""
    return _TAKE_ENGINE.replace("TAG", tag).replace("{", "{{").replace("}", "}}")


def payload(engine: Path, unpack: str) -> bytes:
    """What TAKE_ENGINE reads: the size on a line, then the bytes."""
    data = gzipped(engine) if unpack == "gzip" else engine.read_bytes()
    return f"{len(data)}\n".encode() + data

