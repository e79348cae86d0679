"""How an engine command reaches an engine (core/engine.py picks one).

Local starts the engine here that core/engine.engine_path() names (a
checkout's build/native, or the static engine an installed package
carries: never one found in a directory above it). Recorded replays what a
real engine said to the same arguments (tests/fixtures/engine/, written
by Recording around Local: `make record-engine`), so that the front end's
flow runs with no engine at all. A transport gives `stream` a Started (the
engine's stdout lines as they come, then its status and stderr) and
`run_json` a Finished; a remote engine (SSH) is one more transport of the
same two methods."""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Protocol

from ctxbench.core.errors import UserError, escaped

RERECORD = "make record-engine"  # what re-records every recording (tools/record_engine.py)
OUT_MAX = 256 << 20  # bytes of stdout a one-document command (list, env, which, exec) may print: its
#                      largest, exec's, is a few MiB; an engine that prints without end must not fill memory
# bytes of an engine command's stderr kept, the last (its last line is the reason), here and over SSH
# (read as it comes there: unread, a full buffer stalls the channel, stdout with it)
ERR_KEEP = 1 << 20


@dataclass(frozen=True)
class Finished:
    """An engine command that ran to its end."""
    status: int
    stdout: str
    stderr: str


class Started(Protocol):
    """An engine command under way (`stream` reads it)."""
    stopped: bool  # terminate() was called: the deadline stopped it

    def lines(self) -> Iterator[str]: ...    # stdout, line by line as the engine writes

    def end(self) -> tuple[int, str]: ...    # wait: (exit status, stderr)

    def terminate(self) -> None: ...         # the deadline: stop, keep what was written

    def stop(self) -> None: ...              # Ctrl-C or a failure: stop and reap, whatever it takes

    def running(self) -> bool: ...


class Transport(Protocol):
    def start(self, args: list[str]) -> Started: ...

    def run(self, args: list[str], timeout_s: float) -> Finished: ...  # TimeoutError past timeout_s


# ---- local: a process here ------------------------------------------------

def _popen(cmd: list[str], **kw) -> subprocess.Popen:
    """The engine started, or one line saying why the kernel would not
    (a file that is no program for this machine, a noexec mount)."""
    try:
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                                **kw)
    except OSError as e:
        raise UserError(f"the engine {escaped(cmd[0])} cannot be started: {e.strerror or e}", code=1)


class _LocalStarted:
    def __init__(self, cmd: list[str]):
        self.proc = _popen(cmd, bufsize=1)
        self.stopped = False

    def lines(self) -> Iterator[str]:
        assert self.proc.stdout is not None
        return iter(self.proc.stdout)

    def end(self) -> tuple[int, str]:
        self.proc.wait()
        return self.proc.returncode, self.proc.stderr.read() if self.proc.stderr else ""

    def terminate(self) -> None:
        self.stopped = True
        self.proc.terminate()

    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        try:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        except ProcessLookupError:
            pass


class Local:
    """The engine binary at `path`, on this machine."""

    def __init__(self, path: str):
        self.path = path

    def start(self, args: list[str]) -> Started:
        return _LocalStarted([self.path, *args])

    def run(self, args: list[str], timeout_s: float) -> Finished:
        proc = _popen([self.path, *args])
        try:
            out, err = _collect(proc, timeout_s)
        except subprocess.TimeoutExpired:
            _stop(proc)
            raise TimeoutError(f"'{' '.join([self.path, *args])}' did not finish in {timeout_s:.0f} s")
        except BaseException:  # Ctrl-C or SIGTERM here: the engine's own handler reaps what it started
            _stop(proc)
            raise
        if out is None:
            raise UserError(f"the engine {escaped(self.path)} printed more than {OUT_MAX >> 20} MiB for "
                            f"'{escaped(' '.join(args))}' (one JSON document): it is not ctxbench's engine, or it "
                            "is broken", code=1)
        return Finished(proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def _collect(proc: subprocess.Popen, timeout_s: float) -> tuple[bytes | None, bytes]:
    """What `proc` printed, read to its end within `timeout_s`
    (subprocess.TimeoutExpired past it): stdout, None once it passes
    OUT_MAX (the process is then stopped); stderr's last ERR_KEEP bytes.
    communicate() would hold all of both, however much that is."""
    deadline = time.monotonic() + timeout_s
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    got = {out_fd: bytearray(), err_fd: bytearray()}
    with selectors.DefaultSelector() as sel:
        for fd in got:
            sel.register(fd, selectors.EVENT_READ)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(proc.args, timeout_s)
            for key, _ in sel.select(left):
                chunk = os.read(key.fd, 1 << 16)  # the raw pipe: its text wrapper is never read
                if not chunk:
                    sel.unregister(key.fd)
                    continue
                buf = got[key.fd]
                buf += chunk
                if key.fd == out_fd and len(buf) > OUT_MAX:
                    _stop(proc)
                    return None, bytes(got[err_fd])
                if key.fd == err_fd and len(buf) > 2 * ERR_KEEP:
                    del buf[:-ERR_KEEP]
    proc.wait(max(0.0, deadline - time.monotonic()))
    return bytes(got[out_fd]), bytes(got[err_fd])


def _stop(proc: subprocess.Popen, grace_s: float = 5.0) -> None:
    """SIGTERM first, so that the engine kills and reaps what it started
    (subprocess.run's SIGKILL left a launched program's children behind),
    then SIGKILL past `grace_s`."""
    try:
        proc.terminate()
        proc.wait(timeout=grace_s)  # what it says on stopping is a line: the pipes' buffers hold it
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    finally:
        for pipe in (proc.stdout, proc.stderr):
            if pipe:
                pipe.close()


# ---- recorded: what a real engine said, replayed --------------------------

def key(args: list[str]) -> list[str]:
    """The arguments a recording is found by: as given, CPU numbers aside.
    The measured CPU is the highest this process may use unless --cpu names
    one, so it differs between hosts while the command is the same, and
    the front end always names it (core/engine.py, Engine.stream): --cpu
    is left out, --cross-cpu's number is N. A recording is found whatever
    CPUs it names."""
    out: list[str] = []
    skip = False
    for i, a in enumerate(args):
        if skip:
            skip = False
        elif a == "--cpu" and i + 1 < len(args):
            skip = True
        elif i > 0 and args[i - 1] == "--cross-cpu":
            out.append("N")
        else:
            out.append(a)
    return out


def recording_path(folder: Path, args: list[str]) -> Path:
    k = key(args)
    digest = hashlib.sha1(json.dumps(k).encode()).hexdigest()[:12]
    # named after the engine command, a leading option's dashes left out (`--version` is version-...)
    return folder / f"{(k or ['none'])[0].lstrip('-') or 'none'}-{digest}.json.gz"


def _read(path: Path) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


class _Replayed:
    def __init__(self, call: dict):
        self.call = call
        self.stopped = False

    def lines(self) -> Iterator[str]:
        for line in self.call["stdout"]:
            if self.stopped:
                return
            yield line
        self.stopped = self.stopped or self.call.get("stopped", False)

    def end(self) -> tuple[int, str]:
        return self.call["status"], self.call["stderr"]

    def terminate(self) -> None:
        self.stopped = True

    def stop(self) -> None:
        pass

    def running(self) -> bool:
        return False


class Recorded:
    """Replays the recordings in `folder`: the n-th call with the same
    arguments through this transport (one per command: its engine
    context's) gets the n-th recorded answer (the last one once they run
    out). No process starts; a call never recorded is one
    line naming its file and the command that records it."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.calls: dict[Path, int] = {}

    def _next(self, args: list[str]) -> dict:
        path = recording_path(self.folder, args)
        if not path.is_file():
            raise UserError(f"no recorded engine output for 'ctxbench-engine {' '.join(key(args))}' "
                            f"({path}): re-record with '{RERECORD}'", code=1)
        calls = _read(path)["calls"]
        n = self.calls.get(path, 0)
        self.calls[path] = n + 1
        return calls[min(n, len(calls) - 1)]

    def start(self, args: list[str]) -> Started:
        return _Replayed(self._next(args))

    def run(self, args: list[str], timeout_s: float) -> Finished:
        call = self._next(args)
        return Finished(call["status"], "".join(call["stdout"]), call["stderr"])


class _Recording:
    def __init__(self, inner: Started, save):
        self.inner, self.save, self.out = inner, save, []

    @property
    def stopped(self) -> bool:
        return self.inner.stopped

    def lines(self) -> Iterator[str]:
        for line in self.inner.lines():
            self.out.append(line)
            yield line

    def end(self) -> tuple[int, str]:
        status, err = self.inner.end()
        self.save({"stdout": self.out, "stderr": err, "status": status, "stopped": self.inner.stopped})
        return status, err

    def terminate(self) -> None:
        self.inner.terminate()

    def stop(self) -> None:
        self.inner.stop()

    def running(self) -> bool:
        return self.inner.running()


class Recording:
    """Local, with every call that ends written to `folder` for Recorded
    (a call cut short by Ctrl-C is not kept). Calls with the same
    arguments through this transport (one per command) are kept in order;
    a later command with the same arguments starts the file again."""

    def __init__(self, inner: Local, folder: Path):
        self.inner, self.folder = inner, folder
        self.seen: set[Path] = set()

    def _save(self, args: list[str], call: dict) -> None:
        path = recording_path(self.folder, args)
        calls = _read(path)["calls"] if path in self.seen and path.is_file() else []
        self.seen.add(path)
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with gzip.GzipFile(tmp, "wb", mtime=0) as f:  # mtime 0: the same output gives the same bytes
            f.write(json.dumps({"args": key(args), "calls": calls + [call]}, indent=0).encode())
        tmp.replace(path)

    def start(self, args: list[str]) -> Started:
        return _Recording(self.inner.start(args), lambda call: self._save(args, call))

    def run(self, args: list[str], timeout_s: float) -> Finished:
        done = self.inner.run(args, timeout_s)
        self._save(args, {"stdout": done.stdout.splitlines(keepends=True), "stderr": done.stderr,
                          "status": done.status, "stopped": False})
        return done
