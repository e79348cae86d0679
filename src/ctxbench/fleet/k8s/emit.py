"""`ctxbench fleet --emit k8s ... -- COMMAND`: the manifest (manifest.py)
written to -o FILE, atomically, or to standard output. Nothing is
measured and no cluster is asked anything."""
from __future__ import annotations

import math
import re
import shlex
import sys

from ctxbench.core import writer
from ctxbench.core.errors import UserError, escaped, shown
from ctxbench.fleet import job as jobs
from ctxbench.fleet.k8s import manifest, values

DEFAULT_TIMEOUT_S = 1800  # the SSH fleet's --timeout default: the whole Job here, waiting for nodes included


def run(args, job: jobs.Job) -> int:
    from ctxbench import __version__
    spec = _spec(args, job, __version__)
    text = manifest.text(spec, __version__)
    if args.output is None or args.output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    if args.output == "":
        raise UserError("fleet --emit k8s: -o '': an empty file name (leave -o out for standard output)")
    writer.write_text(writer.check_writable(args.output), text, "the manifest")
    jobs_n = len(spec.nodes) or 1
    print(f"manifest written to {shown(args.output)}: {jobs_n} Job(s), {len(spec.nodes) or spec.count} pod(s) "
          f"in namespace {spec.namespace} (kubectl apply -f {_typed(args.output)})")
    return 0


def _typed(path: str) -> str:
    """`path` as a shell takes it (quoted where it must be); escaped only
    where it holds characters a terminal must not be sent."""
    quoted = shlex.quote(path)
    return quoted if escaped(quoted) == quoted else escaped(quoted)


def _spec(args, job: jobs.Job, version: str) -> manifest.Spec:
    if args.nodes and args.count:
        raise UserError("fleet --emit k8s: --nodes names the nodes, --count lets the scheduler pick them: give one")
    if not args.nodes and not args.count:
        raise UserError("fleet --emit k8s: say where: --nodes a,b,c (a Job per node) or --count N (one Indexed "
                        "Job, one pod per node)")
    timeout = args.timeout if args.timeout is not None else DEFAULT_TIMEOUT_S
    name = args.name or f"ctxbench-{job.command}"
    for i, node in enumerate(args.nodes or ()):  # the pod's file is named by the node: it must fit a file name
        file = manifest.file_name(name, node, str(i))
        if len(file.encode()) > values.MAX_FILE_NAME:
            raise UserError(f"fleet --emit k8s: node {node}: its pod's file {file} would be {len(file.encode())} "
                            f"bytes, more than a file name takes ({values.MAX_FILE_NAME}): give a shorter --name, "
                            "or --count")
    return manifest.Spec(
        name=name, namespace=args.namespace or values.DEFAULT_NAMESPACE,
        image=args.image or default_image(version), cpus=args.cpus or values.DEFAULT_CPUS,
        memory=args.memory or values.DEFAULT_MEMORY,
        volume=args.volume or values.Volume("claim", values.DEFAULT_CLAIM), timeout_s=int(math.ceil(timeout)),
        engine_args=tuple(job.engine_args(None)), command=tuple(job.argv), nodes=args.nodes or (),
        count=args.count or 0)


def default_image(version: str) -> str:
    """The tag `make k8s-image` gives (mk/k8s.mk): the package's version, as a tag may spell it."""
    return f"ctxbench-engine:{re.sub(r'[^A-Za-z0-9_.-]', '-', version)}"
