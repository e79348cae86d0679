"""Which engine a host gets: the static build for its architecture (what
`uname -m` says there), from the build directory `make engine-x86_64`,
`make engine-aarch64` and `make engine-armv7` fill. The engine needs
nothing on the host: no Python, no libraries."""
from __future__ import annotations

import functools
import os
import zlib
from pathlib import Path
from types import MappingProxyType

from ctxbench.core import locations

# uname -m -> the build's directory (mk/static.mk, mk/arm.mk)
ARCH_DIRS = MappingProxyType({"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64",
                              "armv7l": "armv7", "armv8l": "armv7", "armv7": "armv7"})
MAKE_TARGET = MappingProxyType({"x86_64": "engine-x86_64", "aarch64": "engine-aarch64", "armv7": "engine-armv7"})
ENGINE_MAX = 256 << 20  # bytes: a static engine is a few MiB; it is read whole (and gzipped) to be copied


class NoEngine(Exception):
    """This host cannot be given an engine; the text says why."""


def default_dir() -> Path:
    """Where the static engines are: $CTXBENCH_ENGINES (a fleet passes its
    --engines on), else the build/ of the checkout this package runs from,
    else the engines the installed package carries (the wheel: `make
    wheel`)."""
    if os.environ.get("CTXBENCH_ENGINES"):
        return Path(os.environ["CTXBENCH_ENGINES"])
    return locations.static_dir()


def packaged() -> Path:
    """The engines inside the installed package: ctxbench/engines/<arch>/."""
    return locations.packaged()


def here() -> str | None:
    """This machine's architecture as the engines' folders name it."""
    return ARCH_DIRS.get(os.uname().machine)


@functools.lru_cache(maxsize=None)
def gzipped(path: Path) -> bytes:
    """The engine as gzip (fast level: once per architecture and run)."""
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    return z.compress(path.read_bytes()) + z.flush()


# the ELF machine (e_machine) of each build's engine: a file there that is
# not this architecture's engine is no engine for it
ELF_MACHINE = MappingProxyType({"x86_64": 62, "aarch64": 183, "armv7": 40})
ELF_NAMES = MappingProxyType({62: "an x86-64", 183: "an aarch64", 40: "a 32-bit ARM", 3: "an x86 (32-bit)"})


def _elf_machine(path: Path) -> int | None:
    """The ELF file's e_machine, None where it is no ELF file."""
    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError:
        return None
    if len(head) < 20 or head[:4] != b"\x7fELF" or head[5] not in (1, 2):
        return None
    return int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")


def _build_it(sub: str, build: Path) -> str:
    """How to build the engine for `sub`, for a message."""
    target = MAKE_TARGET[sub]
    if build == packaged():  # an installed package: make is a checkout's
        return (f"this installation carries none: build it in a ctxbench checkout with `make {target}` "
                "and set CTXBENCH_ENGINES to that checkout's build/")
    return f"build it with `make {target}`"


def for_arch(machine: str, build: Path) -> Path:
    """The engine for a host whose `uname -m` says `machine`: the static
    build for that architecture in `build`, checked to be one (an ELF
    executable for that machine); NoEngine says why not and how to build
    it."""
    sub = ARCH_DIRS.get(machine.strip())
    if sub is None:
        raise NoEngine(f"no engine for architecture '{machine.strip()[:40]}' (ctxbench builds x86_64, aarch64, "
                       "armv7)")
    path = build / sub / "ctxbench-engine"
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise NoEngine(f"no {sub} engine is built here ({path}): {_build_it(sub, build)}")
    size = path.stat().st_size
    if size > ENGINE_MAX:  # read whole to be copied: a sparse file of GiBs costs no disk, but memory
        raise NoEngine(f"{path} is no {sub} engine: {size} bytes, larger than any engine (ctxbench copies at most "
                       f"{ENGINE_MAX >> 20} MiB)")
    got = _elf_machine(path)
    if got != ELF_MACHINE[sub]:
        what = ("not an executable (ELF) file" if got is None else
                f"{ELF_NAMES.get(got, f'an ELF machine {got}')} executable")
        raise NoEngine(f"no {sub} engine is built here ({path} is {what}): {_build_it(sub, build)}")
    return path


# The first line of every script of ours on a host (the session's watcher
# and engine commands): it undoes what the account's start-up may have set.
# errexit would end a script at a kill of a group gone, before rm -rf;
# xtrace would say our lines on stderr; nounset, noclobber: lines of ours
# they would break. Then the functions the start-up may define that hide what our
# scripts call by name: a ~/.bashrc `rm() { return 1; }` or `cd() {...}`
# left the directory and its engine there for good (unset -f: the builtin
# or the program is found again).
OPTIONS = "set +Ceux"
CALLED = ("cd rm mktemp printf echo command kill sleep cat grep mv chmod head gzip uname timeout sh sed "
          "wait read trap exec")
SETS = f"{OPTIONS}; unset -f {CALLED}"

# The shell lines that take the engine on a host, in the watcher of the
# --host session (core/ssh/session.py, the fleet's fast way's too), after it
# has made its directory $d: say `TAG <uname -m> $d <gzip|plain>`, read the
# engine's size on a line and then its bytes (gzipped where the host has
# gzip: a third of the bytes), make it executable and see that it runs
# there (bounded: `timeout` ends an engine that does not answer, and what
# it started, its group); on any failure remove $d and exit 98 (99: it
# cannot run there, said on stderr: a directory where nothing runs, a
# noexec file system, an engine that does not run on this machine or does
# not answer). printf, not echo: a
# backslash in $d is printed as it is.
_TAKE_ENGINE = r"""if command -v gzip >/dev/null; then z=gzip; else z=plain; fi
printf 'TAG %s %s %s\n' "$(uname -m)" "$d" "$z"
read n || { rm -rf "$d"; exit 98; }
if [ $z = gzip ]; then head -c "$n" | gzip -dc > "$d/ctxbench-engine"; else head -c "$n" > "$d/ctxbench-engine"; fi \
  || { rm -rf "$d"; exit 98; }
chmod 700 "$d/ctxbench-engine" || { rm -rf "$d"; exit 98; }
timeout -k 1 VERSION_S "$d/ctxbench-engine" --version > /dev/null 2> "$d/err"; s=$?
if [ $s -eq 124 ] || [ $s -eq 137 ]; then
  printf 'the engine did not answer --version in VERSION_S s there (is it a ctxbench engine?)\n' >&2; rm -rf "$d"; exit 99
fi
if [ $s -ne 0 ]; then
  e=; while IFS= read -r l; do [ -n "$l" ] && e=$l; done < "$d/err"
  if printf '#!/bin/sh\n' > "$d/probe" && chmod 700 "$d/probe" && "$d/probe" 2> /dev/null; then
    printf 'the engine does not run on this machine (uname -m: %s): %s\n' "$(uname -m)" "${e:-no reason given}" >&2
  else
    printf 'the engine cannot run in %s (a noexec file system? set TMPDIR there)\n' "$d" >&2
  fi
  rm -rf "$d"; exit 99
fi
"""


VERSION_S = 10  # an engine's --version there: a ctxbench engine answers at once


def take_engine(tag: str) -> str:
    """Those lines, saying `tag`, as a piece of a str.format template (its
    braces doubled: the scripts are formatted with their own fields)."""
    return _TAKE_ENGINE.replace("TAG", tag).replace("VERSION_S", str(VERSION_S)).replace("{", "{{").replace("}", "}}")


def payload(engine: Path, unpack: str) -> bytes:
    """What TAKE_ENGINE reads: the size on a line, then the bytes."""
    data = gzipped(engine) if unpack == "gzip" else engine.read_bytes()
    return f"{len(data)}\n".encode() + data

