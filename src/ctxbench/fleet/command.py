"""ctxbench fleet HOSTS... -- COMMAND: the same measurement on many hosts
at once over SSH (fleet/remote.py), each host's raw output analysed here
as a local run's is (fleet/job.py), written and recorded in the results
store through the lifecycle every measuring command shares, and a final
table: host, CPU, kernel, the chosen ids' medians with their intervals,
status. A host that fails costs only its own row; the exit status is 1
when any host failed."""
from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ctxbench.core import model
from ctxbench.core.errors import UserError, escaped
from ctxbench.core.ssh import hosts as hostlist
from ctxbench.core.ssh.hosts import escaped_name as shown_name  # escaped, and its bidi and format characters
from ctxbench.fleet import inventory, job as jobs
from ctxbench.fleet.ending import SHOWN, chosen_ids, one_step as _one_step, outputs_usable, summed_up
from ctxbench.lifecycle import Lifecycle
from ctxbench.ui import options

if TYPE_CHECKING:
    from ctxbench.fleet.remote import Settings

PARALLEL = 4       # hosts measured at once
TIMEOUT_S = 1800   # per host, everything included


def add_parser(sub):
    p = sub.add_parser("fleet", help="the same measurement on many hosts over SSH, into one store",
                       description="Run a command's measurement on many hosts at once over SSH: "
                                   "ctxbench fleet HOST... -- run --quick")
    p.add_argument("hosts", nargs="*", metavar="HOST", help="[user@]host[:port], as ssh takes them")
    p.add_argument("--inventory", metavar="FILE", help="an Ansible inventory (INI or YAML): its hosts, with "
                   "ansible_host, ansible_port, ansible_user, ansible_ssh_private_key_file, ctxbench_cpu")
    p.add_argument("--limit", metavar="PATTERN", help="only the inventory's hosts or groups PATTERN names "
                   "(Ansible's pattern syntax)")
    p.add_argument("--parallel", type=options.count(1, 256), metavar="N",
                   help=f"hosts measured at once (default {PARALLEL})")
    p.add_argument("--timeout", type=options.real(1, 24 * 3600), metavar="S",
                   help=f"seconds per host, connecting and cleaning included (default {TIMEOUT_S}); with --emit, "
                        "the Jobs' activeDeadlineSeconds")
    p.add_argument("--ssh-config", action="append", metavar="FILE",
                   help="an ssh config file to read (default: ~/.ssh/config when there is one)")
    p.add_argument("--engines", metavar="DIR", help="where the static engines are (default: this checkout's "
                   "build/; make engine-x86_64, engine-aarch64, engine-armv7)")
    p.add_argument("--show", metavar="ID,...", help=f"ids or points in the final table (default: for run {SHOWN}; "
                   "for another command, the first 4 points its first host measured)")
    p.add_argument("-o", "--output", metavar="DIR", help="write each host's results to DIR/<host>.json "
                   "(default: none here; each run is kept in the data directory); with --emit, the manifest's "
                   "file (default: standard output)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--store", metavar="URL", help="record every host's run in this store, a SQLite file or a "
                   "postgresql:// URL (default: $CTXBENCH_STORE, else store.sqlite in the data directory)")
    g.add_argument("--no-store", dest="store", action="store_const", const="off", help="record in no store")
    options.add_plot(p, "the figure of the first --show id across hosts (fleet)")
    from ctxbench.fleet.k8s import values as k8s_options
    k8s_options.add(p)
    p.set_defaults(func=run, remote=None)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:100] or "host"


def stems(targets: list) -> dict[str, str]:
    """{host name: the name its results file takes}, unique: the name made
    safe for a file; where two names give the same one (büro, bäro), each
    of them with its address; where that still meets another, a suffix.
    Two hosts never share a file."""
    plain = [_safe(h.name) for h in targets]
    cands = [p if plain.count(p) == 1 else f"{p}-{_safe(h.address)}" for p, h in zip(plain, targets)]
    out, used = {}, set()
    for h, c in zip(targets, cands):
        stem, k = c, 2
        while stem.lower() in used:  # also apart on a file system that ignores case
            stem, k = f"{c}-{k}", k + 1
        used.add(stem.lower())
        out[h.name] = stem
    return out


def _chosen_hosts(args) -> list:
    found = [hostlist.from_spec(h) for h in args.hosts]
    if args.inventory:
        found += inventory.read(args.inventory, args.limit)
    elif args.limit is not None:
        raise UserError("fleet: --limit selects from an --inventory")
    if not found:
        raise UserError("fleet: name the hosts (HOST... or --inventory FILE), then -- and the command")
    names = [h.name for h in found]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UserError(f"fleet: host {shown_name(twice[0])} is named twice")
    return found


def _ssh_config(args) -> tuple[str, ...]:
    """Each --ssh-config a regular file (a FIFO is never opened), else one line."""
    try:
        return hostlist.config_files(args.ssh_config)
    except UserError as e:
        raise UserError(f"fleet: {e}")


PRIVATE = "ctxbench-fleet-"  # the fleet's private directories here, in the temporary directory
LOCK = ".lock"               # held (flock) by the fleet that made the directory, for as long as it runs


def clean_stale() -> None:
    """Remove what fleets that died outright (SIGKILL) left here: each
    fleet holds a lock on its directory's LOCK while it runs, so a
    directory whose lock can be taken is no running fleet's. Directories
    without a lock (being made, or an older ctxbench's) are left alone."""
    import fcntl
    tmp = tempfile.gettempdir()
    try:
        entries = list(os.scandir(tmp))
    except OSError:
        return
    for d in entries:
        try:
            if not (d.name.startswith(PRIVATE) and d.is_dir(follow_symlinks=False)
                    and d.stat(follow_symlinks=False).st_uid == os.getuid()):
                continue
            fd = os.open(os.path.join(d.path, LOCK), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # a running fleet's
        else:
            shutil.rmtree(d.path, ignore_errors=True)
        finally:
            os.close(fd)


def private_dir() -> tuple[Path, int]:
    """A private directory for the children's files (results, ssh configs)
    and the descriptor that holds its lock (release_dir ends both). The
    lock file is locked before it takes its name, so no other fleet's
    clean_stale ever sees it unlocked while this one runs."""
    import fcntl
    clean_stale()
    folder = Path(tempfile.mkdtemp(prefix=PRIVATE))
    try:
        fd = os.open(folder / f"{LOCK}.new", os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.rename(folder / f"{LOCK}.new", folder / LOCK)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder, fd


def release_dir(folder: Path, fd: int) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    os.close(fd)


class _Lines:
    """One progress line per host on stderr: on a terminal, a block of
    lines rewritten in place as each host's state changes; elsewhere (a
    log, a pipe), a line at each change, with the time since the start."""

    def __init__(self, names: list[str]):
        self.width = max(len(shown_name(n)) for n in names)
        self.t0 = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.state = {n: "waiting" for n in names}
        self.drawn = False

    def __call__(self, host, what: str) -> None:
        t = time.monotonic() - self.t0
        self.state[host.name] = f"{what}  ({t:.1f} s)"
        if not self.tty:
            print(f"{t:6.1f} s  {shown_name(host.name):<{self.width}}  {shown_name(what)}", file=sys.stderr, flush=True)
            return
        up = f"\x1b[{len(self.state)}F" if self.drawn else ""
        lines = "".join(f"\x1b[2K{shown_name(n):<{self.width}}  {shown_name(v)}\n" for n, v in self.state.items())
        sys.stderr.write(up + lines)
        sys.stderr.flush()
        self.drawn = True


@dataclass(frozen=True)
class _Plan:
    """What a fleet command measures, decided before any host is contacted."""
    job: jobs.Job
    targets: list
    shown_ids: list[str]
    names: dict[str, str]       # host name -> its results file's stem
    lives: dict[str, Lifecycle]  # host name -> the lifecycle that writes and records its run
    settings: Settings


def run(args) -> int:
    from ctxbench.fleet.k8s import entry
    if entry.wanted(args):  # --emit k8s or --collect DIR: Kubernetes Jobs instead of SSH (docs/kubernetes.md)
        return entry.run(args, _checker(args))
    entry.none_given(args)
    args.parallel = PARALLEL if args.parallel is None else args.parallel
    args.timeout = TIMEOUT_S if args.timeout is None else args.timeout
    plan = _plan(args)
    rows, wall = _measured(plan, args)
    return _concluded(plan, args, rows, wall)


def _plan(args) -> _Plan:
    """Every check and output decided before anything is measured (the
    lifecycle's rule), in the order the user is told of them."""
    from ctxbench.core.ssh import engines
    from ctxbench.fleet import remote
    if args.output == "":  # argparse takes it; os.makedirs('') would not, and -o would be silently dropped
        raise UserError("fleet: -o '': an empty directory name (leave -o out to keep each run in the data directory)")
    job = jobs.parse(args.remote or [], check=_checker(args))
    targets = _chosen_hosts(args)
    build = Path(args.engines) if args.engines else engines.default_dir()
    if args.engines and not build.is_dir():
        raise UserError(f"fleet: --engines {escaped(args.engines)}: no such directory")
    _decidable_here(job, targets, build)
    shown_ids = chosen_ids(args)
    outputs_usable(args)
    names = stems(targets)  # one file per host
    lives = {h.name: Lifecycle(f"fleet-{names[h.name]}", os.path.join(args.output, f"{names[h.name]}.json")
                               if args.output else None, store=args.store) for h in targets}
    return _Plan(job, targets, shown_ids, names, lives, remote.Settings(build, float(args.timeout), _ssh_config(args)))


def _measured(plan: _Plan, args) -> tuple[list, float]:
    """Every host measured, each one's end said above the table; (rows, wall time)."""
    report = _Lines([h.name for h in plan.targets])
    ending = _Ending(plan.job, plan.lives)
    started = time.monotonic()
    # the children's files in a directory of the fleet's, removed at the end (or, after a SIGKILL here, by the
    # next fleet); the fast way makes none here
    folder, lock = private_dir() if plan.job.child else (None, None)
    if not plan.job.child:
        clean_stale()
    try:
        with quiet_lost_writes():
            rows = asyncio.run(_all(plan.targets, plan.job, plan.settings, args.parallel, report, ending, folder,
                                    plan.names))
    except KeyboardInterrupt:
        ending.say()  # what ended before Ctrl-C is kept, and said where
        raise
    finally:
        if folder is not None:
            release_dir(folder, lock)
    wall = time.monotonic() - started
    ending.say()
    return rows, wall


def _concluded(plan: _Plan, args, rows: list, wall: float) -> int:
    """The table, the overhead, the figure, and the hosts that failed."""
    job, shown_ids = plan.job, plan.shown_ids
    if job.child and args.show is None:  # the points the command produces, as its first host measured them
        first = next((d for _, d in rows if d is not None), None)
        shown_ids = list(jobs.summary(first))[:4] if first is not None else []
    return summed_up(job, args, rows, shown_ids, _overhead(rows, wall, args.parallel))


class _Ending:
    """A host that has ended: its document analysed, written and recorded
    now, not at the end of the command, so that Ctrl-C or a later host's
    failure loses nothing it brought back (_all runs it uninterrupted).
    What each write and record said is kept (stream, line), and said
    above the table, after the progress lines."""

    def __init__(self, job, lives: dict):
        self.job, self.lives = job, lives
        self.kept: list[tuple] = []

    def __call__(self, o) -> tuple:
        if o.ok and not o.arch:  # a command's own process (fleet/child.py): its document says where it ran
            o.arch = _arch_of(o)
        doc = self._analysed(o) if o.ok else None
        if doc is not None:
            self._written(o, doc)
        f = model.Document(doc).failures if doc is not None else []
        if f and o.ok:
            o.ok, o.reason = False, (f"{len(f)} id(s) failed, the others kept (first: {f[0]['id']}: "
                                     f"{f[0]['error']})")
        if o.left:
            o.ok, o.reason = False, (o.reason + "; " if o.reason else "") + o.left
        if o.startup:  # said once, after the progress lines
            self.kept.append((sys.stderr, o.startup))
        return o, doc

    def _analysed(self, o) -> dict | None:
        """The host's document with its `fleet` record; None (o failed) where it cannot be read."""
        fleet = {"host": o.host.name, "address": o.host.address, "arch": o.arch, "groups": list(o.host.groups),
                 "cpu": o.host.cpu, "command": list(self.job.argv), "timings_s": o.timings, "started": o.started}
        try:
            t = time.monotonic()
            doc = jobs.document(self.job, o.output, fleet)
            o.timings["analyse"] = time.monotonic() - t
            return doc
        except UserError as e:
            o.ok, o.reason = False, str(e)
            return None

    def _written(self, o, doc: dict) -> None:
        life = self.lives[o.host.name]
        try:
            with _said_aside(self.kept):
                life.write(doc)   # a write that fails keeps the run in a fallback file its reason names
                life.finish()     # a store that cannot take the run costs a warning, not the run
        except UserError as e:
            o.ok, o.reason = False, str(e)

    def say(self) -> None:
        for stream, line in self.kept:
            print(line, file=stream)


def _arch_of(o) -> str:
    """The machine the host's document says it ran on ('' where it says none:
    said when the document is read)."""
    from ctxbench.core import reader
    try:
        return str(model.Document(reader.decode(o.output, o.host.name)).environment.machine or "")
    except (UserError, AttributeError, TypeError):
        return ""


@contextlib.contextmanager
def _said_aside(kept: list):
    """What the block prints on stdout and stderr, kept as (stream, line)
    in `kept`, to be said after the progress lines, not through them."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            yield
    finally:
        kept.extend((sys.stdout, line) for line in out.getvalue().splitlines() if line.strip())
        kept.extend((sys.stderr, line) for line in err.getvalue().splitlines() if line.strip())


# qemu-user for each architecture's engine, to list its ids on this machine
QEMU = {"x86_64": "qemu-x86_64", "aarch64": "qemu-aarch64", "armv7": "qemu-arm"}
LIST_S = 20  # an engine listing its ids here (under qemu-user: a few seconds)


def _listed(engine: list[str]) -> bytes:
    """`engine list --json --all`'s output, within LIST_S. The engine runs in
    a process group of its own, which is killed on a timeout, Ctrl-C or
    SIGTERM (subprocess.run kills its child alone: what it started would
    stay), and dies with this process (core/children.child_setup)."""
    import subprocess
    from ctxbench.core import children
    p = subprocess.Popen([*engine, "list", "--json", "--all"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, start_new_session=True,
                         preexec_fn=children.child_setup(tuple(os.sched_getaffinity(0)), os.getpid()))
    try:
        return p.communicate(timeout=LIST_S)[0]
    except BaseException:
        children.kill_group(p.pid)  # its leader not yet reaped: the group's id is still its own
        p.wait()
        raise


def known_ids(build: Path) -> set[str] | None:
    """The ids the engines the hosts get know: each engine built in `build`
    lists its own (`ctxbench-engine list --json --all`), run here natively
    or under qemu-user; their union, since ids differ by architecture
    (timer/rdtsc, timer/cntvct). None where an engine cannot be listed
    here: then the hosts decide, each row saying so."""
    import json
    import subprocess
    from ctxbench.core.ssh import engines
    known: set[str] = set()
    for sub in engines.MAKE_TARGET:
        path = build / sub / "ctxbench-engine"
        if not path.is_file():
            continue
        qemu = None if sub == engines.here() else shutil.which(QEMU[sub])
        if sub != engines.here() and qemu is None:
            return None
        try:  # an engine, before it runs here: whatever else sits there is never run (the hosts say what it is)
            engines.for_arch(sub, build)
        except engines.NoEngine:
            return None
        try:
            known |= {b["id"] for b in json.loads(_listed([*([qemu] if qemu else []), str(path)]))}
        except (OSError, subprocess.SubprocessError, ValueError, TypeError, KeyError):
            return None
    return known or None


def _decidable_here(job, targets: list, build: Path) -> None:
    """What the hosts would each refuse alike is refused here, before any
    of them is contacted: run's ids that no engine the fleet has knows,
    and --cross-cpu on the CPU measured (the command's --cpu, else a
    host's ctxbench_cpu; without either, the host's highest CPU, which only
    the host knows)."""
    if job.ids and (known := known_ids(build)) is not None:
        bad = [i for i in job.ids if i not in known]
        if bad:
            raise UserError(f"fleet: the command after --: unknown id '{escaped(bad[0])}': no engine in "
                            f"{escaped(str(build))} knows it (see 'ctxbench-engine list')")
    x = job.cross_cpu
    if x is None:
        return
    if job.cpu is not None and job.cpu == x:
        raise UserError(f"fleet: the command after --: --cross-cpu {x} is the measured CPU (--cpu {x}): a "
                        "cross-CPU wake-up needs another CPU")
    same = next((h for h in targets if h.cpu == x), None) if job.cpu is None else None
    if same is not None:
        raise UserError(f"fleet: inventory host {shown_name(same.name)}: its ctxbench_cpu {x} is the command's "
                        "--cross-cpu: a cross-CPU wake-up needs another CPU")


class _LostWrites(logging.Filter):
    """asyncio's "socket.send() raised exception." (a transport written to
    after its connection was lost, logged from the fifth write on): on
    Ctrl-C while an engine is being copied, a dozen such lines came above
    'ctxbench: interrupted'. The host's row or the interruption says it."""

    def filter(self, record) -> bool:
        return record.getMessage() != "socket.send() raised exception."


@contextlib.contextmanager
def quiet_lost_writes():
    log, quiet = logging.getLogger("asyncio"), _LostWrites()
    log.addFilter(quiet)
    try:
        yield
    finally:
        log.removeFilter(quiet)


def _checker(args):
    """The command after -- parsed as the command line would (cli gives
    its parser), or None where cli gave none."""
    parse = getattr(args, "parse_command", None)
    return Check(parse) if parse is not None else None


class Check:
    """The command after -- parsed: its own bad option is one line, before any host
    (the fleet's, and the Ansible collection's: ansible/plugins/plugin_utils/front_end.py)."""

    def __init__(self, parse):
        self.parse = parse

    def __call__(self, argv: list[str]):
        try:
            with _silenced():  # --help (-h, --he) would print the command's help: said as one line instead
                return self.parse(argv)
        except UserError as e:
            raise UserError(f"fleet: the command after --: {e.why}")
        except SystemExit:  # --help
            raise UserError("fleet: the command after --: give its options, not --help "
                            f"(ctxbench {escaped(argv[0])} --help)")


@contextlib.contextmanager
def _silenced():
    """Nothing the block prints on stdout or stderr reaches them."""
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        yield




async def _all(targets, job, settings, parallel: int, report, finished, folder: Path, names: dict) -> list:
    """Every host, at most `parallel` at once, each one `finished` (its
    results written and recorded) as soon as it ends. Ctrl-C or SIGTERM
    here: each host still measuring is cancelled and cleans its host up
    before this returns the interruption; the hosts that had ended are
    kept."""
    gate = asyncio.Semaphore(parallel)
    tasks = [asyncio.ensure_future(_one(h, gate, job, settings, report, finished, folder, names)) for h in targets]
    loop = asyncio.get_running_loop()
    me = asyncio.current_task()
    loop.add_signal_handler(signal.SIGTERM, me.cancel)
    try:
        await asyncio.wait(tasks)
    except asyncio.CancelledError:
        for t in tasks:
            t.cancel()
        await asyncio.wait(tasks)  # each removes what it made on its host (remote.CLEAN_S, child.CLEAN_S)
        raise KeyboardInterrupt from None
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
    return [t.result() for t in tasks]


async def _one(h, gate: asyncio.Semaphore, job, settings, report, finished, folder: Path, names: dict) -> tuple:
    """One host measured when the gate lets it (the fast way, or a command's
    own process), then `finished` as one step."""
    from ctxbench.fleet import child, remote
    async with gate:
        if h.refused:  # an inventory host whose address or user is no name: never contacted
            o = remote.Outcome(h, reason=h.refused)
        elif job.child:
            o = await child.on_host(h, job, settings, report, folder, names[h.name])
        else:
            o = await remote.on_host(h, job.engine_args(h.cpu), settings, report)
    with _one_step():  # see ENDING
        o, doc = finished(o)
        report(h, "done" if o.ok else f"FAILED: {o.reason}")
    return o, doc


def _overhead(rows: list, wall: float, parallel: int) -> str:
    """What the orchestration cost per host: connect, prepare, copy, run,
    clean, analyse (medians over the hosts that got that far)."""
    import statistics
    parts = ("connect", "prepare", "copy", "run", "clean", "command", "analyse")
    med = {p: statistics.median(v) for p in parts if (v := [o.timings[p] for o, _ in rows if p in o.timings])}
    return (f"\n{len(rows)} host(s) in {wall:.2f} s, {parallel} at once; "
            + ("per host (median): " + ", ".join(f"{p} {med[p]:.2f} s" for p in parts if p in med) if med
               else "no host was connected to"))
