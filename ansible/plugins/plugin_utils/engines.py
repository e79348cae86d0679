"""The static engines the hosts get (ctxbench's own choice,
ctxbench.core.ssh.engines): their directory checked before any host is
contacted (ctxbench.bench.plan: it holds an engine for some architecture),
and the one for a host's `uname -m` once that is known
(ctxbench.bench.prepare)."""
from __future__ import annotations

from pathlib import Path

from ansible_collections.ctxbench.bench.plugins.plugin_utils.front_end import Failed


def _directory(engines: str | None) -> Path:
    from ctxbench.core.errors import shown
    from ctxbench.core.ssh import engines as built
    if not engines:
        return built.default_dir()
    if not Path(engines).is_dir():
        raise Failed(f"ctxbench_engines: {shown(engines)} is no directory")
    return Path(engines)


def checked(engines: str | None) -> str:
    """The engines' directory (`engines`, else ctxbench's own), or Failed
    where it holds no engine for any architecture."""
    from ctxbench.core.errors import shown
    from ctxbench.core.ssh import engines as built
    build = _directory(engines)
    found = []
    for arch in built.MAKE_TARGET:
        try:
            found.append(built.for_arch(arch, build))
        except built.NoEngine:
            continue
    if not found:
        what = "ctxbench_engines" if engines else "ctxbench"
        raise Failed(f"{what}: no static engine in {shown(str(build))} (one folder per architecture, "
                     f"{', '.join(f'{a}/ctxbench-engine' for a in built.MAKE_TARGET)}): build one with "
                     "`make engine-x86_64` (engine-aarch64, engine-armv7)")
    return str(build)


def for_host(arch: str, engines: str | None) -> str:
    """The static engine for a host whose `uname -m` says `arch`, or
    Failed saying why there is none and how to build it."""
    from ctxbench.core.errors import escaped
    from ctxbench.core.ssh import engines as built
    try:
        return str(built.for_arch(arch, _directory(engines)))
    except built.NoEngine as e:
        raise Failed(f"ctxbench: {escaped(str(e))}")
