"""The Kubernetes options of `ctxbench fleet` and what each accepts, as
argparse types: a bad value is one line (`ctxbench: fleet: argument
--nodes: ...`) before anything is written. Names follow Kubernetes' own
rules (RFC 1123 labels and subdomains), so that what is refused here is
what the API server would refuse there, said before a manifest exists."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ctxbench.core.errors import escaped
from ctxbench.ui import options

Bad = options.Bad

MAX_NODES = 1000     # pods of one Indexed Job, or Jobs of one manifest
MAX_NAME = 40        # a Job's name: its pods' host names are <name>-<index> (63 at most), its Jobs <name>-<i>
DEFAULT_CPUS = 2     # the measuring CPU and one more, for the cross-CPU ids
DEFAULT_MEMORY = "256Mi"
DEFAULT_CLAIM = "ctxbench-results"
DEFAULT_NAMESPACE = "ctxbench"

_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")        # RFC 1123 label
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
# an image reference: [registry[:port]/]path[:tag][@sha256:digest], as Docker's grammar has it
_PART = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_IMAGE = re.compile(rf"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]+)?/)?{_PART}(?:/{_PART})*"
                    r"(?::\w[\w.-]{0,127})?(?:@sha256:[0-9a-f]{64})?", re.ASCII)  # Docker's \w: ASCII
_MEMORY = re.compile(r"([1-9][0-9]{0,12})(Ki|Mi|Gi|Ti)?")
_SHIFT = {None: 0, "Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40}
MIN_MEMORY = 32 << 20  # the static engine and its parties' stacks (it measures with a few MiB)
MAX_MEMORY = 64 << 40  # 64Ti: more than any node has; a bigger number is a typing slip
MAX_FILE_NAME = 255    # bytes of a file's name on Linux file systems: <name>_<node>_<index>.json must fit


def unprintable(text: str) -> str | None:
    """The first character of `text` that no value in the manifest may
    hold, or None: C0 and C1 controls, YAML's line breaks (U+0085, U+2028,
    U+2029: a comment or plain scalar would end there), bidi and other
    format characters (what errors.escaped writes as escapes)."""
    for c in text:
        if escaped(c) != c or unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp"):
            return c
    return None


def label(text: str, what: str = "a name", most: int = 63) -> str:
    """A DNS label: lower-case letters, digits and '-', at most `most` characters."""
    if len(text) > most or not _LABEL.fullmatch(text):
        raise Bad(f"'{escaped(text)}' is not {what} Kubernetes takes (lower-case letters, digits and '-', "
                  f"at most {most} characters, a letter or digit at each end)")
    return text


def node(text: str) -> str:
    """A node's name: a DNS subdomain (RFC 1123), as the API server takes it."""
    if len(text) > 253 or not _SUBDOMAIN.fullmatch(text) or any(len(p) > 63 for p in text.split(".")):
        raise Bad(f"'{escaped(text)}' is not a node name (lower-case letters, digits, '-' and '.', as "
                  "'kubectl get nodes' shows them)")
    return text


def nodes(text: str) -> tuple[str, ...]:
    """--nodes a,b,c: each a node name, none twice."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise Bad("an empty list (name the nodes, as 'kubectl get nodes' shows them: a,b,c)")
    if len(names) > MAX_NODES:
        raise Bad(f"{len(names)} nodes: at most {MAX_NODES} in one manifest")
    seen = [node(n) for n in names]
    twice = next((n for i, n in enumerate(seen) if n in seen[:i]), None)
    if twice is not None:
        raise Bad(f"node '{twice}' is named twice: one pod per node")
    return tuple(seen)


def name(text: str) -> str:
    return label(text, "a Job name", MAX_NAME)


def namespace(text: str) -> str:
    return label(text, "a namespace")


def image(text: str) -> str:
    if len(text) > 255 or not _IMAGE.fullmatch(text):
        raise Bad(f"'{escaped(text)}' is not an image reference ([registry/]name[:tag][@sha256:digest], "
                  "as 'docker push' takes it)")
    return text


def memory(text: str) -> str:
    """A memory quantity in bytes or binary units (Ki, Mi, Gi, Ti), as
    Kubernetes writes it; at least MIN_MEMORY."""
    m = _MEMORY.fullmatch(text)
    if not m:
        raise Bad(f"'{escaped(text)}' is not a memory size Kubernetes takes here (a whole number of bytes, "
                  "or with Ki, Mi, Gi, Ti: 256Mi, 1Gi)")
    size = int(m.group(1)) << _SHIFT[m.group(2)]
    if size < MIN_MEMORY:
        raise Bad(f"{text} is less than the engine needs (at least {MIN_MEMORY >> 20}Mi)")
    if size > MAX_MEMORY:
        raise Bad(f"{text} is more than any node has (at most {MAX_MEMORY >> 40}Ti)")
    return text


@dataclass(frozen=True)
class Volume:
    """Where the pods write their files: a PersistentVolumeClaim's name, or a directory on each node."""
    kind: str   # "claim" or "host"
    where: str


def volume(text: str) -> Volume:
    """claim:NAME (a PersistentVolumeClaim every node can mount: ReadWriteMany)
    or host:DIR (a directory on each node, absolute, not /)."""
    kind, sep, where = text.partition(":")
    if kind == "claim" and sep:
        if not where:
            raise Bad("claim: names no claim (claim:NAME, the PersistentVolumeClaim's name)")
        if len(where) > 253 or not _SUBDOMAIN.fullmatch(where) or any(len(p) > 63 for p in where.split(".")):
            raise Bad(f"claim:{escaped(where)}: not a claim name Kubernetes takes (lower-case letters, digits, "
                      "'-' and '.', as 'kubectl get pvc' shows them)")
        return Volume("claim", where)
    if kind == "host" and sep:
        bad = unprintable(where)
        if bad is not None:  # a YAML line break would end the header's comment, a control fool a terminal
            raise Bad(f"host:{escaped(where)}: {escaped(bad)} is a control, line-break or format character "
                      "(give a plain directory name)")
        parts = where.split("/")
        if not where.startswith("/") or where.rstrip("/") == "" or ".." in parts:
            raise Bad(f"host:{escaped(where)}: give an absolute directory on the nodes, not / and without '..' "
                      "(host:/var/lib/ctxbench)")
        return Volume("host", where.rstrip("/"))
    raise Bad(f"'{escaped(text)}': give claim:NAME (a PersistentVolumeClaim) or host:DIR (a directory on each node)")


def add(p) -> None:
    """The options, in a group of their own in `ctxbench fleet --help`. Each
    default is None here (decided where it is used), so that an option given
    where it means nothing is seen and refused (entry.py)."""
    g = p.add_argument_group("Kubernetes (docs/kubernetes.md)")
    g.add_argument("--emit", choices=("k8s",), metavar="k8s", help="write Kubernetes Jobs that run the command "
                   "after -- instead of measuring here (run with a preset's options, or env): to -o FILE, else "
                   "standard output")
    g.add_argument("--collect", metavar="DIR", help="record the documents the Jobs wrote (DIR/<name>_<node>_"
                   "<index>.json) as runs, each named by its node; give the command after -- as emitted (each file "
                   "must be what its preset measures)")
    g.add_argument("--nodes", type=nodes, metavar="NODE,...", help="(--emit) one Job per node, pinned to it")
    g.add_argument("--count", type=options.count(1, MAX_NODES), metavar="N",
                   help="(--emit) one Indexed Job of N pods, at most one per node, on any nodes")
    g.add_argument("--name", type=name, metavar="NAME", help="the Job's name and its files' first part "
                   "(default: ctxbench-<command>); with --collect, only that Job's files")
    g.add_argument("--namespace", type=namespace, metavar="NS", help=f"(--emit) default {DEFAULT_NAMESPACE}")
    g.add_argument("--image", type=image, metavar="IMAGE", help="(--emit) the engine's image (default: "
                   "ctxbench-engine:<version>, as make k8s-image tags it)")
    g.add_argument("--cpus", type=options.count(1, 512), metavar="N",
                   help=f"(--emit) whole CPUs per pod, requests = limits: Guaranteed QoS, exclusive CPUs under "
                        f"the static CPU manager (default {DEFAULT_CPUS})")
    g.add_argument("--memory", type=memory, metavar="SIZE",
                   help=f"(--emit) memory per pod, requests = limits (default {DEFAULT_MEMORY}; "
                        f"{MIN_MEMORY >> 20}Mi to {MAX_MEMORY >> 40}Ti)")
    g.add_argument("--volume", type=volume, metavar="claim:NAME|host:DIR",
                   help=f"(--emit) where the pods write their files: a ReadWriteMany claim, or a directory on "
                        f"each node (default claim:{DEFAULT_CLAIM})")
