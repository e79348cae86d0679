"""Finding and driving ctxbench-engine.

The engine streams JSON lines (a header with tool and environment, then one
result per benchmark). The front end never leaves it running: SIGTERM and
Ctrl-C stop it (it reaps its own children), and the engine also dies with
its parent (PR_SET_PDEATHSIG) if the front end is killed outright.

Every engine command goes through transport() (core/transports.py): the
engine here (Local), on another host over SSH (--host: core/ssh/session.py,
one connection for the whole command), or what a real engine once said,
replayed (CTXBENCH_ENGINE_REPLAY=<dir>; CTXBENCH_ENGINE_RECORD=<dir>
records it). Nothing else in ctxbench starts an engine."""
from __future__ import annotations

import json
import os
import signal
import socket
import threading
import sys
from pathlib import Path
from typing import Callable, Iterable

from ctxbench.core import interrupts, transports
from ctxbench.core.errors import UserError, escaped
from ctxbench.core.locations import checkout, packaged


def _executable(path: Path) -> bool:
    """A regular file we may run (a directory passes os.access(X_OK))."""
    return path.is_file() and os.access(path, os.X_OK)


def engine_path() -> str:
    """The engine this front end starts here: $CTXBENCH_ENGINE; else its
    own, and only its own: run from a checkout, the checkout's build (`make
    engine`); installed, the static engine the package carries for this
    machine. Never one on PATH or found by searching the directories above
    the package or the current one (locations.checkout()): an engine that
    is missing or not executable is one line saying so."""
    env = os.environ.get("CTXBENCH_ENGINE")
    if env:
        if not _executable(Path(env)):
            raise UserError(f"CTXBENCH_ENGINE={escaped(env)} is not an executable file")
        return os.path.abspath(env)  # the file checked: a bare name would be looked up on PATH by exec
    root = checkout()
    if root is not None:
        cand, fix = root / "build" / "native" / "ctxbench-engine", "run 'make engine'"
    else:
        from ctxbench.core.ssh import engines
        arch = engines.here()  # an installed wheel: the static engine it carries for this machine
        if arch is None:
            raise UserError(f"ctxbench-engine not found: this package carries no engine for {os.uname().machine} "
                            f"(in {escaped(str(packaged()))}); set CTXBENCH_ENGINE")
        cand, fix = packaged() / arch / "ctxbench-engine", "reinstall ctxbench"
    if _executable(cand):
        return str(cand)
    if cand.exists():
        raise UserError(f"this package's engine {escaped(str(cand))} is not an executable file: "
                        f"{'make it one (chmod +x) or ' if cand.is_file() else ''}{fix}, or set CTXBENCH_ENGINE")
    raise UserError(f"ctxbench-engine not found: {escaped(str(cand))} is not there: {fix} or set CTXBENCH_ENGINE")


# The host the engine runs on when the command was given --host (its SSH
# session, opened on the first engine command, closed at the command's end).
_remote = None


def use_host(host, ssh_config: tuple[str, ...] = ()) -> None:
    """Run this command's engine work on `host` (a core.ssh.hosts.Host)."""
    global _remote
    import atexit
    from ctxbench.core.ssh import engines, session
    close_host()
    _remote = session.Session(host, engines.default_dir(), ssh_config)
    atexit.register(close_host)


def remote():
    """The SSH session of --host, or None (the engine runs here)."""
    return _remote


def close_host() -> None:
    """End the --host session: nothing of it is left on the host, or one
    warning says what may be."""
    global _remote, _host_env
    s, _remote, _host_env = _remote, None, None
    if s is not None:
        left = s.close()
        if left:
            print(f"warning: on {escaped(s.host.name)}: {escaped(left)}", file=sys.stderr)


def host_text(path: str) -> str:
    """A text file of the machine the engine runs on (its /proc/kallsyms):
    here, or on the --host; '' where it cannot be read."""
    if _remote is not None:
        return _remote.read(path)
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def transport() -> transports.Transport:
    """Where engine commands go, as the command and the environment say
    now: the host of --host, replayed (no engine starts, whatever
    CTXBENCH_ENGINE names), recorded while the real engine runs, or the
    engine here."""
    if _remote is not None:
        return _remote
    replay = os.environ.get("CTXBENCH_ENGINE_REPLAY")
    if replay:
        return _kept(("replay", replay), lambda: transports.Recorded(Path(replay)))
    record = os.environ.get("CTXBENCH_ENGINE_RECORD")
    if record:
        path = engine_path()
        return _kept(("record", record, path), lambda: transports.Recording(transports.Local(path), Path(record)))
    return transports.Local(engine_path())


# One replaying or recording transport per folder for the process: each
# counts the calls made with the same arguments.
_transports: dict[tuple, transports.Transport] = {}


def _kept(which: tuple, make: Callable[[], transports.Transport]) -> transports.Transport:
    if which not in _transports:
        _transports[which] = make()
    return _transports[which]


def forget_transports() -> None:
    """Start counting calls again (a test that runs commands in-process)."""
    global _presets
    _transports.clear()
    _presets = None
    close_host()


# The CPUs this process may use, taken once, before it ever moves itself:
# the engine inherits the front end's affinity and picks its default CPU
# from it, so the engine is always started with this set.
ALLOWED = frozenset(os.sched_getaffinity(0))
_housekeeping: dict = {}


_host_env: dict | None = None


def host_environment() -> dict:
    """The environment record of the host the engine runs on (asked once
    per command there; this process's own facts are read directly)."""
    global _host_env
    if _host_env is None:
        _host_env = environment()
    return _host_env


def allowed_cpus() -> frozenset[int]:
    """The CPUs the engine may use: this process's, or on --host, the
    host's (from its engine's environment record)."""
    if _remote is None:
        return ALLOWED
    from ctxbench.core import model
    cpus = model.Document(host_environment()).environment.allowed_cpus
    if not isinstance(cpus, list) or not cpus or not all(isinstance(c, int) for c in cpus):
        raise UserError(f"--host {escaped(_remote.host.name)}: its engine did not say which CPUs it may use", code=1)
    return frozenset(cpus)


def measured_cpu(args: list[str]) -> int:
    """The CPU the engine measures on: --cpu, or its default (the highest
    allowed CPU, engine/src/core/sched_ctl.c default_cpu)."""
    if "--cpu" in args:
        i = args.index("--cpu")
        if i + 1 < len(args) and args[i + 1].isdigit():
            return int(args[i + 1])
    return max(allowed_cpus())


def _off_measured_cpu(cpu: int) -> None:
    """Move the front end (it reads the stream and redraws progress) to the
    other allowed CPUs while the engine measures; where none is left, say so
    (housekeeping() goes into every results file)."""
    rest = ALLOWED - {cpu}
    _housekeeping.update(measured_cpu=cpu, front_end_cpus=sorted(rest or ALLOWED),
                         shares_measured_cpu=not rest)
    if rest:
        try:
            os.sched_setaffinity(0, rest)
        except OSError:
            _housekeeping.update(front_end_cpus=sorted(ALLOWED), shares_measured_cpu=True)


def housekeeping() -> dict:
    """Where the front end ran while the engine measured (empty before)."""
    return dict(_housekeeping)


class _Terminated(BaseException):
    """SIGTERM while the engine runs: not an error of any step it passes
    through (the --host session's calls pass errors on as one line)."""


def _on_term(signum, frame):
    raise _Terminated()


def stream(args: Iterable[str], on_header: Callable[[dict], None],
           on_result: Callable[[dict], None],
           on_progress: Callable[[dict], None] | None = None, deadline_s: float | None = None,
           on_failure: Callable[[list[dict], list[str], int], set[str]] | None = None,
           on_failed_job: Callable[[dict], None] | None = None) -> bool:
    """Run the engine with `args` (plus --jsonl) and call back per line
    (progress lines come from interleaved runs, before their results).
    With `deadline_s`, the engine is stopped after that many seconds (the
    results it wrote before are kept): returns False if it was, else True.

    A job the engine could not measure comes as a result line without a
    result ({"result": null}, with its "id" and "error" where the engine
    says them). Without `on_failure` any failure stops the command (the
    engine's last error line). With it, a failure after the header is
    passed on: on_failure(failed, lines, status), where `failed` lists
    {"position", "id", "error"} per failed job (position: how many result
    lines came before it; id and error where the line says them), `lines`
    is what the engine said on stderr and `status` its exit status; it
    returns the lines it used (the rest are printed as warnings), so that
    the caller keeps what was measured and records what was not.
    `on_failed_job` hears of each failed job as its line arrives."""
    interrupts.check()  # a Ctrl-C whose exception was lost on the way (core/interrupts.py)
    args = [*args, "--jsonl"]
    via = transport()
    # the measured CPU before the engine starts: on a --host, asking it later ran the engine's
    # environment probe there beside the first measurement
    cpu = measured_cpu(args) if args[0] == "run" else None
    old = signal.signal(signal.SIGTERM, _on_term)
    before = os.sched_getaffinity(0)
    if _remote is None:
        os.sched_setaffinity(0, ALLOWED)  # the engine sees every allowed CPU
    try:
        proc = via.start(args)
    except BaseException as e:
        signal.signal(signal.SIGTERM, old)
        os.sched_setaffinity(0, before)
        if isinstance(e, _Terminated):  # SIGTERM while it started (over SSH: a round trip, or the copy)
            raise KeyboardInterrupt from None
        raise
    if args[0] == "run" and _remote is not None:
        _housekeeping.update(measured_cpu=cpu, front_end_cpus=[], shares_measured_cpu=False,
                             engine_host=_remote.host.name, transport="ssh", front_end_host=socket.gethostname(),
                             front_end="over SSH: none of its work runs in the engine's processes on the measured "
                                       "host (the same machine only where front_end_host is the environment's "
                                       "hostname)")
    elif args[0] == "run":
        _off_measured_cpu(cpu)
    errors: list[str] = []
    failed: list[dict] = []
    got_header = False
    answered = 0  # result lines so far, with or without a result

    # a replayed run is cut where the recorded one was (its "stopped"), not by the replay's pace
    live = not isinstance(via, transports.Recorded)
    timer = threading.Timer(max(deadline_s, 0.0), proc.terminate) if deadline_s is not None and live else None
    if timer:
        timer.daemon = True
        timer.start()
    try:
        for line in proc.lines():
            line = line.strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                errors.append(f"unreadable engine output: {escaped(line[:120])}")
                continue
            if msg.get("type") == "header":
                got_header = True
                on_header(msg)
            elif msg.get("type") == "result" and msg.get("result") is not None:
                answered += 1
                on_result(msg["result"])
            elif msg.get("type") in ("result", "failure"):
                failed.append({"position": answered, **{k: msg[k] for k in ("id", "error")
                                                         if isinstance(msg.get(k), str)}})
                answered += 1
                if on_failed_job:  # as it comes, for callers that pair results with jobs by position
                    on_failed_job(failed[-1])
            elif msg.get("type") == "progress" and on_progress:
                on_progress(msg)
        status, err = proc.end()
    except (KeyboardInterrupt, _Terminated):
        proc.stop()
        raise KeyboardInterrupt
    finally:
        if timer:
            timer.cancel()
        signal.signal(signal.SIGTERM, old)
        if proc.running():
            proc.stop()
        os.sched_setaffinity(0, before)
    if proc.stopped:
        return False
    if status in _INTERRUPTED:  # Ctrl-C or kill reached the engine first: the run was interrupted,
        raise KeyboardInterrupt  # not an id that failed (its partial results are not a run)
    interrupts.check()
    # lines of stdout that were not JSON come first: said as warnings, never the last word
    lines = errors + [l.replace("ctxbench-engine: ", "", 1) for l in err.splitlines() if l.strip()]
    if (status != 0 or failed) and not (on_failure and got_header):
        msg = lines[-1] if lines else f"engine exited with status {status}"
        raise UserError(msg, code=1)
    used = on_failure(failed, lines, status) if on_failure and (failed or status) else set()
    for l in lines:
        if l not in used:
            print(f"warning: {l}", file=sys.stderr)
    return True


# how an engine ends when a signal meant for the whole run reached it (reap.c: 128 + signal)
_INTERRUPTED = {128 + s for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)} | \
    {-s for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}


def run_json(args: Iterable[str], timeout_s: float = 120) -> object:
    """Run an engine command that prints one JSON document (list, env,
    which, exec)."""
    args = list(args)
    interrupts.check()
    try:
        p = transport().run(args, timeout_s=timeout_s)
    except TimeoutError as e:
        raise UserError(str(e), code=1)
    if p.status in _INTERRUPTED:  # Ctrl-C or kill reached the engine (and maybe not us: SIGINT ignored here)
        raise KeyboardInterrupt
    interrupts.check()
    if p.status != 0:
        last = (p.stderr.strip().splitlines() or [f"exit status {p.status}"])[-1]
        # the engine's 2 is its refusal of the arguments (docs/engine.md); any other status is its failure: 1,
        # never the engine's own number as ctxbench's
        raise UserError(last.replace("ctxbench-engine: ", "", 1), code=2 if p.status == 2 else 1)
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError:
        raise UserError(f"engine printed unreadable output for {' '.join(args)}", code=1)


def build() -> str:
    """The engine this front end starts and how it was built, in one line
    (`ctxbench --version`); why not, where it cannot be asked."""
    try:
        where = (f"--host {escaped(_remote.host.name)}" if _remote is not None else
                 "a recording" if os.environ.get("CTXBENCH_ENGINE_REPLAY") else escaped(engine_path()))
        tool = run_json(["--version"])
    except UserError as e:  # also an executable file the kernel will not run (core/transports.py)
        return f"not available: {escaped(e.why)}"
    if not isinstance(tool, dict):
        return f"{where} printed no version record"
    b = tool.get("build") if isinstance(tool.get("build"), dict) else {}
    libs = b.get("libraries") if isinstance(b.get("libraries"), dict) else {}
    parts = [str(b.get("arch") or "unknown arch"), str(b.get("compiler") or "unknown compiler"),
             "static" if b.get("static") else "dynamic"]
    # hwloc's version is the build's; zlib's and libcrypto's are the libraries' (libcrypto's names itself)
    named = {**{k: v for k, v in libs.items() if k != "note"}, "hwloc": b.get("hwloc")}
    parts += [v if k == "libcrypto" else f"{k} {v}" for k, v in named.items() if isinstance(v, str)]
    return escaped(f"{tool.get('name', 'ctxbench-engine')} {tool.get('version', '?')} ({', '.join(parts)})") + \
        f" at {where}"


def list_benchmarks(all_: bool = False) -> list[dict]:
    return run_json(["list", "--json"] + (["--all"] if all_ else []))  # type: ignore[return-value]


_presets: dict | None = None


def presets() -> dict[str, dict]:
    """The suite presets (groups, iterations, min_sample_us by name): the
    engine holds them, so run-suite on a board and `ctxbench run` agree."""
    global _presets
    if _presets is None:
        _presets = run_json(["presets", "--json"])  # type: ignore[assignment]
    return _presets  # type: ignore[return-value]


def environment() -> dict:
    return run_json(["env"])  # type: ignore[return-value]
