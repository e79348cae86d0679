"""One launch of a peer, through the engine seam (core/engine.py): the
engine's `exec` starts the program on its CPUs, bounds its time and its
output, and says how it ended, the context switches its whole process tree
made (getrusage through wait4) and each CPU's busy time around it
(engine/src/cli/exec.c). So a peer runs the same way here and on a
--host, and the record of a launch is the engine's, as every measurement is.

Nothing a peer starts outlives its launch: the peer leads its own process
group, which the engine kills after it exits (anything it left behind), on
a timeout, and from its signal handler (Ctrl-C, SIGTERM, the front end's
death); what left the group (setsid, setpgid) comes to the engine, the
launch's child subreaper, and is killed after it. A descendant that keeps
the peer's output open does not hold the launch: once the peer has exited,
its output is read for DRAIN_MS more.

Not reached: the tree of an engine killed outright by SIGKILL (its direct
child dies with it); the front end stops an engine with SIGTERM first
(core/transports.py)."""
from __future__ import annotations

import signal
from dataclasses import dataclass

from ctxbench.core.engine import Engine
from ctxbench.core.errors import UserError, escaped

MAX_OUTPUT_BYTES = 1 << 20  # a peer printing more is not the peer we know (its output is a few lines)
DRAIN_MS = 1000             # after the peer exits, the most to wait for the rest of its output
VERSION_S = 10.0            # the most a program's --version may take
# past a launch's own timeout: the engine's drain, its wait for the killed group (5 s), a round trip
ENGINE_SLACK_S = 30


class PeerFailed(UserError):
    """A peer that could not start, failed, hung or printed too much (its row only)."""

    def __init__(self, message: str):
        super().__init__(message, code=1)


@dataclass(frozen=True)
class Launch:
    argv: tuple[str, ...]
    cpus: tuple[int, ...]
    output: str          # stdout and stderr, as the peer interleaved them
    wall_s: float
    voluntary: int       # ru_nvcsw of the peer's tree
    involuntary: int     # ru_nivcsw
    cpu_busy_s: tuple[float | None, ...]  # each CPU's busy time over the launch (/proc/stat), as `cpus`


def find(eng: Engine, tools: list[str]) -> dict[str, str | None]:
    """{tool: its path on the machine of the command's engine `eng`, or None}."""
    if not tools:
        return {}
    got = eng.run_json(["which", *tools])
    if not isinstance(got, dict):
        raise UserError("the engine's 'which' printed no record", code=1)
    return {t: got[t] if isinstance(got.get(t), str) else None for t in tools}


def version(eng: Engine, argv: list[str]) -> str:
    """The first line the program prints for its version, or why not."""
    try:
        got = _exec(eng, argv, tuple(sorted(eng.allowed_cpus())), VERSION_S)
    except PeerFailed as e:
        return f"unknown ({escaped(e.why)})"
    if got.get("why"):
        return f"unknown ({escaped(str(got['why']))})"
    for line in str(got.get("output", "")).splitlines():
        if line.strip() and "usage" not in line.lower():
            return escaped(line.strip()[:200])
    return "unknown"


def _on_term(signum, frame):
    raise KeyboardInterrupt  # SIGTERM is an interruption, as in the engine's stream (core/engine.py)


def on_sigterm_interrupt():
    """Install SIGTERM as an interruption (the command's own clean-up, exit
    130); returns the handler it replaced."""
    return signal.signal(signal.SIGTERM, _on_term)


def run(eng: Engine, argv: list[str], cpus: tuple[int, ...], timeout_s: float) -> Launch:
    """Run `argv` on `cpus` within `timeout_s`, by the command's engine
    `eng`; a PeerFailed on every way it can go wrong (the caller keeps the
    other peers' rows)."""
    got = _exec(eng, argv, cpus, timeout_s)
    if got.get("why"):
        raise PeerFailed(escaped(str(got["why"])))
    # a peer in a process group of its own is not reached by a Ctrl-C meant for the run (the engine is, and
    # ends interrupted: core/engine.Engine.run_json): whatever status the peer gave is its own failure
    status, out = got.get("status"), str(got.get("output", ""))
    if status != 0:
        said = [ln.strip() for ln in out.splitlines() if ln.strip()]
        last = said[-1] if said else ""
        raise PeerFailed(f"exit status {status}" + (f": {escaped(last[:160])}" if last else ""))
    busy = got.get("cpu_busy_s") if isinstance(got.get("cpu_busy_s"), list) else []
    try:
        return Launch(tuple(argv), tuple(cpus), out, float(got["wall_s"]), int(got["voluntary"]),
                      int(got["involuntary"]),
                      tuple(b if isinstance(b, (int, float)) else None for b in busy) or (None,) * len(cpus))
    except (KeyError, TypeError, ValueError):
        raise UserError("the engine's 'exec' record lacks its wall time or switch counts", code=1)


def _exec(eng: Engine, argv: list[str], cpus: tuple[int, ...], timeout_s: float) -> dict:
    """The engine's record of one launch ({"status", "why", "output", ...});
    the engine sees every allowed CPU (the launcher itself leaves the
    peer's CPUs)."""
    args = ["exec", "--cpus", ",".join(map(str, cpus)), "--timeout-ms", str(max(1, round(timeout_s * 1000))),
            "--drain-ms", str(DRAIN_MS), "--max-output", str(MAX_OUTPUT_BYTES), "--", *argv]
    got = eng.exec_json(args, timeout_s=timeout_s + DRAIN_MS / 1000 + ENGINE_SLACK_S)
    if not isinstance(got, dict):
        raise UserError("the engine's 'exec' printed no record", code=1)
    return got
