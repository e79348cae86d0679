"""The Jobs `ctxbench fleet --emit k8s` writes, as Kubernetes objects
(plain dicts, batch/v1) and their YAML. Measuring nothing, they are pure:
the same options give the same text.

One pod per node, either way:
- `--count N`: one Indexed Job, completions = parallelism = N, and a
  required pod anti-affinity on kubernetes.io/hostname against every
  ctxbench pod: no two share a node (the scheduler picks which N nodes);
- `--nodes a,b,c`: one Job per node, held to it by a required node
  affinity on the node's name (metadata.name: exact, whatever its labels).

Each pod is Guaranteed QoS by construction: one container, whole CPUs,
requests = limits for CPU and memory; under the kubelet's static CPU
manager it gets those CPUs exclusively, and the engine measures on the
highest of them (its default). The engine runs alone in its image as
a non-root user, with no capability, no privilege escalation, a
read-only root file system and the runtime's seccomp profile; it writes
its document with -o (atomically: a temporary file, then a rename) to
the volume, named <name>_<node>_<index>.json, the node from the downward
API. `env` has no -o in the engine: its record goes to the pod's log."""
from __future__ import annotations

import shlex
from dataclasses import dataclass

import yaml

from ctxbench.core.errors import escaped
from ctxbench.fleet.k8s.values import Volume

USER = 65532         # the image's user (k8s/Dockerfile): no name needed, no /etc/passwd in the image
MOUNT = "/results"   # the volume, in the pod
ENGINE = "/ctxbench-engine"
TTL_S = 24 * 3600    # a finished Job and its pods (their logs: env's records) stay a day, then go
GRACE_S = 10         # SIGTERM to SIGKILL: the engine stops its parties and removes its temporary file
# the architectures ctxbench builds an engine for (mk/static.mk, mk/arm.mk), as Kubernetes names them
ARCHES = ("amd64", "arm64", "arm")
APP = "ctxbench"     # app.kubernetes.io/name of every measuring pod: the anti-affinity keeps them apart
INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"


@dataclass(frozen=True)
class Spec:
    """What the manifest says, every option decided (emit.py)."""
    name: str
    namespace: str
    image: str
    cpus: int
    memory: str
    volume: Volume
    timeout_s: int
    engine_args: tuple[str, ...]   # the engine's command (fleet/job.Job.engine_args), without -o
    command: tuple[str, ...]       # the command after --, as given (for the annotations)
    nodes: tuple[str, ...] = ()    # a Job per node; else `count` pods of one Indexed Job
    count: int = 0

    @property
    def writes_file(self) -> bool:
        """run-suite writes its document with -o; env only prints its record."""
        return self.engine_args[:1] != ("env",)


def file_name(name: str, node: str, index: str) -> str:
    """A pod's file in the volume: node and index apart by '_', which
    neither a Job's name nor a node's may hold (collect.py reads it back)."""
    return f"{name}_{node}_{index}.json"


def jobs(spec: Spec) -> list[dict]:
    """The manifest's objects: one Indexed Job, or one Job per node."""
    if spec.nodes:
        return [_job(spec, f"{spec.name}-{i}", _per_node(spec, n, i)) for i, n in enumerate(spec.nodes)]
    return [_job(spec, spec.name, _indexed(spec))]


def _indexed(spec: Spec) -> dict:
    """N pods, one Job: indexes 0..N-1, each tried once, its failure its own
    (backoffLimitPerIndex: a failed pod does not end the others)."""
    index = {"name": "INDEX", "valueFrom": {"fieldRef": {"fieldPath": f"metadata.annotations['{INDEX_ANNOTATION}']"}}}
    return {"completionMode": "Indexed", "completions": spec.count, "parallelism": spec.count,
            "backoffLimitPerIndex": 0, "template": _pod(spec, index, _affinity())}


def _per_node(spec: Spec, node: str, i: int) -> dict:
    """One pod on `node`, tried once."""
    return {"completions": 1, "parallelism": 1, "backoffLimit": 0,
            "template": _pod(spec, {"name": "INDEX", "value": str(i)}, _affinity(node))}


def _labels(spec: Spec) -> dict:
    return {"app.kubernetes.io/name": APP, "app.kubernetes.io/instance": spec.name,
            "app.kubernetes.io/component": "engine"}


def _job(spec: Spec, name: str, body: dict) -> dict:
    words = shlex.join(spec.command)
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": spec.namespace, "labels": _labels(spec),
                         "annotations": {"ctxbench/command": words,
                                         "ctxbench/collect": f"ctxbench fleet --collect DIR --name {spec.name} "
                                                             f"-- {words}"}},
            "spec": {**body, "activeDeadlineSeconds": spec.timeout_s, "ttlSecondsAfterFinished": TTL_S}}


def _affinity(node: str | None = None) -> dict:
    """Linux nodes of an architecture ctxbench builds (`node` alone, where
    one is named), never two ctxbench pods on one node."""
    term = {"matchExpressions": [{"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
                                 {"key": "kubernetes.io/arch", "operator": "In", "values": list(ARCHES)}]}
    if node is not None:  # the node's name itself: a label (kubernetes.io/hostname) may differ from it
        term["matchFields"] = [{"key": "metadata.name", "operator": "In", "values": [node]}]
    apart = [{"labelSelector": {"matchLabels": {"app.kubernetes.io/name": APP}},
              "topologyKey": "kubernetes.io/hostname"}]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": apart}}


def _pod(spec: Spec, index: dict, affinity: dict) -> dict:
    return {"metadata": {"labels": _labels(spec)},
            "spec": {"restartPolicy": "Never", "automountServiceAccountToken": False, "enableServiceLinks": False,
                     "terminationGracePeriodSeconds": GRACE_S, "affinity": affinity,
                     "securityContext": {"runAsNonRoot": True, "runAsUser": USER, "runAsGroup": USER,
                                         "fsGroup": USER, "seccompProfile": {"type": "RuntimeDefault"}},
                     "containers": [_container(spec, index)],
                     **({"volumes": [_volume(spec.volume)]} if spec.writes_file else {})}}


def _container(spec: Spec, index: dict) -> dict:
    node = {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}
    args = list(spec.engine_args)
    if spec.writes_file:  # $(VAR): the kubelet puts the container's variables into its arguments
        args += ["-o", f"{MOUNT}/{file_name(spec.name, '$(NODE_NAME)', '$(INDEX)')}"]
    share = {"cpu": str(spec.cpus), "memory": spec.memory}
    return {"name": "engine", "image": spec.image, "imagePullPolicy": "IfNotPresent",
            "command": [ENGINE], "args": args, "env": [node, index],
            "resources": {"requests": dict(share), "limits": dict(share)},
            "securityContext": {"allowPrivilegeEscalation": False, "privileged": False,
                                "readOnlyRootFilesystem": True, "capabilities": {"drop": ["ALL"]}},
            "terminationMessagePolicy": "FallbackToLogsOnError",
            **({"volumeMounts": [{"name": "results", "mountPath": MOUNT}]} if spec.writes_file else {})}


def _volume(v: Volume) -> dict:
    if v.kind == "claim":
        return {"name": "results", "persistentVolumeClaim": {"claimName": v.where}}
    return {"name": "results", "hostPath": {"path": v.where, "type": "Directory"}}


def text(spec: Spec, version: str) -> str:
    """The manifest as YAML, one document per Job, after a header that
    says what it is and how to collect what it writes."""
    objs = jobs(spec)
    # every value in a comment escaped: a line break there (U+2028 too, for YAML) would start an object
    words = escaped(shlex.join(spec.command))
    how = (f"{len(spec.nodes)} Job(s), one per node" if spec.nodes
           else f"one Indexed Job of {spec.count} pod(s), at most one per node")
    where = (f"Each pod writes {spec.name}_<node>_<index>.json to {MOUNT}, on {spec.volume.kind}:"
             f"{escaped(spec.volume.where)}." if spec.writes_file else
             f"Each pod prints its record in its log (the engine's env has no -o): save it as "
             f"{spec.name}_<node>_<index>.json.")
    head = [f"# ctxbench {escaped(version)}: `{words}` on Kubernetes as {how} (docs/kubernetes.md).",
            f"# {where}",
            f"# kubectl apply -f FILE; then: ctxbench fleet --collect DIR --name {spec.name} -- {words}"]
    body = yaml.dump_all(objs, Dumper=_Plain, sort_keys=False, default_flow_style=False, width=120,
                         explicit_start=True)
    return "\n".join(head) + "\n" + body


class _Plain(yaml.SafeDumper):
    """YAML without anchors and aliases (&id001, *id001), which a value
    met twice would get: each object reads whole, as kubectl shows it."""

    def ignore_aliases(self, data) -> bool:
        return True
