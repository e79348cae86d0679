"""`ctxbench fleet --collect DIR [--name NAME] [-o DIR] [--store URL |
--no-store] -- COMMAND`: the documents the Jobs of `--emit k8s` wrote
(<name>_<node>_<index>.json, copied out of their volume), each made a run
by the fleet's own step (fleet/job.document, as a host's engine output
over SSH), with the fleet's record naming the node, then written and
recorded through the lifecycle every command shares. A file that cannot
be read costs its own row and one line; the others are kept.

Two things the pod cannot say, the file says instead:
- the machine's name: a pod has a host name of its own (the Indexed Job's
  <name>-<index>, or a generated one), so the node's name, from the file's
  name, becomes the environment's hostname, as an SSH fleet's run of that
  machine records it; the pod's is kept in the fleet record (`pod`);
- when it ran: the engine renames its file into place when the run ends,
  so the file's modification time is the run's `started`, in UTC with its
  offset, so that the same file collected under any TZ is the same run
  (copy the files with their times: tar keeps them, kubectl cp does not).

What the command after -- says is checked against each file: its
results' groups and iterations are the preset's (the engine's table,
`ctxbench-engine presets`) or the command's own, and its ids the
preset's suite; a document that is already a command's (the output of
an earlier --collect, a `ctxbench run`'s) is no engine's and is refused."""
from __future__ import annotations

import datetime
import json
import os
import re
import sys
from dataclasses import dataclass, field

from ctxbench.core import model, reader
from ctxbench.core.errors import UserError, escaped, shown
from ctxbench.core.ssh.hosts import Host
from ctxbench.fleet import job as jobs
from ctxbench.lifecycle import Lifecycle

# manifest.file_name's names: neither a Job's name nor a node's holds '_'
FILE = re.compile(r"(?P<name>[a-z0-9]([-a-z0-9]*[a-z0-9])?)_(?P<node>[a-z0-9]([-a-z0-9.]*[a-z0-9])?)"
                  r"_(?P<index>[0-9]{1,6})\.json")
LEFT = re.compile(r"(?P<file>.+\.json)\.tmp\.[0-9]+")  # the engine's temporary file: its pod ended before the rename
MAX_BYTES = 256 << 20                                  # a document, as the fleet takes one from a host


@dataclass
class Row:
    """A file's row in the fleet's table (ending.summed_up)."""
    host: Host
    ok: bool = True
    reason: str = ""


@dataclass(frozen=True)
class Found:
    path: str
    name: str
    node: str
    index: int
    left: bool = False  # an engine's unfinished file: the pod that wrote it died before its run ended

    @property
    def stem(self) -> str:
        return os.path.basename(self.path)[:-len(".json")]


@dataclass
class Preset:
    """What the command after -- measures: each result's groups and
    iterations, and the ids of its preset's suite (None: not known here,
    where no engine could be asked)."""
    counts: dict = field(default_factory=dict)
    ids: set | None = None
    known: set = field(default_factory=set)


def run(args, job: jobs.Job) -> int:
    from ctxbench.fleet import ending
    folder = _folder(args)
    shown_ids = ending.chosen_ids(args) if job.command == "run" else []
    ending.outputs_usable(args, make=False)  # the figure, the store, -o: before any file is read; nothing made
    _store_outside(args.store, folder)
    found, skipped = files(folder, args.name)
    for line in skipped:
        print(f"  warning: {line}", file=sys.stderr)
    if not found:
        which = f" of the Job {args.name}" if args.name else ""
        raise UserError(f"fleet --collect: no file{which} in {shown(folder)} (the Jobs write "
                        "<name>_<node>_<index>.json: docs/kubernetes.md)")
    preset = preset_of(job, getattr(args, "engine", None))
    ending.make_output(args)  # everything checked: -o is made now, and only now
    inputs = tuple(f.path for f in found)  # no output may land on any of them (a symlink in -o to another file)
    kept = _Kept(args.store) if not args.output else None
    rows = [one(f, job, args, preset, inputs, kept) for f in found]
    return ending.summed_up(job, args, rows, shown_ids, what="file")


def _folder(args) -> str:
    folder = args.collect
    if not os.path.isdir(folder):
        raise UserError(f"fleet --collect: {shown(folder)} is no directory (give the one the Jobs' files were "
                        "copied into)")
    if args.output == "":
        raise UserError("fleet --collect: -o '': an empty directory name (leave -o out to keep each run in the "
                        "data directory)")
    if args.output and os.path.isdir(args.output) and os.path.samefile(args.output, folder):
        raise UserError(f"fleet --collect: -o {shown(args.output)} is the directory collected: each run would "
                        "replace its engine's file (give another directory)")
    return folder


def _store_outside(flag: str | None, folder: str) -> None:
    """A SQLite store inside DIR would be read as the Jobs' files are: refused."""
    from ctxbench.core.store import choice
    place = choice.decide(flag, writes=True, measuring=True)
    if place is None or not place.sqlite:
        return
    top = os.path.realpath(folder)
    if os.path.commonpath([top, os.path.realpath(place.path)]) == top:
        raise UserError(f"fleet --collect: the results store {shown(place.path)} is inside the directory collected "
                        f"{shown(folder)}: keep the store elsewhere (--store)")


def files(folder: str, name: str | None) -> tuple[list[Found], list[str]]:
    """The Jobs' files in `folder` (only Job `name`'s, where given), in
    order, an engine's unfinished file among them where no finished one
    took its place (its pod died mid-run: a failed row); and a line for
    each file there that looks like one and is not."""
    try:
        names = sorted(e.name for e in os.scandir(folder))
    except OSError as e:
        raise UserError(f"fleet --collect: cannot list {shown(folder)}: {e.strerror or e}")
    found, skipped = [], []
    for entry in names:
        path = os.path.join(folder, entry)
        m, left = FILE.fullmatch(entry), LEFT.fullmatch(entry)
        if left and not m:
            m = FILE.fullmatch(left["file"])
            if m and left["file"] in names:
                skipped.append(f"{shown(path)} left out: an engine's unfinished file, beside the finished one")
                continue
        if m:
            if name is None or m["name"] == name:
                found.append(Found(path, m["name"], m["node"], int(m["index"]), left=bool(left)))
        elif entry.endswith(".json"):
            skipped.append(f"{shown(path)} left out: not named <name>_<node>_<index>.json")
        elif left:
            skipped.append(f"{shown(path)} left out: an engine's unfinished file of no Job's name")
    return found, skipped


def preset_of(job: jobs.Job, engine) -> Preset:
    """The counts and ids the command after -- measures: the preset's, from
    the engine here (its table is the one the pods' engine has), each
    --groups or --iterations given instead. Without an engine to ask, only
    what the command gives is checked, and one line says so."""
    want = Preset({k: v for k, v in (("groups", job.groups), ("iterations", job.iterations)) if v is not None})
    if job.command != "run":
        return want
    try:
        if engine is None:
            raise UserError("no engine")
        counts = engine.presets()[job.preset or "default"]
        listed = engine.list_benchmarks(all_=True)
    except (UserError, OSError, KeyError, TypeError) as e:
        print(f"  warning: the preset's counts and ids are not checked: no engine here to ask "
              f"({escaped(str(e))})", file=sys.stderr)
        return want
    suite = "quick" if job.preset == "quick" else "default"
    want.counts = {"groups": counts.get("groups"), "iterations": counts.get("iterations"), **want.counts}
    want.known = {b.get("id") for b in listed if isinstance(b, dict)}
    want.ids = {b.get("id") for b in listed if isinstance(b, dict) and b.get(suite)}
    return want


def one(f: Found, job: jobs.Job, args, preset: Preset, inputs: tuple[str, ...], kept: _Kept | None) -> tuple:
    """A file made a run, written and recorded; (its row, the document,
    None where the file could not be read: its row says why)."""
    from ctxbench.fleet.ending import one_step
    row = Row(Host(name=f.node, address=f.node))
    try:
        if f.left:
            raise UserError(f"{shown(f.path)}: an engine's unfinished file: its pod ended before the run did")
        doc = _read(f, job, preset)
    except UserError as e:
        row.ok, row.reason = False, str(e)
        said = str(e) if shown(f.path) in str(e) else f"{shown(f.path)}: {e}"  # the reader names the file itself
        print(f"  warning: {escaped(said)}; the other files are kept", file=sys.stderr)
        return row, None
    try:
        with one_step():  # written and recorded together: Ctrl-C or SIGTERM is answered after, not between
            run_id = kept.run_of(doc) if kept is not None else None
            if run_id is not None:  # no -o, and the store has it: another copy in the data directory says nothing
                print(f"\n{shown(f.path)}: already kept in the results store {kept.name} (run {run_id}): no copy "
                      "written")
            else:
                life = Lifecycle(f"fleet-{f.stem}", os.path.join(args.output, f"{f.stem}.json") if args.output
                                 else None, inputs=inputs, store=args.store)
                life.write(doc)  # a write that fails keeps the run in a fallback file its reason names
                life.finish()    # a store that cannot take the run costs a warning, not the run
    except UserError as e:
        row.ok, row.reason = False, str(e)
    failures = model.Document(doc).failures
    if failures and row.ok:
        row.ok, row.reason = False, (f"{len(failures)} id(s) failed, the others kept (first: "
                                     f"{failures[0]['id']}: {failures[0]['error']})")
    return row, doc


class _Kept:
    """The store's runs, asked (read only) whether it keeps one already."""

    def __init__(self, flag: str | None):
        from ctxbench.core.store import choice
        self.place = choice.decide(flag, writes=True, measuring=True)
        self.name = self.place.name if self.place is not None else ""
        self._store = None

    def run_of(self, doc) -> int | None:
        if self.place is None or (self.place.sqlite and not os.path.isfile(self.place.path)):
            return None
        from sqlalchemy import select
        from ctxbench.core.store import db, record
        from ctxbench.core.store.tables import runs
        try:
            self._store = self._store or db.Store(self.place)
            with self._store.begin(write=False) as conn:
                have = conn.execute(select(runs.c.id).where(runs.c.digest == record.digest(doc))).scalar()
        except Exception:  # noqa: BLE001 (a store it cannot ask here: the run is written and recorded as usual)
            return None
        return int(have) if have is not None else None


def _read(f: Found, job: jobs.Job, preset: Preset):
    """The file's document as the fleet makes a host's: its node named, its time the file's (UTC)."""
    try:
        st = os.stat(f.path)
    except OSError as e:
        raise UserError(f"cannot read {shown(f.path)}: {e.strerror or e}")
    if st.st_size > MAX_BYTES:  # said before it is read, not after 256 MiB of it are in memory
        raise UserError(f"{shown(f.path)}: {st.st_size >> 20} MiB, more than an engine's document "
                        f"({MAX_BYTES >> 20} MiB at most)")
    raw = reader.read_bytes(f.path, MAX_BYTES)
    when = datetime.datetime.fromtimestamp(st.st_mtime, datetime.timezone.utc).isoformat(timespec="seconds")
    doc, pod = _on_node(raw, f, job, preset)
    fleet = {"host": f.node, "address": None, "arch": str(model.Document(doc).environment.machine or ""),
             "groups": [], "cpu": None, "command": list(job.argv), "timings_s": {}, "started": when,
             "kubernetes": {"job": f.name, "index": f.index, "file": os.path.basename(f.path), "pod": pod}}
    return jobs.document(job, json.dumps(doc, allow_nan=False).encode(), fleet)


def _record_line(raw: bytes) -> bytes:
    """env's record in a pod's log (`kubectl logs` mixes in stderr's
    lines): the one line that is a JSON object; the whole text where no
    line is (then said as any damaged file is)."""
    for line in raw.splitlines():
        if line.lstrip().startswith(b"{"):
            try:
                if isinstance(json.loads(line), dict):
                    return line
            except ValueError:
                continue
    return raw


def _on_node(raw: bytes, f: Found, job: jobs.Job, preset: Preset) -> tuple[dict, str | None]:
    """The engine's document with the node's name as its hostname, and the
    pod's host name it had; checked to be what the command makes (a run's
    results, or env's record alone), and an engine's, not a command's."""
    if job.command == "env":
        raw = _record_line(raw)
    doc = reader.decode(raw, shown(f.path))
    if not isinstance(doc, dict) or not isinstance(doc.get("environment"), dict):
        raise UserError("not an engine's document (no environment record)")
    made = model.Document(doc).command or ("fleet" if "fleet" in doc else None)
    if made is not None:
        raise UserError(f"a {escaped(made)} command's document (its '{escaped(made)}' record), not an engine's "
                        "output: collect the files the pods wrote")
    if job.command == "run" and not isinstance(doc.get("results"), list):
        raise UserError("no results: an environment record (give -- env), not a run's document")
    if job.command == "env" and doc.get("results"):
        raise UserError("results: a run's document, not env's record (give the command the Jobs ran)")
    _agrees(doc, job, preset)
    env = doc["environment"]
    pod = env.get("hostname") if isinstance(env.get("hostname"), str) else None
    return {**doc, "environment": {**env, "hostname": f.node}}, pod


def _agrees(doc: dict, job: jobs.Job, preset: Preset) -> None:
    """Each result measured with the command's groups and iterations (its
    --groups and --iterations, else its preset's), and each id one of the
    preset's suite: a file of another run is not recorded as this one."""
    which = f"the preset {job.preset or 'default'}'s" if job.command == "run" else ""
    given = {"groups": job.groups, "iterations": job.iterations}
    entries = [r for r in (doc.get("results") or []) + (doc.get("failures") or []) if isinstance(r, dict)]
    for key, want in preset.counts.items():
        if want is None:
            continue
        for r in doc.get("results") or []:
            got = (r.get("params") or {}).get(key) if isinstance(r, dict) else None
            if got is not None and got != want:
                said = f"the command's --{key} {want}" if given.get(key) is not None else f"{which} {want}"
                raise UserError(f"measured with {key} {got}, not {said} (give the command the Jobs ran)")
    if preset.ids is None:
        return
    for r in entries:
        i = r.get("id")
        if i in preset.known and i not in preset.ids:  # an id this engine does not know: another architecture's
            raise UserError(f"measured {escaped(str(i))}, which {which} suite does not (give the command the Jobs "
                            "ran)")
