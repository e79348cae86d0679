"""Finding and driving ctxbench-engine.

The engine streams JSON lines (a header with tool and environment, then one
result per benchmark). The front end never leaves it running: SIGTERM and
Ctrl-C stop it (it reaps its own children), and the engine also dies with
its parent (PR_SET_PDEATHSIG) if the front end is killed outright.

Every engine command goes through one Engine, the command's context: made
once per command from its options (cli.py: args.engine), passed down to
whatever starts or asks the engine, closed at the command's end. Its
transport (core/transports.py) is the engine here (Local), on another host
over SSH (--host: core/ssh/session.py, one connection for the whole
command), or what a real engine once said, replayed
(CTXBENCH_ENGINE_REPLAY=<dir>; CTXBENCH_ENGINE_RECORD=<dir> records it).
Nothing else in ctxbench starts an engine."""
from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable

from ctxbench.core import clock, interrupts, transports
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


@dataclass(frozen=True)
class EngineOptions:
    """Engine options shared by the measuring commands (None: engine
    default). Typed down to Engine.stream, the one place that writes them
    as the engine's arguments."""
    cpu: int | None = None
    cross_cpu: int | None = None
    groups: int | None = None
    iterations: int | None = None
    min_sample_us: int | None = None
    n: int | None = None
    size: int | None = None
    stride: int | None = None
    no_idle: bool = False
    warmup_ms: int | None = None
    task_scale: float | None = None  # tasks/ and irq/ ids: size of each task
    extra: tuple[str, ...] = ()

    def args(self) -> list[str]:
        a: list[str] = []
        for flag, val in (("--cpu", self.cpu), ("--cross-cpu", self.cross_cpu), ("--groups", self.groups),
                          ("--iterations", self.iterations), ("--min-sample-us", self.min_sample_us),
                          ("--n", self.n), ("--size", self.size), ("--stride", self.stride),
                          ("--warmup-ms", self.warmup_ms), ("--task-scale", self.task_scale)):
            if val is not None:
                a += [flag, str(val)]
        if self.no_idle:
            a.append("--no-idle")
        return a + list(self.extra)


class Engine:
    """One command's engine: where its commands go (the engine here, the
    --host's over one SSH session, or a recording replayed or written),
    the CPUs it may use, and what it was asked once (its host's
    environment record, its presets). Made once per command from the
    parsed options (cli.py: args.engine), passed down to whatever starts
    or asks the engine, and closed at the command's end: nothing of a
    --host session is left on the host."""

    def __init__(self, host=None, ssh_config: tuple[str, ...] = ()):
        """`host`: a core.ssh.hosts.Host for --host (its session opens on
        the first engine command), or None: the engine runs here."""
        # The CPUs this process may use, taken before it ever moves itself
        # (stream() moves it off the measured CPU): the engine inherits the
        # front end's affinity and picks its default CPU from it, so it is
        # always started with this set.
        self.allowed_here = frozenset(os.sched_getaffinity(0))
        self.host = host
        self.clock = clock.Clock.from_environment()  # the command's clock, replayed beside the engine's answers
        self.session = None
        if host is not None:
            from ctxbench.core.ssh import engines, session
            self.session = session.Session(host, engines.default_dir(), ssh_config)
        self._transport: transports.Transport | None = None
        self._housekeeping: dict = {}
        self._host_env: dict | None = None
        self._presets: dict | None = None

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """The command's end: its clock's recorded readings saved; the --host
        session ended, nothing of it left on the host, or one warning says
        what may be."""
        self.clock.save()
        s, self.session, self._host_env = self.session, None, None
        if s is not None:
            left = s.close()
            if left:
                print(f"warning: on {escaped(s.host.name)}: {escaped(left)}", file=sys.stderr)

    def remote(self):
        """The SSH session of --host, or None (the engine runs here)."""
        return self.session

    def transport(self) -> transports.Transport:
        """Where engine commands go, decided on the first: the host of
        --host, replayed (no engine starts, whatever CTXBENCH_ENGINE names),
        recorded while the real engine runs, or the engine here. One
        replaying or recording transport for the command: it counts the
        calls made with the same arguments."""
        if self.session is not None:
            return self.session
        if self._transport is None:
            replay, record = os.environ.get("CTXBENCH_ENGINE_REPLAY"), os.environ.get("CTXBENCH_ENGINE_RECORD")
            if replay:
                self._transport = transports.Recorded(Path(replay))
            elif record:
                self._transport = transports.Recording(transports.Local(engine_path()), Path(record))
            else:
                self._transport = transports.Local(engine_path())
        return self._transport

    def host_text(self, path: str) -> str:
        """A text file of the machine the engine runs on (its /proc/kallsyms):
        here, or on the --host; '' where it cannot be read."""
        if self.session is not None:
            return self.session.read(path)
        try:
            with open(path) as f:
                return f.read()
        except OSError:
            return ""

    def host_environment(self) -> dict:
        """The environment record of the host the engine runs on (asked once
        per command there; this process's own facts are read directly)."""
        if self._host_env is None:
            self._host_env = self.environment()
        return self._host_env

    def allowed_cpus(self) -> frozenset[int]:
        """The CPUs the engine may use: this process's, or on --host, the
        host's (from its engine's environment record)."""
        if self.session is None:
            return self.allowed_here
        from ctxbench.core import model
        cpus = model.Document(self.host_environment()).environment.allowed_cpus
        if not isinstance(cpus, list) or not cpus or not all(isinstance(c, int) for c in cpus):
            raise UserError(f"--host {escaped(self.host.name)}: its engine did not say which CPUs it may use",
                            code=1)
        return frozenset(cpus)

    def measured_cpu(self, cpu: int | None) -> int:
        """The CPU the engine measures on: `cpu` (--cpu), else the default,
        the highest allowed CPU. The one place the front end decides it;
        the engine's sched_ctl.c default_cpu() applies the same rule when
        it is given no --cpu, but stream() always gives it one, so the
        two cannot disagree."""
        return cpu if cpu is not None else max(self.allowed_cpus())

    def second_cpu(self, measured: int) -> int | None:
        """The default second CPU beside `measured`: the highest other
        allowed one (sched_ctl.c default_cpu2), None with one allowed."""
        others = self.allowed_cpus() - {measured}
        return max(others) if others else None

    def _off_measured_cpu(self, cpu: int) -> None:
        """Move the front end (it reads the stream and redraws progress) to the
        other allowed CPUs while the engine measures; where none is left, say so
        (housekeeping() goes into every results file)."""
        rest = self.allowed_here - {cpu}
        self._housekeeping.update(measured_cpu=cpu, front_end_cpus=sorted(rest or self.allowed_here),
                                  shares_measured_cpu=not rest)
        if rest:
            try:
                os.sched_setaffinity(0, rest)
            except OSError:
                self._housekeeping.update(front_end_cpus=sorted(self.allowed_here), shares_measured_cpu=True)

    def _over_ssh(self, cpu: int) -> None:
        self._housekeeping.update(
            measured_cpu=cpu, front_end_cpus=[], shares_measured_cpu=False, engine_host=self.host.name,
            transport="ssh", front_end_host=socket.gethostname(),
            front_end="over SSH: none of its work runs in the engine's processes on the measured host (the same "
                      "machine only where front_end_host is the environment's hostname)")

    def housekeeping(self) -> dict:
        """Where the front end ran while the engine measured (empty before),
        with the CPU it measured on (measured_cpu)."""
        return dict(self._housekeeping)

    def stream(self, ids: Iterable[str], opts: EngineOptions, on_header: Callable[[dict], None],
               on_result: Callable[[dict], None], *, points: str | None = None, interleave: bool = False,
               on_progress: Callable[[dict], None] | None = None, deadline_s: float | None = None,
               on_failure: Callable[[list[dict], list[str], int], set[str]] | None = None,
               on_failed_job: Callable[[dict], None] | None = None) -> bool:
        """Measure `ids` with `opts` (`points`: a sweep's size:stride list;
        `interleave`: group g of every id in round g) and call back per line;
        see _streamed. The measured CPU is decided here, before the engine
        starts (on a --host, asking it later ran the engine's environment
        probe there beside the first measurement), and always given."""
        cpu = self.measured_cpu(opts.cpu)
        args = ["run", *ids, *(["--points", points] if points is not None else []),
                *replace(opts, cpu=cpu).args(), *(["--interleave"] if interleave else []), "--jsonl"]
        return _streamed(self, args, cpu, _Read(on_header, on_result, on_progress, on_failed_job), deadline_s,
                         on_failure)

    def run_json(self, args: Iterable[str], timeout_s: float = 120) -> object:
        """Run an engine command that prints one JSON document (list, env,
        which, exec, probe)."""
        args = list(args)
        interrupts.check()
        try:
            p = self.transport().run(args, timeout_s=timeout_s)
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

    def exec_json(self, args: list[str], timeout_s: float) -> object:
        """run_json for a command that starts a program on CPUs of its own
        (exec): here, the engine is started with every allowed CPU (the
        front end's own affinity restored after)."""
        if self.session is not None:
            return self.run_json(args, timeout_s)
        before = os.sched_getaffinity(0)
        os.sched_setaffinity(0, self.allowed_here)
        try:
            return self.run_json(args, timeout_s)
        finally:
            os.sched_setaffinity(0, before)

    def build(self) -> str:
        """The engine this front end starts and how it was built, in one line
        (`ctxbench --version`); why not, where it cannot be asked."""
        try:
            where = (f"--host {escaped(self.host.name)}" if self.session is not None else
                     "a recording" if os.environ.get("CTXBENCH_ENGINE_REPLAY") else escaped(engine_path()))
            tool = self.run_json(["--version"])
        except UserError as e:  # also an executable file the kernel will not run (core/transports.py)
            return f"not available: {escaped(e.why)}"
        if not isinstance(tool, dict):
            return f"{where} printed no version record"
        return _build_line(tool) + f" at {where}"

    def list_benchmarks(self, all_: bool = False) -> list[dict]:
        args = ["list", "--json"] + (["--all"] if all_ else [])
        return _shaped(self.run_json(args), list, dict, args)

    def presets(self) -> dict[str, dict]:
        """The suite presets (groups, iterations, min_sample_us by name): the
        engine holds them, so run-suite on a board and `ctxbench run` agree.
        Asked once per command."""
        if self._presets is None:
            self._presets = _shaped(self.run_json(["presets", "--json"]), dict, dict, ["presets", "--json"])
            missing = sorted({"quick", "default", "full"} - set(self._presets))
            if missing:
                raise UserError(f"the engine's presets lack {', '.join(missing)}: not a ctxbench engine", code=1)
        return self._presets

    def environment(self) -> dict:
        from ctxbench.core import model
        env = self.run_json(["env"])
        if not isinstance(env, dict) or not model.Document(env).environment.as_dict():
            raise UserError("the engine's env printed no environment record: not a ctxbench engine", code=1)
        return env


def _shaped(doc: object, outer: type, inner: type, args: list[str]):
    """An engine document of the shape its command gives (a list or an
    object of objects); one line for another program's JSON."""
    items = doc if isinstance(doc, list) else doc.values() if isinstance(doc, dict) else None
    if not isinstance(doc, outer) or items is None or not all(isinstance(x, inner) for x in items):
        raise UserError(f"the engine's answer to {' '.join(args)} is not the list it gives: not a ctxbench engine"
                        if outer is list else f"the engine's answer to {' '.join(args)} is not the record it gives: "
                        "not a ctxbench engine", code=1)
    return doc


def _build_line(tool: dict) -> str:
    """The engine's version record in one line: version, arch, compiler,
    static or not, libraries."""
    b = tool.get("build") if isinstance(tool.get("build"), dict) else {}
    libs = b.get("libraries") if isinstance(b.get("libraries"), dict) else {}
    parts = [str(b.get("arch") or "unknown arch"), str(b.get("compiler") or "unknown compiler"),
             "static" if b.get("static") else "dynamic"]
    # hwloc's version is the build's; zlib's and libcrypto's are the libraries' (libcrypto's names itself)
    named = {**{k: v for k, v in libs.items() if k != "note"}, "hwloc": b.get("hwloc")}
    parts += [v if k == "libcrypto" else f"{k} {v}" for k, v in named.items() if isinstance(v, str)]
    return escaped(f"{tool.get('name', 'ctxbench-engine')} {tool.get('version', '?')} ({', '.join(parts)})")


class _Terminated(BaseException):
    """SIGTERM while the engine runs: not an error of any step it passes
    through (the --host session's calls pass errors on as one line)."""


def _on_term(signum, frame):
    raise _Terminated()


@dataclass
class _Read:
    """What a run's stdout said, each line passed on as it comes."""
    on_header: Callable[[dict], None]
    on_result: Callable[[dict], None]
    on_progress: Callable[[dict], None] | None
    on_failed_job: Callable[[dict], None] | None
    errors: list[str] = field(default_factory=list)  # lines that were no JSON
    failed: list[dict] = field(default_factory=list)
    got_header: bool = False
    answered: int = 0  # result lines so far, with or without a result

    def take(self, line: str) -> None:
        line = line.strip()
        if not line:
            return
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            self.errors.append(f"unreadable engine output: {escaped(line[:120])}")
            return
        if msg.get("type") == "header":
            self.got_header = True
            self.on_header(msg)
        elif msg.get("type") == "result" and msg.get("result") is not None:
            self.answered += 1
            self.on_result(msg["result"])
        elif msg.get("type") in ("result", "failure"):
            self.failed.append({"position": self.answered, **{k: msg[k] for k in ("id", "error")
                                                              if isinstance(msg.get(k), str)}})
            self.answered += 1
            if self.on_failed_job:  # as it comes, for callers that pair results with jobs by position
                self.on_failed_job(self.failed[-1])
        elif msg.get("type") == "progress" and self.on_progress:
            self.on_progress(msg)


def _streamed(eng: Engine, args: list[str], cpu: int, read: _Read, deadline_s: float | None,
              on_failure: Callable[[list[dict], list[str], int], set[str]] | None) -> bool:
    """Run the engine with `args` (a run, with --jsonl; `cpu` the CPU it
    measures on, recorded in eng's housekeeping) and pass each line to
    `read` (progress lines come from interleaved runs, before their
    results). With `deadline_s`, the engine is stopped after that many
    seconds (the results it wrote before are kept): returns False if it
    was, else True.

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
    `read.on_failed_job` hears of each failed job as its line arrives."""
    interrupts.check()  # a Ctrl-C whose exception was lost on the way (core/interrupts.py)
    via = eng.transport()
    proc, old, before = _started(eng, via, args, cpu)
    # a replayed run is cut where the recorded one was (its "stopped"), not by the replay's pace
    live = not isinstance(via, transports.Recorded)
    timer = threading.Timer(max(deadline_s, 0.0), proc.terminate) if deadline_s is not None and live else None
    if timer:
        timer.daemon = True
        timer.start()
    try:
        for line in proc.lines():
            read.take(line)
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
    _ended(read, status, err, on_failure)
    return True


def _started(eng: Engine, via: transports.Transport, args: list[str], cpu: int):
    """The engine started with `args`, SIGTERM an interruption while it
    runs, and the front end off the measured CPU: (the started engine,
    SIGTERM's handler before, this process's CPUs before)."""
    old = signal.signal(signal.SIGTERM, _on_term)
    before = os.sched_getaffinity(0)
    if eng.session is None:
        os.sched_setaffinity(0, eng.allowed_here)  # the engine sees every allowed CPU
    try:
        proc = via.start(args)
    except BaseException as e:
        signal.signal(signal.SIGTERM, old)
        os.sched_setaffinity(0, before)
        if isinstance(e, _Terminated):  # SIGTERM while it started (over SSH: a round trip, or the copy)
            raise KeyboardInterrupt from None
        raise
    if eng.session is not None:
        eng._over_ssh(cpu)
    else:
        eng._off_measured_cpu(cpu)
    return proc, old, before


def _ended(read: _Read, status: int, err: str,
           on_failure: Callable[[list[dict], list[str], int], set[str]] | None) -> None:
    """After the engine's end: an interruption, a failure that stops the
    command, or the failures passed on and the rest of what it said as
    warnings."""
    if status in _INTERRUPTED:  # Ctrl-C or kill reached the engine first: the run was interrupted,
        raise KeyboardInterrupt  # not an id that failed (its partial results are not a run)
    interrupts.check()
    # lines of stdout that were not JSON come first: said as warnings, never the last word
    lines = read.errors + [l.replace("ctxbench-engine: ", "", 1) for l in err.splitlines() if l.strip()]
    if (status != 0 or read.failed) and not (on_failure and read.got_header):
        msg = lines[-1] if lines else f"engine exited with status {status}"
        raise UserError(msg, code=1)
    used = on_failure(read.failed, lines, status) if on_failure and (read.failed or status) else set()
    for l in lines:
        if l not in used:
            print(f"warning: {l}", file=sys.stderr)


# how an engine ends when a signal meant for the whole run reached it (reap.c: 128 + signal)
_INTERRUPTED = frozenset({128 + s for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)} |
                         {-s for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)})

