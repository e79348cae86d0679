"""Issue 49, part 2: ctxbench fleet on Kubernetes (docs/kubernetes.md).

`--emit k8s` writes Jobs that run the fast way's engine command, one pod
per node, and measures nothing; the manifest validates, strict (unknown
fields refused), against the schemas of a current Kubernetes version
(kubernetes-validate, offline), for several option sets, and so do the
two files in k8s/; every pod is Guaranteed QoS by construction (one
container, whole CPUs, requests = limits); a bad option is one line.
`--collect DIR` makes the engine's documents the pods wrote (recorded:
tests/fixtures/v1/engine_document.json is one) runs in the store, each
named by its node, a damaged file one line and the others kept. No
cluster runs anything here, and no image is built. The machine test
runs the real engine with the exact arguments a pod gets."""
from __future__ import annotations

import datetime
import json
import os
import sqlite3
from pathlib import Path

import pytest
import yaml

from conftest import ENGINE, ROOT, run_cli

# the newest Kubernetes whose schemas kubernetes-validate (1.37.0) carries; and the first in which
# backoffLimitPerIndex (the Indexed Job's) is GA, as the oldest the manifest is meant for
K8S_VERSION = "1.37"
OLDEST = "1.33"
ENGINE_DOC = ROOT / "tests" / "fixtures" / "v1" / "engine_document.json"
WHEN = datetime.datetime(2026, 11, 29, 2, 30, 0)  # the files' modification time: their runs' `started`
WHEN_UTC = WHEN.astimezone(datetime.timezone.utc).isoformat()  # as the fleet record says it, with its offset


def _measured_as(groups: int, iterations: int, ids: tuple[str, ...] = ()) -> bytes:
    """The recorded engine document, its results measured with `groups`
    and `iterations` (the quick preset's: 5 and 6, ctxbench-engine presets),
    under `ids` where given."""
    doc = json.loads(ENGINE_DOC.read_text())
    for k, r in enumerate(doc["results"]):
        r["params"].update(groups=groups, iterations=iterations)
        if k < len(ids):
            r["id"] = ids[k]
    return json.dumps(doc).encode()


QUICK = _measured_as(5, 6)  # a run-suite --preset quick's document

# option sets: (the fleet's options, the command after --)
SETS = {
    "indexed quick": (["--count", "3"], ["run", "--quick"]),
    "per node, all options": (["--nodes", "node-a,node-b.example.org", "--cpus", "4", "--memory", "1Gi",
                               "--volume", "host:/var/lib/ctxbench", "--namespace", "bench", "--name", "nightly",
                               "--image", "registry.example:5000/lab/ctxbench-engine:0.1.0", "--timeout", "600"],
                              ["run", "--groups", "12", "--iterations", "4"]),
    "indexed full, claim": (["--count", "1", "--volume", "claim:results-rwx", "--cpus", "1"], ["run", "--full"]),
    "env": (["--count", "2"], ["env"]),
}


def _emit(tmp_path, opts: list[str], command: list[str]) -> list[dict]:
    out = tmp_path / "job.yaml"
    p = run_cli("fleet", "--emit", "k8s", *opts, "-o", str(out), "--", *command)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert "manifest written to" in p.stdout, p.stdout
    return list(yaml.safe_load_all(out.read_text()))


def _pods(objs: list[dict]) -> list[dict]:
    return [o["spec"]["template"]["spec"] for o in objs]


# ---- the manifest validates ----------------------------------------------------------------

@pytest.mark.parametrize("case", SETS)
def test_the_manifest_validates_strictly_against_kubernetes_schemas(tmp_path, case):
    kv = pytest.importorskip("kubernetes_validate", reason="pip install kubernetes-validate (the test extra)")
    opts, command = SETS[case]
    objs = _emit(tmp_path, opts, command)
    assert objs and all(o["kind"] == "Job" and o["apiVersion"] == "batch/v1" for o in objs)
    for o in objs:
        for version in (K8S_VERSION, OLDEST):
            assert kv.validate(o, version, strict=True) == version, (o["metadata"]["name"], version)


@pytest.mark.parametrize("name", ["namespace.yaml", "fetch.yaml"])
def test_the_k8s_folder_s_manifests_validate_too(name):
    kv = pytest.importorskip("kubernetes_validate", reason="pip install kubernetes-validate (the test extra)")
    objs = list(yaml.safe_load_all((ROOT / "k8s" / name).read_text()))
    assert objs
    for o in objs:
        kv.validate(o, K8S_VERSION, strict=True)


def test_strict_validation_refuses_an_unknown_field(tmp_path):
    """The check has teeth: a field Kubernetes does not know (here a
    misspelt one) fails it, as the API server's strict decoding would."""
    kv = pytest.importorskip("kubernetes_validate", reason="pip install kubernetes-validate (the test extra)")
    job = _emit(tmp_path, ["--count", "2"], ["run", "--quick"])[0]
    job["spec"]["template"]["spec"]["containers"][0]["resource"] = {"limits": {"cpu": "2"}}
    with pytest.raises(kv.ValidationError):
        kv.validate(job, K8S_VERSION, strict=True)


# ---- what the Jobs say -------------------------------------------------------------------------

@pytest.mark.parametrize("case", SETS)
def test_every_pod_is_guaranteed_qos_with_whole_cpus(tmp_path, case):
    """Guaranteed QoS: every container has CPU and memory requests equal
    to its limits; the CPUs are whole, so the static CPU manager gives
    them exclusively."""
    opts, command = SETS[case]
    cpus = int(opts[opts.index("--cpus") + 1]) if "--cpus" in opts else 2
    for pod in _pods(_emit(tmp_path, opts, command)):
        assert not pod.get("initContainers") and len(pod["containers"]) == 1
        res = pod["containers"][0]["resources"]
        assert res["requests"] == res["limits"] and set(res["limits"]) == {"cpu", "memory"}
        assert res["limits"]["cpu"] == str(cpus)


def test_an_indexed_job_has_one_pod_per_node(tmp_path):
    job, = _emit(tmp_path, ["--count", "3"], ["run", "--quick"])
    spec = job["spec"]
    assert (spec["completionMode"], spec["completions"], spec["parallelism"]) == ("Indexed", 3, 3)
    assert spec["backoffLimitPerIndex"] == 0  # a failed pod costs its own index, not the others
    pod = spec["template"]
    apart, = pod["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert apart["topologyKey"] == "kubernetes.io/hostname"
    assert apart["labelSelector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()


def test_named_nodes_get_a_job_each_pinned_to_its_node(tmp_path):
    objs = _emit(tmp_path, ["--nodes", "n1,n2,n3.lab"], ["run"])
    assert [o["metadata"]["name"] for o in objs] == ["ctxbench-run-0", "ctxbench-run-1", "ctxbench-run-2"]
    for o, node in zip(objs, ["n1", "n2", "n3.lab"]):
        assert (o["spec"]["completions"], o["spec"]["parallelism"], o["spec"]["backoffLimit"]) == (1, 1, 0)
        terms = o["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        assert terms[0]["matchFields"] == [{"key": "metadata.name", "operator": "In", "values": [node]}]


def test_the_container_runs_the_fast_way_s_engine_command_into_the_volume(tmp_path):
    from ctxbench.fleet import job as jobs
    job, = _emit(tmp_path, ["--count", "2", "--name", "lab"], ["run", "--quick", "--groups", "3"])
    pod = job["spec"]["template"]["spec"]
    c = pod["containers"][0]
    assert c["command"] == ["/ctxbench-engine"]
    assert c["args"] == [*jobs.parse(["run", "--quick", "--groups", "3"]).engine_args(None),
                         "-o", "/results/lab_$(NODE_NAME)_$(INDEX).json"]
    env = {e["name"]: e["valueFrom"]["fieldRef"]["fieldPath"] for e in c["env"]}
    assert env == {"NODE_NAME": "spec.nodeName",
                   "INDEX": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}
    assert c["volumeMounts"] == [{"name": "results", "mountPath": "/results"}]
    assert pod["volumes"] == [{"name": "results", "persistentVolumeClaim": {"claimName": "ctxbench-results"}}]
    spec = job["spec"]
    assert spec["activeDeadlineSeconds"] == 1800 and 0 < spec["ttlSecondsAfterFinished"] <= 7 * 86400
    assert job["metadata"]["annotations"]["ctxbench/collect"].endswith("--name lab -- run --quick --groups 3")


def test_the_pods_run_as_tightly_as_the_engine_allows(tmp_path):
    for pod in _pods(_emit(tmp_path, ["--nodes", "a,b"], ["env"])):
        ctx = pod["containers"][0]["securityContext"]
        assert ctx == {"allowPrivilegeEscalation": False, "privileged": False, "readOnlyRootFilesystem": True,
                       "capabilities": {"drop": ["ALL"]}}
        assert pod["securityContext"]["runAsNonRoot"] and pod["securityContext"]["runAsUser"] != 0
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        assert pod["automountServiceAccountToken"] is False and pod["restartPolicy"] == "Never"
        assert not any(k in pod for k in ("hostNetwork", "hostPID", "hostIPC"))
        # env has no -o in the engine: its record is the pod's log, and no volume is mounted
        assert pod["containers"][0]["args"] == ["env", "--json"] and "volumes" not in pod


def test_without_o_the_manifest_goes_to_standard_output(tmp_path):
    p = run_cli("fleet", "--emit", "k8s", "--count", "2", "--", "run", "--quick")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("# ctxbench ") and "ctxbench fleet --collect DIR --name ctxbench-run" in p.stdout
    job, = list(yaml.safe_load_all(p.stdout))
    assert job["metadata"]["name"] == "ctxbench-run"
    assert not list(tmp_path.iterdir())  # nothing written anywhere


# ---- bad options: one line ---------------------------------------------------------------------

BAD = [
    (["--emit", "k8s", "--", "run", "--quick"], "--nodes"),
    (["--emit", "k8s", "--nodes", "a", "--count", "2", "--", "run"], "give one"),
    (["--emit", "k8s", "--nodes", "Node_A", "--", "run"], "not a node name"),
    (["--emit", "k8s", "--nodes", "a,a", "--", "run"], "twice"),
    (["--emit", "k8s", "--count", "0", "--", "run"], "--count"),
    (["--emit", "k8s", "--count", "2", "--name", "Big_Name", "--", "run"], "Job name"),
    (["--emit", "k8s", "--count", "2", "--cpus", "1.5", "--", "run"], "--cpus"),
    (["--emit", "k8s", "--count", "2", "--memory", "1G", "--", "run"], "memory size"),
    (["--emit", "k8s", "--count", "2", "--memory", "1Mi", "--", "run"], "at least"),
    (["--emit", "k8s", "--count", "2", "--volume", "nfs:x", "--", "run"], "claim:NAME"),
    (["--emit", "k8s", "--count", "2", "--volume", "host:/", "--", "run"], "absolute directory"),
    (["--emit", "k8s", "--count", "2", "--volume", "host:var/x", "--", "run"], "absolute directory"),
    (["--emit", "k8s", "--count", "2", "--image", "Bad Image", "--", "run"], "image reference"),
    (["--emit", "k8s", "--count", "2", "--", "run", "--ids", "timer/rdtsc"], "fast way"),
    (["--emit", "k8s", "--count", "2", "--", "sweep"], "fast way"),
    (["--emit", "k8s", "--count", "2", "--", "run", "--quick", "--cpu", "1"], "CPU manager"),
    (["--emit", "k8s", "--count", "2", "--", "run", "--bogus"], "--bogus"),
    (["--emit", "k8s", "--count", "2", "--"], "give the command"),
    (["--emit", "k8s", "web1", "--count", "2", "--", "run"], "HOST"),
    (["--emit", "k8s", "--count", "2", "--no-store", "--", "run"], "--store"),
    (["--emit", "k8s", "--count", "2", "--parallel", "4", "--", "run"], "--parallel"),
    (["--emit", "yaml", "--count", "2", "--", "run"], "invalid choice"),
    (["--emit", "k8s", "--collect", ".", "--count", "2", "--", "run"], "one of them"),
    (["--collect", ".", "--count", "2", "--", "run"], "--count is for --emit"),
    (["--collect", ".", "--timeout", "9", "--", "run"], "--timeout"),
    (["--collect", "no-such-dir", "--", "run"], "no directory"),
    (["web1", "--image", "x", "--", "run"], "--image is for --emit k8s"),
    # YAML's line breaks and format characters never reach the manifest (its header is comments)
    (["--emit", "k8s", "--count", "2", "--volume", "host:/x\u2028kind: ConfigMap", "--", "run"], "line-break"),
    (["--emit", "k8s", "--count", "2", "--volume", "host:/x\u0085y", "--", "run"], "line-break"),
    (["--emit", "k8s", "--count", "2", "--volume", "host:/x\u202ey", "--", "run"], "format"),
    (["--emit", "k8s", "--count", "2", "--image", "reg/img:t\u2029x", "--", "run"], "image reference"),
    (["--emit", "k8s", "--nodes", "a\u2028b", "--", "run"], "not a node name"),
    (["--emit", "k8s", "--nodes", "n" * 63 + "." + "m" * 63 + "." + "o" * 63 + "." + "p" * 61, "--", "run"],
     "more than a file name takes"),
    (["--emit", "k8s", "--count", "2", "--volume", "claim:", "--", "run"], "names no claim"),
    (["--emit", "k8s", "--count", "2", "--memory", "65Ti", "--", "run"], "at most 64Ti"),
    (["--emit", "k8s", "--count", "2", "--volume", "host:/x", "--", "env"], "--volume means nothing"),
    (["--collect", ".", "--show", "x", "--", "env"], "--show means nothing"),
]


@pytest.mark.parametrize("argv, words", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_option_is_one_line(tmp_path, argv, words):
    p = run_cli("fleet", *argv, cwd=tmp_path)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and lines[0].startswith("ctxbench: "), (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr and words in lines[0], lines[0]
    assert not p.stdout.strip() and not list(tmp_path.iterdir())


# ---- the way back: --collect -------------------------------------------------------------------

def _results_dir(tmp_path, files: dict[str, bytes]) -> Path:
    d = tmp_path / "results"
    d.mkdir()
    for name, data in files.items():
        (d / name).write_bytes(data)
        os.utime(d / name, (WHEN.timestamp(), WHEN.timestamp()))
    return d


def test_collect_makes_each_file_a_run_named_by_its_node(tmp_path):
    """The engine's documents become runs in the store and files in -o,
    each with the fleet's record naming its node (from the file's name),
    the node as its hostname, the pod's kept; a damaged file is one line
    and costs only its own row; stray files are said and left out."""
    doc = QUICK
    d = _results_dir(tmp_path, {"ctxbench-run_node-a_0.json": doc, "ctxbench-run_node-b.lab_1.json": doc,
                                "ctxbench-run_node-c_2.json": doc[: len(doc) // 2], "notes.json": b"{}",
                                "ctxbench-run_node-d_3.json.tmp.77": doc[:100]})
    store, out = tmp_path / "s.sqlite", tmp_path / "out"
    p = run_cli("fleet", "--collect", str(d), "--store", str(store), "-o", str(out), "--", "run", "--quick")
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    warned = [line for line in p.stderr.splitlines() if line.startswith("  warning: ")]
    assert len(warned) == 3, p.stderr  # the damaged file, notes.json, the unfinished file: a line each
    # the damaged file and the pod that died mid-run (its node's row): 2 of 4
    assert "node-c_2.json" in p.stderr and "2 of 4 file(s) failed" in p.stderr and "node-d (" in p.stderr
    assert sorted(x.name for x in out.iterdir()) == ["ctxbench-run_node-a_0.json", "ctxbench-run_node-b.lab_1.json"]
    for node, index in (("node-a", 0), ("node-b.lab", 1)):
        got = json.loads((out / f"ctxbench-run_{node}_{index}.json").read_text())
        assert got["schema"] == "ctxbench/2" and got["environment"]["hostname"] == node
        f = got["fleet"]
        assert (f["host"], f["started"], f["command"]) == (node, WHEN_UTC, ["run", "--quick"])
        assert f["kubernetes"] == {"job": "ctxbench-run", "index": index, "file": f"ctxbench-run_{node}_{index}.json",
                                   "pod": "fixture-host"}
        assert got["run"]["preset"] == "quick" and len(got["results"]) == 2
    with sqlite3.connect(store) as db:
        assert sorted(db.execute("select host, started from runs")) == [
            ("node-a", "2026-11-29 02:30:00.000000"), ("node-b.lab", "2026-11-29 02:30:00.000000")]
    assert (d / "ctxbench-run_node-a_0.json").read_bytes() == doc  # the engine's files stay as they were


def test_collect_env_reads_the_pods_logs(tmp_path):
    """env's record is the pod's log (the engine's env has no -o), saved
    as <name>_<node>_<index>.json: a line before it (stderr, which
    `kubectl logs` mixes in) is passed over."""
    rec = {k: v for k, v in json.loads(ENGINE_DOC.read_text()).items() if k != "results"}
    d = _results_dir(tmp_path, {"ctxbench-env_w1_0.json": b"a line on stderr\n" + json.dumps(rec).encode()})
    p = run_cli("fleet", "--collect", str(d), "--no-store", "-o", str(tmp_path / "out"), "--", "env")
    assert p.returncode == 0, p.stderr
    got = json.loads((tmp_path / "out" / "ctxbench-env_w1_0.json").read_text())
    assert got["results"] == [] and got["environment"]["hostname"] == "w1" and got["fleet"]["host"] == "w1"


@pytest.mark.parametrize("command, words", [(["env"], "a run's document"),
                                            (["run", "--groups", "7"], "--groups 7")])
def test_collect_refuses_a_file_of_another_command(tmp_path, command, words):
    d = _results_dir(tmp_path, {"ctxbench-run_n1_0.json": ENGINE_DOC.read_bytes()})
    p = run_cli("fleet", "--collect", str(d), "--no-store", "-o", str(tmp_path / "out"), "--", *command)
    assert p.returncode == 1 and words in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert not list((tmp_path / "out").iterdir())


def test_collect_with_a_name_takes_only_that_job_s_files(tmp_path):
    doc = QUICK
    d = _results_dir(tmp_path, {"a_n1_0.json": doc, "b_n1_0.json": doc, "a_n2_1.json.tmp.5": b"{"})
    p = run_cli("fleet", "--collect", str(d), "--name", "b", "--no-store", "-o", str(tmp_path / "out"),
                "--", "run", "--quick")
    assert p.returncode == 0, p.stderr
    assert [x.name for x in (tmp_path / "out").iterdir()] == ["b_n1_0.json"]
    p = run_cli("fleet", "--collect", str(d), "--name", "c", "--no-store", "--", "run")
    assert p.returncode == 2 and "no file of the Job c" in p.stderr


def test_collect_never_writes_over_the_files_it_reads(tmp_path):
    d = _results_dir(tmp_path, {"a_n1_0.json": ENGINE_DOC.read_bytes()})
    p = run_cli("fleet", "--collect", str(d), "--no-store", "-o", str(d), "--", "run")
    assert p.returncode == 2 and "the directory collected" in p.stderr, p.stderr


# ---- the engine takes the pod's arguments -------------------------------------------------------

@pytest.mark.machine
@pytest.mark.flow
def test_the_engine_runs_the_pod_s_command_and_collect_reads_its_file(tmp_path):
    """The container's arguments, with the kubelet's $(NODE_NAME) and
    $(INDEX) put in, run by the real engine (the image's only program):
    it writes the file the Job names, and --collect makes it a run."""
    import subprocess
    job, = _emit(tmp_path, ["--count", "1"], ["run", "--quick", "--groups", "1", "--iterations", "2"])
    args = job["spec"]["template"]["spec"]["containers"][0]["args"]
    results = tmp_path / "results"
    results.mkdir()
    args = [a.replace("$(NODE_NAME)", "k8s-node").replace("$(INDEX)", "0").replace("/results", str(results))
            for a in args]
    p = subprocess.run([str(ENGINE), *args], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert [x.name for x in results.iterdir()] == ["ctxbench-run_k8s-node_0.json"]
    p = run_cli("fleet", "--collect", str(results), "--no-store", "-o", str(tmp_path / "out"),
                "--", "run", "--quick", "--groups", "1", "--iterations", "2")
    assert p.returncode == 0, p.stderr
    got = json.loads((tmp_path / "out" / "ctxbench-run_k8s-node_0.json").read_text())
    assert got["fleet"]["host"] == "k8s-node" and got["results"]
    # the same file given as the preset's own run (5 groups, not the 1 it measured) is not recorded as one
    p = run_cli("fleet", "--collect", str(results), "--no-store", "-o", str(tmp_path / "out2"), "--", "run", "--quick")
    assert p.returncode == 1 and "measured with groups 1, not the preset quick's 5" in p.stderr, p.stderr


# ---- what the audit found (each fault, fixed) ----------------------------------------------------

def test_a_header_comment_holds_no_raw_line_break(tmp_path):
    """A value in the header's comments is escaped: even a path that got
    past the options (U+2028, a YAML line break) leaves the Jobs alone."""
    from ctxbench.fleet.k8s import manifest, values
    spec = manifest.Spec("lab", "ns", "img", 2, "256Mi", values.Volume("host", "/x\u2028kind: ConfigMap"), 60,
                         ("run-suite", "--preset", "quick", "--json"), ("run", "--quick"), count=2)
    objs = list(yaml.safe_load_all(manifest.text(spec, "0.1.0\u2029x: y")))
    assert [o["kind"] for o in objs] == ["Job"]


def test_collect_a_directory_it_cannot_list_is_one_line_and_makes_nothing(tmp_path, monkeypatch):
    d = _results_dir(tmp_path, {"a_n1_0.json": QUICK})
    scandir = os.scandir

    def refused(path="."):
        if os.fspath(path) == str(d):
            raise PermissionError(13, "Permission denied", str(d))
        return scandir(path)
    monkeypatch.setattr(os, "scandir", refused)
    p = run_cli("fleet", "--collect", str(d), "--no-store", "-o", str(tmp_path / "out"), "--", "run", "--quick")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "cannot list" in p.stderr, p.stderr
    assert not (tmp_path / "out").exists()


def test_collect_refusals_leave_no_o_directory(tmp_path):
    """Everything is checked before -o is made: no file found, a store
    inside DIR, an -o that cannot take files are one line, nothing made."""
    d = _results_dir(tmp_path, {"notes.txt": b""})
    out = tmp_path / "out"
    p = run_cli("fleet", "--collect", str(d), "--no-store", "-o", str(out), "--", "run")
    assert p.returncode == 2 and "no file" in p.stderr and not out.exists(), p.stderr
    (d / "a_n1_0.json").write_bytes(QUICK)
    p = run_cli("fleet", "--collect", str(d), "--store", str(d / "s.sqlite"), "-o", str(out), "--", "run", "--quick")
    assert p.returncode == 2 and "inside the directory collected" in p.stderr and not out.exists(), p.stderr
    p = run_cli("fleet", "--collect", str(d), "--no-store", "-o", "/proc/self/ctxbench", "--", "run", "--quick")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "-o /proc/self/ctxbench" in p.stderr, p.stderr


def test_collect_never_writes_through_a_symlink_onto_another_collected_file(tmp_path):
    d = _results_dir(tmp_path, {"a_n1_0.json": QUICK, "a_n2_1.json": QUICK})
    out = tmp_path / "out"
    out.mkdir()
    (out / "a_n1_0.json").symlink_to(d / "a_n2_1.json")
    p = run_cli("fleet", "--collect", str(d), "--no-store", "-o", str(out), "--", "run", "--quick")
    assert p.returncode == 1 and "input files" in p.stderr, p.stderr
    assert (d / "a_n2_1.json").read_bytes() == QUICK


@pytest.mark.parametrize("command, doc, words", [
    (["run"], QUICK, "the preset default's 48"),
    (["run", "--full"], QUICK, "the preset full's 160"),
    (["run", "--quick", "--iterations", "9"], QUICK, "--iterations 9"),
    (["run", "--quick"], _measured_as(5, 6, ("kernel/thread/sem/same-cpu",)), "kernel/thread/sem/same-cpu")])
def test_collect_refuses_a_file_another_preset_measured(tmp_path, command, doc, words):
    d = _results_dir(tmp_path, {"a_n1_0.json": doc})
    p = run_cli("fleet", "--collect", str(d), "--no-store", "-o", str(tmp_path / "out"), "--", *command)
    assert p.returncode == 1 and words in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert not list((tmp_path / "out").iterdir())


def test_collect_is_the_same_run_under_any_tz_and_refuses_its_own_output(tmp_path, monkeypatch):
    """`started` is the file's time in UTC: collected again under another
    TZ, the run is the one the store has; a collected document (a command's,
    with its `fleet` record) is no engine's file."""
    import time
    d = _results_dir(tmp_path, {"a_n1_0.json": QUICK})
    store, out = tmp_path / "s.sqlite", tmp_path / "out"
    for tz in ("UTC", "Asia/Tokyo"):
        monkeypatch.setenv("TZ", tz)
        time.tzset()
        p = run_cli("fleet", "--collect", str(d), "--store", str(store), "-o", str(out), "--", "run", "--quick")
        assert p.returncode == 0, p.stderr
    monkeypatch.delenv("TZ")
    time.tzset()
    assert "already in the results store" in p.stdout
    with sqlite3.connect(store) as db:
        assert db.execute("select count(*) from runs").fetchone() == (1,)
    (tmp_path / "again").mkdir()
    again = _results_dir(tmp_path / "again", {"a_n1_0.json": (out / "a_n1_0.json").read_bytes()})
    p = run_cli("fleet", "--collect", str(again), "--no-store", "-o", str(tmp_path / "out2"), "--", "run", "--quick")
    assert p.returncode == 1 and "not an engine's output" in p.stderr, p.stderr


def test_collect_without_o_keeps_no_second_copy_of_a_run_the_store_has(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    d = _results_dir(tmp_path, {"a_n1_0.json": QUICK})
    store = tmp_path / "s.sqlite"
    for _ in range(2):
        p = run_cli("fleet", "--collect", str(d), "--store", str(store), "--", "run", "--quick")
        assert p.returncode == 0, p.stderr
    assert "already kept in the results store" in p.stdout, p.stdout
    assert len(list((tmp_path / "data" / "ctxbench" / "runs").iterdir())) == 1


def test_collect_env_takes_the_record_s_line_alone(tmp_path):
    rec = {k: v for k, v in json.loads(ENGINE_DOC.read_text()).items() if k != "results"}
    log = b"warning {not json}\n" + json.dumps(rec).encode() + b"\nthe engine's last words\n"
    d = _results_dir(tmp_path, {"ctxbench-env_w1_0.json": log})
    p = run_cli("fleet", "--collect", str(d), "--no-store", "-o", str(tmp_path / "out"), "--", "env")
    assert p.returncode == 0, p.stderr


def test_collect_refuses_a_file_too_big_before_reading_it(tmp_path):
    d = _results_dir(tmp_path, {"a_n1_0.json": b""})
    os.truncate(d / "a_n1_0.json", 300 << 20)  # sparse: nothing is written, and nothing must be read
    p = run_cli("fleet", "--collect", str(d), "--no-store", "-o", str(tmp_path / "out"), "--", "run", "--quick")
    assert p.returncode == 1 and "300 MiB" in p.stderr, p.stderr


def test_the_manifest_s_kubectl_line_is_one_a_shell_takes(tmp_path):
    out = tmp_path / "a b.yaml"
    p = run_cli("fleet", "--emit", "k8s", "--count", "2", "-o", str(out), "--", "run", "--quick")
    assert p.returncode == 0 and f"kubectl apply -f '{out}')" in p.stdout, p.stdout


def test_an_interruption_leaves_no_temporary_file(tmp_path, monkeypatch):
    """Ctrl-C right after the probe's or the write's temporary file is made
    (core/writer): the file is removed all the same."""
    from ctxbench.core import writer

    close = os.close

    def interrupted(fd, *a, **k):  # the descriptor closed, then the signal
        close(fd)
        raise KeyboardInterrupt
    for step, call in (("close", lambda: writer._probe_dir("x", str(tmp_path))),
                       ("fdopen", lambda: writer.write_atomic(str(tmp_path / "x.json"), b"{}"))):
        with monkeypatch.context() as m:
            m.setattr(writer.os, step, interrupted)
            with pytest.raises(KeyboardInterrupt):
                call()
        assert not list(tmp_path.iterdir()), step
