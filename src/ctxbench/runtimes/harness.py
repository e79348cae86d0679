"""Issue 24's runtime harnesses, seen from the front end.

One `Runtime` descriptor per language lives in ctxbench/runtimes/langs/
(found with pkgutil, as the report finds its sections). A harness is a
program in that language's own idiom that speaks the protocol of runtimes/PROTOCOL.md:
arguments in, JSON lines out (a header, one result per
mechanism and per spawn/memory measure, `{"skipped": ...}` for a
mechanism that cannot run here).

This module finds a runtime (toolchain and built harness), builds the
command for a placement (argv, environment, the CPUs set in the child
before exec) and runs it under a watchdog: the harness runs in its own
process group, which is killed on a timeout, an error, Ctrl-C, and, through
PR_SET_PDEATHSIG, when the front end itself dies. Every record is checked
before it is returned; a malformed one is one line,
`ctxbench: runtimes: <runtime>: ...`."""
from __future__ import annotations

import importlib
import json
import os
import pkgutil
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from ctxbench import __version__
from ctxbench.core import locations
from ctxbench.core.children import child_setup, kill_group
from ctxbench.core.errors import UserError, escaped
from ctxbench.core.model import Result
from ctxbench.stats.numbers import is_finite

PLACEMENTS = ("pinned", "default")
# CPUs a placement runs on: pinned = the measured CPU only (the runtime
# limited to one worker), default = two CPUs (cross-CPU wake-ups possible).
PLACEMENT_CPUS = {"pinned": 1, "default": 2}
# What each quantity is measured in, and what its params must say.
QUANTITIES = {"handoff": "ns", "spawn": "ns", "memory": "bytes"}
MAX_OUTPUT_BYTES = 64 << 20  # a harness printing more is broken (its samples are a few thousand numbers)
STDERR_KEEP = 20              # lines of the harness's stderr kept for the error message


@dataclass(frozen=True)
class Runtime:
    """What the front end knows of one runtime's harness (runtimes/PROTOCOL.md)."""
    name: str                                  # the id prefix: runtimes/<name>/...
    mechanisms: tuple[str, ...]                # what the harness can measure
    version_cmd: tuple[str, ...] | None        # presence + version of the toolchain (None: the header's)
    harness: tuple[str, ...]                   # argv prefix, paths relative to the repository root
    pinned_env: Mapping[str, str] = field(default_factory=dict)  # one worker, by environment ...
    pinned_args: tuple[str, ...] = ()          # ... or by arguments before the harness's own
    missing: str = ""                          # the one line when the toolchain is absent
    interpreter_env: str | None = None         # an environment variable naming another interpreter
                                               # (replaces harness[0]: CTXBENCH_PYTHON=python3.13)
    jit: bool = False                          # tiers code up while it runs: the longer warm-up


@dataclass(frozen=True)
class Found:
    """A runtime looked for on this machine: `argv` and `version` when it is
    present and built, else `missing` (one line, never a failure)."""
    runtime: Runtime
    argv: tuple[str, ...] = ()
    version: str | None = None
    missing: str | None = None

    @property
    def present(self) -> bool:
        return self.missing is None


@dataclass(frozen=True)
class Settings:
    """The counts every harness takes (runtimes/PROTOCOL.md, command line)."""
    groups: int = 3
    iterations: int = 10
    min_sample_us: int = 2000
    warmup_ms: int = 200
    delay_ns: int | tuple[int, ...] = 0  # several: the harness takes them in turn, one record each
    spawn: int = 0   # spawn+join batch size (0: not measured)
    park: int = 0    # threads parked for the memory measure (0: not measured)

    def args(self) -> list[str]:
        out = ["--groups", str(self.groups), "--iterations", str(self.iterations),
               "--min-sample-us", str(self.min_sample_us), "--warmup-ms", str(self.warmup_ms)]
        delays = self.delays()
        if delays != (0,):
            out += ["--delay-ns", ",".join(map(str, delays))]
        for flag, v in (("--spawn", self.spawn), ("--park", self.park)):
            if v:
                out += [flag, str(v)]
        return out

    def delays(self) -> tuple[int, ...]:
        return self.delay_ns if isinstance(self.delay_ns, tuple) else (self.delay_ns,)

    def deadline_s(self, mechanisms: int) -> float:
        """A generous bound on a run: start-up (a JVM), then per mechanism
        its warm-up, calibration and samples, each sample bounded by the
        harness at about a second; spawn and park add theirs."""
        per_sample = self.min_sample_us * 4e-6 + 0.05
        per_mech = self.warmup_ms / 1000 + 2 + self.groups * (len(self.delays()) * self.iterations + 1) * per_sample
        extra = (self.groups * self.iterations * 0.2 if self.spawn else 0) + (self.groups * 10 if self.park else 0)
        return 30 + 3 * mechanisms * (per_mech + extra)


def root() -> Path:
    """The checkout the package runs from (where runtimes/ and build/ are),
    decided as the engine's is (core/locations.checkout: never a search
    upward); an installed package has no harnesses, so its own directory,
    where none is found ("harness not built"). Or the folder
    CTXBENCH_RUNTIMES_ROOT names (the tests' fake harnesses: `make check`
    starts no real one)."""
    other = os.environ.get("CTXBENCH_RUNTIMES_ROOT")
    if other:
        return Path(other)
    return locations.checkout() or locations.package()


def runtimes() -> list[Runtime]:
    """Every descriptor in ctxbench/runtimes/langs/, by name."""
    from ctxbench.runtimes import langs
    found = []
    for info in sorted(pkgutil.iter_modules(langs.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{langs.__name__}.{info.name}")
        rt = getattr(module, "RUNTIME", None)
        if isinstance(rt, Runtime):
            found.append(rt)
    return found


def _resolve(part: str, base: Path) -> str:
    """A harness argv element: a path (it has a '/') relative to the root."""
    if "/" in part and not part.startswith("-") and not os.path.isabs(part):
        return str(base / part)
    return part


def find(rt: Runtime, base: Path | None = None) -> Found:
    """Is the toolchain there (its version), and the harness built?"""
    base = base or root()
    argv = [_resolve(p, base) for p in rt.harness]
    other = rt.interpreter_env and os.environ.get(rt.interpreter_env)
    if other:
        argv[0] = other
    version = None
    if rt.version_cmd:  # the interpreter named in the environment, if one is, says its own version
        exe = shutil.which(other if other and rt.version_cmd[0] == rt.harness[0] else rt.version_cmd[0])
        if not exe:
            return Found(rt, missing=rt.missing)
        try:
            p = subprocess.run([exe, *rt.version_cmd[1:]], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return Found(rt, missing=rt.missing)
        if p.returncode != 0:
            return Found(rt, missing=rt.missing)
        version = escaped((p.stdout.strip() or p.stderr.strip()).splitlines()[0] if (p.stdout + p.stderr).strip()
                          else "")
    exe = argv[0] if "/" in argv[0] else shutil.which(argv[0])
    if not exe or not os.access(exe, os.X_OK) or os.path.isdir(exe):
        if not rt.version_cmd:  # the interpreter is the toolchain: its own line
            return Found(rt, missing=rt.missing)
        return Found(rt, missing=f"{rt.name}: harness not built ({escaped(argv[0])}); `make runtimes` builds it")
    for part in argv[1:]:
        if "/" in part and not part.startswith("-") and not os.path.exists(part):
            return Found(rt, missing=f"{rt.name}: harness not built ({escaped(part)}); `make runtimes` builds it")
    return Found(rt, tuple(argv), version)


def placement_cpus(placement: str, cpu: int, allowed: Sequence[int]) -> tuple[int, ...]:
    """The CPUs of a placement: pinned = `cpu`; default = `cpu` and the
    allowed CPU after it (wrapping), so that a wake-up can cross CPUs."""
    if placement not in PLACEMENTS:
        raise UserError(f"runtimes: placement must be one of {', '.join(PLACEMENTS)}, not {escaped(placement)}")
    allowed = sorted(set(allowed))
    if cpu not in allowed:
        raise UserError(f"runtimes: CPU {cpu} is not one this process may use ({allowed})")
    if placement == "pinned":
        return (cpu,)
    others = [c for c in allowed if c > cpu] + [c for c in allowed if c < cpu]
    if not others:
        raise UserError(f"runtimes: the default placement needs two CPUs; only CPU {cpu} is allowed")
    return (cpu, others[0])


@dataclass(frozen=True)
class Command:
    argv: tuple[str, ...]
    env: Mapping[str, str]
    cpus: tuple[int, ...]   # set in the child before exec
    placement: str


def command(found: Found, placement: str, cpus: Sequence[int], mechanisms: Sequence[str],
            settings: Settings) -> Command:
    """The argv, environment and CPUs of one harness run. Pinned: the
    descriptor's one-worker environment and arguments; default: the
    runtime's own default, so those variables are removed (a GOMAXPROCS
    left in the user's shell would otherwise decide it)."""
    rt = found.runtime
    if not found.present:
        raise UserError(f"runtimes: {found.missing}")
    if placement not in PLACEMENTS:
        raise UserError(f"runtimes: placement must be one of {', '.join(PLACEMENTS)}, not {escaped(placement)}")
    cpus = tuple(dict.fromkeys(cpus))
    if len(cpus) != PLACEMENT_CPUS[placement]:
        raise UserError(f"runtimes: {placement} runs on {PLACEMENT_CPUS[placement]} CPU(s), not {list(cpus)}")
    unknown = [m for m in mechanisms if m not in rt.mechanisms]
    if unknown or not mechanisms:
        raise UserError(f"runtimes: {rt.name}: unknown mechanism(s) {', '.join(map(escaped, unknown)) or '(none)'}"
                        f"; it has {', '.join(rt.mechanisms)}")
    env = {k: v for k, v in os.environ.items() if k not in rt.pinned_env}
    env["CTXBENCH_VERSION"] = __version__
    pre: tuple[str, ...] = ()
    if placement == "pinned":
        env.update(rt.pinned_env)
        pre = rt.pinned_args
    argv = (found.argv[0], *pre, *found.argv[1:], "--mechanisms", ",".join(mechanisms),
            "--placement", placement, *settings.args())
    return Command(argv, env, cpus, placement)


# ---- running a harness ---------------------------------------------------------

class HarnessError(UserError):
    """A harness that failed, hung or wrote a malformed record (exit 1)."""

    def __init__(self, runtime: str, message: str):
        super().__init__(f"runtimes: {runtime}: {message}", code=1)


def run(found: Found, cmd: Command, timeout_s: float) -> tuple[dict, list[dict], list[dict]]:
    """Run one harness command; returns (header, results, skipped), every
    record checked against what `cmd` asked for. The harness's process
    group is killed on every way out but a clean exit (and after one, any
    process it left behind)."""
    name = found.runtime.name
    try:
        proc = subprocess.Popen(cmd.argv, env=dict(cmd.env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True,
                                preexec_fn=child_setup(cmd.cpus, os.getpid()))
    except OSError as e:
        raise HarnessError(name, f"cannot start {escaped(cmd.argv[0])}: {e.strerror or e}")
    except subprocess.SubprocessError:  # the child's set-up failed: a CPU it may not use
        raise HarnessError(name, f"cannot start {escaped(cmd.argv[0])} on CPU(s) {list(cmd.cpus)}")
    pgid = proc.pid  # start_new_session: the harness leads its own group
    timed_out = threading.Event()

    def watchdog():
        timed_out.set()
        kill_group(pgid)

    timer = threading.Timer(timeout_s, watchdog)
    timer.daemon = True
    err_lines: list[str] = []
    reader = threading.Thread(target=_drain, args=(proc.stderr, err_lines), daemon=True)
    lines: list[str] = []
    try:
        timer.start()
        reader.start()
        size = 0
        assert proc.stdout is not None
        for raw in proc.stdout:
            size += len(raw)
            if size > MAX_OUTPUT_BYTES:
                raise HarnessError(name, f"printed more than {MAX_OUTPUT_BYTES >> 20} MB; stopped")
            lines.append(raw.decode("utf-8", "replace"))
        # wait for its exit without reaping it, so that the group's id stays
        # its own while what it left behind is killed
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    except BaseException:
        kill_group(pgid)
        raise
    finally:
        timer.cancel()
        kill_group(pgid)
        proc.wait()
        reader.join(timeout=5)
    if timed_out.is_set():
        raise HarnessError(name, f"no answer within {timeout_s:.0f} s; stopped (its process group killed)")
    if proc.returncode != 0:
        said = [l for l in err_lines if l.strip()]
        last = said[-1].strip() if said else f"exit status {proc.returncode}"
        raise HarnessError(name, escaped(last.split(": ", 1)[1] if last.startswith("ctxbench-rt-") else last))
    return parse(name, lines, cmd)


def _drain(stream, keep: list[str]) -> None:
    for raw in stream:
        keep.append(raw.decode("utf-8", "replace"))
        del keep[:-STDERR_KEEP]


# ---- checking what a harness said ----------------------------------------------

def parse(name: str, lines: Sequence[str], cmd: Command) -> tuple[dict, list[dict], list[dict]]:
    """(header, results, skipped) from a harness's stdout lines; the first
    malformed line is a HarnessError naming its line number."""
    header: dict | None = None
    results: list[dict] = []
    skipped: list[dict] = []
    mechanisms = _arg(cmd.argv, "--mechanisms").split(",")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            raise HarnessError(name, f"line {number} is not JSON: {escaped(line.strip()[:80])}")
        where = f"line {number}"
        if not isinstance(rec, dict):
            raise HarnessError(name, f"{where} is not a JSON object")
        if header is None:
            _check_header(name, rec, where)
            header = rec
        elif "skipped" in rec:
            if not (isinstance(rec.get("skipped"), str) and isinstance(rec.get("why"), str)):
                raise HarnessError(name, f"{where}: a skipped line needs 'skipped' and 'why' strings")
            if rec["skipped"] not in mechanisms:
                raise HarnessError(name, f"{where}: skipped {escaped(rec['skipped'])}, which was not asked for")
            skipped.append({"mechanism": rec["skipped"], "why": escaped(rec["why"])})
        else:
            results.append(check_result(name, rec, where, cmd.placement))
    if header is None:
        raise HarnessError(name, "printed no header line")
    delays = [int(d) for d in (_arg(cmd.argv, "--delay-ns") or "0").split(",")]
    rows = [Result(r) for r in results]
    ids = [(r.id, r.params.get("delay_ns")) for r in rows]
    twice = sorted({i[0] for i in ids if ids.count(i) > 1})
    if twice:
        raise HarnessError(name, f"the same id twice: {escaped(twice[0])}")
    other = [r.id for r in rows if r.quantity == "handoff" and r.params["delay_ns"] not in delays]
    if other:
        raise HarnessError(name, f"{escaped(other[0])}: a delay that was not asked for")
    answered = {r.params["mechanism"] for r in rows if r.quantity == "handoff"} \
        | {s["mechanism"] for s in skipped}
    silent = [m for m in mechanisms if m not in answered]
    if silent:
        raise HarnessError(name, f"no result and no skipped line for {escaped(silent[0])}")
    return header, results, skipped


def _arg(argv: Sequence[str], flag: str) -> str:
    return argv[argv.index(flag) + 1] if flag in argv[:-1] else ""


def _check_header(name: str, rec: dict, where: str) -> None:
    tool, rt = rec.get("tool"), rec.get("runtime")
    if not (isinstance(tool, dict) and isinstance(tool.get("name"), str) and isinstance(tool.get("version"), str)):
        raise HarnessError(name, f"{where}: the header needs tool.name and tool.version strings")
    if not (isinstance(rt, dict) and rt.get("name") == name and isinstance(rt.get("version"), str)
            and isinstance(rt.get("flags"), dict)):
        raise HarnessError(name, f"{where}: the header needs runtime.name '{name}', runtime.version (a string) "
                                 "and runtime.flags (an object)")


def _numbers(x: object, finite: bool = True) -> bool:
    return isinstance(x, list) and all((is_finite(v) or not finite and isinstance(v, float)) for v in x)


def check_result(name: str, rec: dict, where: str, placement: str) -> dict:
    """One result record as runtimes/PROTOCOL.md defines it, or a HarnessError."""
    def bad(why: str):
        raise HarnessError(name, f"{where}: {escaped(rec_id) if isinstance(rec_id, str) else 'a result'}: {why}")

    rec_id = rec.get("id")
    if not isinstance(rec_id, str) or not rec_id.startswith(f"runtimes/{name}/"):
        bad(f"'id' must be a string starting runtimes/{name}/")
    quantity = rec.get("quantity")
    if quantity not in QUANTITIES:
        bad(f"'quantity' must be one of {', '.join(QUANTITIES)}")
    if rec.get("unit") != QUANTITIES[quantity]:
        bad(f"a {quantity} is in {QUANTITIES[quantity]}, not {escaped(str(rec.get('unit')))}")
    for key, kind in (("doc", str), ("params", dict), ("raw", dict), ("warnings", list)):
        if not isinstance(rec.get(key), kind):
            bad(f"'{key}' must be a {kind.__name__}")
    params = rec["params"]
    if params.get("runtime") != name or not isinstance(params.get("mechanism"), str):
        bad(f"params must name runtime '{name}' and a mechanism")
    if params.get("placement") != placement:
        bad(f"params.placement is {escaped(str(params.get('placement')))}, the run was {placement}")
    if not rec_id.endswith(f"/{placement}"):
        bad(f"the id must end with /{placement}")
    samples, group = rec.get("samples"), rec.get("group")
    if not _numbers(samples) or not samples:
        bad("'samples' must be a non-empty list of finite numbers")
    if not (isinstance(group, list) and len(group) == len(samples)
            and all(isinstance(g, int) and not isinstance(g, bool) and g >= 0 for g in group)):
        bad("'group' must hold one group index (an integer >= 0) per sample")
    if quantity != "memory" and min(samples) <= 0:
        bad(f"a {quantity} time must be positive (got {min(samples)})")
    if quantity == "handoff":
        for key in ("n", "delay_ns", "workers"):
            if not isinstance(params.get(key), int) or isinstance(params.get(key), bool):
                bad(f"params.{key} must be an integer")
        raw = rec["raw"]
        for key in ("total_ns", "handoffs"):
            if not _numbers(raw.get(key)) or len(raw[key]) != len(samples):
                bad(f"raw.{key} must hold one number per sample")
        if any(h <= 0 for h in raw["handoffs"]):
            bad("raw.handoffs must be positive")
        if any(abs(t / h - s) > 1e-6 * max(abs(s), 1) for t, h, s in zip(raw["total_ns"], raw["handoffs"], samples)):
            bad("samples must be raw.total_ns / raw.handoffs")
        verify = rec.get("verify")
        if not isinstance(verify, dict) or not isinstance(verify.get("source"), str):
            bad("'verify' must be an object with a 'source'")
        for key in ("voluntary", "involuntary"):
            if not _numbers(verify.get(key)) or len(verify[key]) != len(samples) or min(verify[key]) < 0:
                bad(f"verify.{key} must hold one count (>= 0) per sample")
        warmup = rec.get("warmup")
        if not (isinstance(warmup, dict) and isinstance(warmup.get("ms"), (int, float))
                and isinstance(warmup.get("method"), str)):
            bad("'warmup' must say its ms and its method")
    if quantity == "memory" and not (isinstance(params.get("parked"), int) and params["parked"] > 0):
        bad("params.parked must be a positive integer")
    return rec


def list_mechanisms(found: Found, timeout_s: float = 60) -> list[dict]:
    """The harness's own --list: [{"mechanism", "doc"}]."""
    name = found.runtime.name
    try:
        p = subprocess.run([*found.argv, "--list"], capture_output=True, text=True, timeout=timeout_s,
                           start_new_session=True, preexec_fn=child_setup(tuple(os.sched_getaffinity(0)),
                                                                          os.getpid()))
    except subprocess.TimeoutExpired:
        raise HarnessError(name, f"--list gave no answer within {timeout_s:.0f} s")
    except OSError as e:
        raise HarnessError(name, f"cannot start {escaped(found.argv[0])}: {e.strerror or e}")
    if p.returncode != 0:
        raise HarnessError(name, f"--list failed: exit status {p.returncode}")
    out = []
    for number, line in enumerate(p.stdout.splitlines(), 1):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            raise HarnessError(name, f"--list line {number} is not JSON")
        if not (isinstance(rec, dict) and isinstance(rec.get("mechanism"), str) and isinstance(rec.get("doc"), str)):
            raise HarnessError(name, f"--list line {number} needs 'mechanism' and 'doc' strings")
        out.append(rec)
    return out
