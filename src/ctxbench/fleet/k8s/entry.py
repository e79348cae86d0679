"""Which Kubernetes step a `ctxbench fleet` command line asks for
(--emit k8s or --collect DIR), and the options that mean nothing there:
each is one line, never silently ignored (an SSH fleet's --inventory
with --emit, an --image without --emit)."""
from __future__ import annotations

import shlex

from ctxbench.core.errors import UserError, escaped
from ctxbench.fleet import job as jobs

# the options only --emit k8s uses (argparse dest: flag)
EMIT_ONLY = {"nodes": "--nodes", "count": "--count", "namespace": "--namespace", "image": "--image",
             "cpus": "--cpus", "memory": "--memory", "volume": "--volume"}
# the SSH fleet's own
SSH = {"hosts": "HOST", "inventory": "--inventory", "limit": "--limit", "parallel": "--parallel",
       "ssh_config": "--ssh-config", "engines": "--engines"}
# what the control side does with runs: --collect's, not the manifest's
RUNS = {"show": "--show", "plot": "--plot", "store": "--store/--no-store"}


def wanted(args) -> bool:
    return getattr(args, "emit", None) is not None or getattr(args, "collect", None) is not None


def run(args, check) -> int:
    """--emit k8s or --collect DIR; `check` parses the command after -- as
    its own command line would (command._checker)."""
    if args.emit is not None and args.collect is not None:
        raise UserError("fleet: --emit writes the Jobs, --collect reads what they wrote: give one of them")
    if args.emit is not None:
        _refuse(args, SSH, "--emit k8s", "is the SSH fleet's (the Jobs' nodes are --nodes or --count)")
        _refuse(args, RUNS, "--emit k8s", "is for --collect (the manifest measures and records nothing)")
        from ctxbench.fleet.k8s import emit
        job = fast_job(args, check, "--emit k8s")
        if job.command == "env":
            _refuse(args, {"volume": "--volume"}, "--emit k8s -- env", "means nothing here: env's pods write no "
                    "file (their records are their logs)")
        return emit.run(args, job)
    _refuse(args, {**SSH, "timeout": "--timeout"}, "--collect", "is the SSH fleet's (--collect reads files)")
    _refuse(args, EMIT_ONLY, "--collect", "is for --emit k8s")
    from ctxbench.fleet.k8s import collect
    job = fast_job(args, check, "--collect")
    if job.command == "env":
        _refuse(args, {"show": "--show", "plot": "--plot"}, "--collect -- env", "means nothing here: env's "
                "records have no ids to show or draw")
    return collect.run(args, job)


def none_given(args) -> None:
    """The SSH fleet: a Kubernetes option there is one line."""
    _refuse(args, EMIT_ONLY, "", "is for --emit k8s")
    _refuse(args, {"name": "--name"}, "", "is for --emit k8s and --collect")


def _refuse(args, flags: dict[str, str], step: str, why: str) -> None:
    given = [flag for dest, flag in flags.items() if getattr(args, dest, None) not in (None, [], False)]
    if given:
        raise UserError(f"fleet{' ' + step if step else ''}: {given[0]} {why}")


def fast_job(args, check, step: str) -> jobs.Job:
    """The command after --, which must be the fast way's: only the engine
    runs in the image (no Python, no ctxbench), and the kubelet, not the
    command, picks the pod's CPUs."""
    job = jobs.parse(args.remote or [], check=check)
    if job.child:
        raise UserError(f"fleet {step}: '{escaped(shlex.join(job.argv))}' needs ctxbench itself on the node: only "
                        "the fast way runs as the engine alone in a small image (run with --quick, --full, "
                        "--groups, --iterations; or env)")
    if job.cpu is not None:
        raise UserError(f"fleet {step}: the command after --: --cpu: the kubelet's CPU manager gives each pod its "
                        "CPUs, and the engine measures on the highest of them (leave --cpu out)")
    return job
