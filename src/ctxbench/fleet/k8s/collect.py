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
  so the file's modification time is the run's `started` (copy the files
  with their times: tar keeps them, kubectl cp does not)."""
from __future__ import annotations

import datetime
import json
import os
import re
import sys
from dataclasses import dataclass

from ctxbench.core import model, reader
from ctxbench.core.errors import UserError, escaped, shown
from ctxbench.core.ssh.hosts import Host
from ctxbench.fleet import job as jobs
from ctxbench.lifecycle import Lifecycle

# manifest.file_name's names: neither a Job's name nor a node's holds '_'
FILE = re.compile(r"(?P<name>[a-z0-9]([-a-z0-9]*[a-z0-9])?)_(?P<node>[a-z0-9]([-a-z0-9.]*[a-z0-9])?)"
                  r"_(?P<index>[0-9]{1,6})\.json")
LEFT = re.compile(r".+\.json\.tmp\.[0-9]+")  # the engine's temporary file: its pod ended before the rename
MAX_BYTES = 256 << 20                        # a document, as the fleet takes one from a host


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

    @property
    def stem(self) -> str:
        return os.path.basename(self.path)[:-len(".json")]


def run(args, job: jobs.Job) -> int:
    from ctxbench.fleet import ending
    folder = _folder(args)
    shown_ids = ending.chosen_ids(args) if job.command == "run" else []
    ending.outputs_usable(args)  # the figure, -o and the store: before any file is read
    found, skipped = files(folder, args.name)
    for line in skipped:
        print(f"  warning: {line}", file=sys.stderr)
    if not found:
        which = f" of the Job {args.name}" if args.name else ""
        raise UserError(f"fleet --collect: no file{which} in {shown(folder)} (the Jobs write "
                        "<name>_<node>_<index>.json: docs/kubernetes.md)")
    rows = [one(f, job, args) for f in found]
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


def files(folder: str, name: str | None) -> tuple[list[Found], list[str]]:
    """The Jobs' files in `folder` (only Job `name`'s, where given), in
    order; and a line for each file there that looks like one and is not:
    a .json of another name, an engine's temporary file left behind."""
    found, skipped = [], []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        m = FILE.fullmatch(entry.name)
        if m:
            if name is None or m["name"] == name:
                found.append(Found(entry.path, m["name"], m["node"], int(m["index"])))
        elif entry.name.endswith(".json"):
            skipped.append(f"{shown(entry.path)} left out: not named <name>_<node>_<index>.json")
        elif LEFT.fullmatch(entry.name):
            skipped.append(f"{shown(entry.path)} left out: an engine's unfinished file (its pod ended before the "
                           "run did)")
    return found, skipped


def one(f: Found, job: jobs.Job, args) -> tuple[Row, object]:
    """A file made a run, written and recorded; (its row, the document,
    None where the file could not be read: its row says why)."""
    row = Row(Host(name=f.node, address=f.node))
    try:
        doc = _read(f, job)
    except UserError as e:
        row.ok, row.reason = False, str(e)
        said = str(e) if shown(f.path) in str(e) else f"{shown(f.path)}: {e}"  # the reader names the file itself
        print(f"  warning: {escaped(said)}; the other files are kept", file=sys.stderr)
        return row, None
    try:
        life = Lifecycle(f"fleet-{f.stem}", os.path.join(args.output, f"{f.stem}.json") if args.output else None,
                         inputs=(f.path,), store=args.store)
        life.write(doc)  # a write that fails keeps the run in a fallback file its reason names
        life.finish()    # a store that cannot take the run costs a warning, not the run
    except UserError as e:
        row.ok, row.reason = False, str(e)
    failures = model.Document(doc).failures
    if failures and row.ok:
        row.ok, row.reason = False, (f"{len(failures)} id(s) failed, the others kept (first: "
                                     f"{failures[0]['id']}: {failures[0]['error']})")
    return row, doc


def _read(f: Found, job: jobs.Job):
    """The file's document as the fleet makes a host's: its node named, its time the file's."""
    raw = reader.read_bytes(f.path, MAX_BYTES)
    when = datetime.datetime.fromtimestamp(os.stat(f.path).st_mtime).isoformat(timespec="seconds")
    doc, pod = _on_node(raw, f, job)
    fleet = {"host": f.node, "address": None, "arch": str(model.Document(doc).environment.machine or ""),
             "groups": [], "cpu": None, "command": list(job.argv), "timings_s": {}, "started": when,
             "kubernetes": {"job": f.name, "index": f.index, "file": os.path.basename(f.path), "pod": pod}}
    return jobs.document(job, json.dumps(doc, allow_nan=False).encode(), fleet)


def _on_node(raw: bytes, f: Found, job: jobs.Job) -> tuple[dict, str | None]:
    """The engine's document with the node's name as its hostname, and the
    pod's host name it had; checked to be what the command makes (a run's
    results, or env's record alone)."""
    if job.command == "env":  # `kubectl logs` gives stderr's lines too: the record is the line that opens with {
        at = raw.find(b"{")
        raw = raw[at:] if at >= 0 else raw
    doc = reader.decode(raw, shown(f.path))
    if not isinstance(doc, dict) or not isinstance(doc.get("environment"), dict):
        raise UserError("not an engine's document (no environment record)")
    if job.command == "run" and not isinstance(doc.get("results"), list):
        raise UserError("no results: an environment record (give -- env), not a run's document")
    if job.command == "env" and doc.get("results"):
        raise UserError("results: a run's document, not env's record (give the command the Jobs ran)")
    _agrees(doc, job)
    env = doc["environment"]
    pod = env.get("hostname") if isinstance(env.get("hostname"), str) else None
    return {**doc, "environment": {**env, "hostname": f.node}}, pod


def _agrees(doc: dict, job: jobs.Job) -> None:
    """--groups and --iterations, where the command gives them, are what
    each result was measured with (a file of another run is not recorded as this one)."""
    for key, want in (("groups", job.groups), ("iterations", job.iterations)):
        if want is None:
            continue
        for r in doc.get("results") or []:
            got = (r.get("params") or {}).get(key) if isinstance(r, dict) else None
            if got is not None and got != want:
                raise UserError(f"measured with {key} {got}, not the command's --{key} {want} (give the command "
                                "the Jobs ran)")
