"""ctxbench fleet on Kubernetes (docs/kubernetes.md): `--emit k8s` writes
the fast way's engine command as Jobs, one pod per node, Guaranteed QoS,
the static engine in a small image (k8s/Dockerfile), each pod's document
written to a volume; `--collect DIR` turns the documents found there into
runs in the results store, each named by its node, as the fleet does
with a host's (fleet/job.document).

- values.py: the options and what each accepts (argparse types)
- manifest.py: the Jobs as Kubernetes objects and their YAML
- emit.py: --emit k8s, the manifest written (nothing measured)
- collect.py: --collect DIR, the files read back into runs
- entry.py: which of them a fleet command line asks for, and the options
  that belong to the other"""
