"""One host of a fleet running any measuring command: `ctxbench <command>
<its options> --host HOST -o FILE --no-store`, a process here per host.

Its engine work goes to the host through the --host session (core/ssh/
session.py: one connection, the engine copied into a private directory and
removed after, a watcher there for a dropped connection); it analyses and
writes its document here, and the fleet then records that document with
the fleet's record of the host, as it does for the fast way
(fleet/remote.py). A process per host, because a command's engine seam is
the process's own (one transport for the whole command).

Ctrl-C reaches the children with the fleet (one process group): each
stops its engine there and ends. SIGTERM to the fleet, or a host past
--timeout, sends SIGTERM to the child, which does the same; one that has
not ended in CLEAN_S is killed (its connection drops with it, and its
host's watcher cleans up). A fleet that dies outright (SIGKILL) takes its
children with it: each has SIGKILL as its parent-death signal, set
between fork and exec (core/children.py), and its host's watcher cleans
up there; the fleet's directory here is removed by the next fleet
(fleet/command.py)."""
from __future__ import annotations

import asyncio
import datetime
import os
import re
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Callable

from ctxbench.core import children
from ctxbench.core.errors import escaped
from ctxbench.core.ssh.hosts import Host, shown
from ctxbench.fleet import job as jobs
from ctxbench.fleet.remote import Outcome, Settings, key_file_problem

CLEAN_S = 35  # a child told to stop: its engine's stop (10 s) and its session's close (20 s), bounded


def host_spec(h: Host) -> str:
    """The host as --host takes it: [user@]address[:port]."""
    address = f"[{h.address}]" if ":" in h.address else h.address
    return (f"{h.user}@" if h.user else "") + address + (f":{h.port}" if h.port else "")


def key_problem(key: str) -> str | None:
    """Why an ssh config cannot name this key file (None: it can). Every
    other character is quoted (key_config); a line break would end the
    directive and begin another, and asyncssh expands ${NAME} in an
    IdentityFile with no way to escape it."""
    if re.search(r"[\x00-\x1f\x7f\x85\u2028\u2029]", key):
        return f"its key file {shown(key)} has a control character, which an ssh config cannot hold"
    if "${" in key:
        return f"its key file {shown(key)} holds '${{', which an ssh config reads as a variable"
    return None


def key_config(h: Host, folder: Path, stem: str, expansions: int = 1) -> str | None:
    """An ssh config that gives the host its inventory key, or None. The
    key's path is absolute and quoted as one word (quotes, #, spaces, %: as
    they are); key_problem says what cannot be written at all. It is read
    before the user's own (argv): asyncssh appends the IdentityFile of
    every file, and offers them in that order, so the inventory's key is
    the first offered (as the fast way's client_keys), and its
    IdentitiesOnly the one that holds. asyncssh expands the % of every
    file read so far again at the end of each file: read `expansions`
    times, each % is written as 2**expansions of them, read as the one."""
    if not h.key:
        return None
    key = os.path.abspath(h.key)
    if why := key_problem(key):
        raise ValueError(why)  # on_host says it as the host's row before it gets here
    path = folder / f"{stem}.ssh_config"
    # one shell-quoted word each, as asyncssh splits a line (shlex); IdentityFile's % doubled (%d, %h, ...)
    key = key.replace("%", "%" * 2 ** expansions)
    path.write_text(f"Host {shlex.quote(h.address)}\n  IdentityFile {shlex.quote(key)}\n"
                    "  IdentitiesOnly yes\n")
    return str(path)


def argv(job, h: Host, out: Path, configs: tuple[str, ...], folder: Path, stem: str) -> list[str]:
    # the host's ctxbench_cpu as --cpu where the command takes one and none was given (job.own_argv: one rule
    # with the Ansible collection's)
    a = [sys.executable, "-m", "ctxbench", *jobs.own_argv(job, h.cpu), "--host", host_spec(h), "-o", str(out),
         "--no-store"]
    first = [key_config(h, folder, stem, len(configs) + 1)] if h.key else []  # the key's first: key_config
    for c in first + list(configs):
        a += ["--ssh-config", c]
    return a


async def on_host(h: Host, job, s: Settings, report: Callable[[Host, str], None], folder: Path,
                  stem: str) -> Outcome:
    """Run the command for one host (`folder`: the fleet's private
    directory here, `stem`: the host's name there); never raises (but for
    cancellation, after stopping the child): its outcome says what
    happened."""
    out = Outcome(h)
    if h.key and (why := key_file_problem(h.key)):
        out.reason = why
        return out
    if h.key and (why := key_problem(os.path.abspath(h.key))):
        out.reason = f"{why} (ansible_ssh_private_key_file)"
        return out
    path = folder / f"{stem}.json"
    cmd = argv(job, h, path, s.ssh_config, folder, stem)
    env = dict(os.environ, CTXBENCH_ENGINES=str(s.build))
    report(h, f"running ctxbench {escaped(' '.join(job.argv))[:60]}")
    t0 = time.monotonic()
    out.started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")  # as the lifecycle dates a run
    # dies with the fleet (SIGKILL when this thread, the event loop's, ends), on the fleet's CPUs
    setup = children.child_setup(tuple(os.sched_getaffinity(0)), os.getpid())
    proc = await asyncio.create_subprocess_exec(*cmd, stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.DEVNULL,
                                                stderr=asyncio.subprocess.PIPE, env=env, preexec_fn=setup)
    try:
        _, err = await asyncio.wait_for(proc.communicate(), s.timeout_s)
    except asyncio.TimeoutError:
        await _stop(proc)
        out.reason = f"timed out after {s.timeout_s:g} s"
        return out
    except asyncio.CancelledError:
        await _stop(proc)
        raise
    finally:
        out.timings["command"] = time.monotonic() - t0
    lines = [x for x in err.decode("utf-8", "replace").splitlines() if x.strip()]
    last = lines[-1].removeprefix("ctxbench: ") if lines else f"exit status {proc.returncode}"
    written = path.is_file() and path.stat().st_size > 0
    # exit 1 with a document: some ids failed, the others' results are in it (its `failures`)
    if proc.returncode == 0 or (proc.returncode == 1 and written and "--host" not in last):
        if not written:
            out.reason = "the command wrote no results"
            return out
        out.output, out.ok = path.read_bytes(), True
        path.unlink()
        return out
    out.reason = last.removeprefix(f"--host {host_spec(h)}: ")
    return out


async def _stop(proc) -> None:
    """SIGTERM (the child stops its engine on the host and removes what it
    made), then SIGKILL past CLEAN_S (the host's watcher still cleans up)."""
    if proc.returncode is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), CLEAN_S)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
