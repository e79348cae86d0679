"""The Ansible collection ctxbench.bench (ansible/, issue 49): built with
`ansible-galaxy collection build`, installed into a temporary directory,
its playbook syntax-checked, then run by `ansible-playbook` (ansible-core
from PyPI, in the virtualenv) against three real OpenSSH servers on
loopback (tests/ssh_servers.py), one of them stopped. For `run --quick`
(the static engine alone) and `tasks --quick` (ctxbench itself, on the
host's Python): two documents land in the SQLite store each time, each
named for its inventory host and measured on its ctxbench_cpu; the
stopped host is a failed host with its reason and the exit status is
Ansible's 2 for it; nothing is left in the live servers' temporary
directories, Ansible's own files included (its remote_tmp is pointed
there), nor in Ansible's own on the control node; the output directory and
the store in it are made as the first documents are written (neither
exists before: docs/ansible.md's first example). ctxbench.bench.record
alone says the documents are already kept, fails a damaged one in one
line, and makes nothing of no document; a failed step on a host is one
line (ctxbench.bench.step_failure). Check mode measures and writes nothing, and a bad command is one
line per host before any host is contacted. Flow, not numbers."""
from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from ssh_servers import Fleet
from test_fleet import engines_running, stored_runs

pytestmark = [pytest.mark.machine, pytest.mark.flow]

BIN = Path(sys.executable).parent  # ansible-core's commands, installed beside ctxbench
RUN = "run --quick --groups 2 --iterations 2"
TASKS = "tasks --quick --rounds 2 --warm"  # no cache flush: 2 s less, and flow is what is judged
CPUS = {"h0": 0, "h1": min(1, os.cpu_count() - 1), "h2": 0}  # each host's ctxbench_cpu: the two live ones apart
RECAP = re.compile(r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The collection built from ansible/ and installed: its collections path."""
    if not (BIN / "ansible-playbook").exists():
        pytest.skip("no ansible-playbook beside this Python (ansible-core is a dependency of ctxbench)")
    tmp = tmp_path_factory.mktemp("collection")
    built = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "build", str(ROOT / "ansible"), "--output-path",
                            str(tmp)], capture_output=True, text=True, timeout=120, env=_env(tmp))
    assert built.returncode == 0, built.stdout + built.stderr
    tarball = next(tmp.glob("ctxbench-bench-*.tar.gz"))
    p = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "install", "--offline", "-p", str(tmp / "c"),
                        str(tarball)], capture_output=True, text=True, timeout=120, env=_env(tmp))
    assert p.returncode == 0, p.stdout + p.stderr
    assert (tmp / "c" / "ansible_collections" / "ctxbench" / "bench" / "roles" / "measure").is_dir()
    return tmp / "c"


@pytest.fixture(scope="module")
def fleet():
    """Three OpenSSH servers, h2 stopped: a host that does not answer."""
    f = Fleet(3)
    try:
        f.servers[2].stop()
        yield f
    finally:
        f.stop()


def _env(tmp: Path, collections: Path | None = None) -> dict:
    """Ansible with nothing of this machine's configuration: its home,
    its local temporary files and its collections in the test's
    directory; each SSH command its own connection (no master process
    left behind), and modules piped to the host's Python."""
    cfg = tmp / "ansible.cfg"
    cfg.write_text("")
    env = dict(os.environ, ANSIBLE_CONFIG=str(cfg), ANSIBLE_HOME=str(tmp / "home"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0", ANSIBLE_RETRY_FILES_ENABLED="0", ANSIBLE_PIPELINING="1",
               ANSIBLE_SSH_ARGS="-o ControlMaster=no", ANSIBLE_STDOUT_CALLBACK="default",
               ANSIBLE_LOCALHOST_WARNING="0", ANSIBLE_INVENTORY_UNPARSED_WARNING="0")
    if collections is not None:
        env["ANSIBLE_COLLECTIONS_PATH"] = str(collections)
    return env


def _inventory(f: Fleet, tmp: Path) -> Path:
    """Each server as Ansible reaches it, its remote_tmp in the server's own
    TMPDIR (what is left there is seen), the venv's Python on the hosts
    (it has ctxbench's requirements, for the wheel way)."""
    inv = tmp / "inventory.ini"
    inv.write_text(
        "[lab]\n" + "".join(f"{s.name} ansible_port={s.port} ansible_remote_tmp={s.tmp} ctxbench_cpu={CPUS[s.name]}\n"
                            for s in f.servers)
        + "[all:vars]\nansible_host=127.0.0.1\nansible_user=root\n"
        f"ansible_ssh_private_key_file={f.key}\nansible_python_interpreter={sys.executable}\n"
        f"ansible_ssh_common_args='-F /dev/null -o IdentitiesOnly=yes -o UserKnownHostsFile={f.known_hosts}'\n")
    return inv


def _start(installed: Path, tmp: Path, inv: Path, command: str, *more: str, cwd: Path | None = None,
           **extra) -> subprocess.Popen:
    # docs/ansible.md's first example: relative names, the store in the output directory, neither made yet
    extra = {"ctxbench_command": command, "ctxbench_output_dir": "out", "ctxbench_store": "out/store.sqlite",
             "ctxbench_connect_timeout": 1, **extra}  # h2 refuses at once
    return subprocess.Popen([str(BIN / "ansible-playbook"), "-i", str(inv), "ctxbench.bench.measure", "-f", "3",
                             "-e", json.dumps(extra), *more], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=cwd or tmp, env=_env(tmp, installed))


@contextlib.contextmanager
def _ending(*procs: subprocess.Popen):
    """The playbooks started are ended whatever the test found (none outlives it)."""
    try:
        yield
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()


def _ended(p: subprocess.Popen) -> subprocess.CompletedProcess:
    try:
        out, err = p.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def _playbook(installed: Path, tmp: Path, inv: Path, command: str, *more: str, **extra) -> subprocess.CompletedProcess:
    return _ended(_start(installed, tmp, inv, command, *more, **extra))


def _recap(out: str) -> dict[str, tuple[int, ...]]:
    """{host: (ok, changed, unreachable, failed)} from the play's recap."""
    return {m.group(1): tuple(int(x) for x in m.groups()[1:]) for m in RECAP.finditer(out)}


def _nothing_left(f: Fleet, tmp: Path) -> None:
    """No file on a live host, no engine running, no file of Ansible's own here."""
    assert all(s.left() == [] for s in f.servers[:2]), [(s.name, s.left()) for s in f.servers]
    assert not engines_running(f.root)
    local = tmp / "home" / "tmp"
    assert not local.is_dir() or not list(local.iterdir()), list(local.iterdir())


def test_syntax_check(installed, tmp_path):
    inv = tmp_path / "hosts.ini"
    inv.write_text("h0 ansible_host=127.0.0.1\n")
    p = subprocess.run([str(BIN / "ansible-playbook"), "--syntax-check", "-i", str(inv), "ctxbench.bench.measure"],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path, env=_env(tmp_path, installed))
    assert p.returncode == 0, p.stdout + p.stderr


def test_a_fleet_of_three_with_one_stopped(installed, fleet, tmp_path):
    inv = _inventory(fleet, tmp_path)
    # run and tasks at once, each playbook in a directory of its own (most of a play is waiting on its hosts)
    plays = {section: (command, tmp_path / section) for command, section in ((RUN, "run"), (TASKS, "tasks"))}
    started = {}
    for section, (command, where) in plays.items():
        where.mkdir()
        started[section] = _start(installed, tmp_path, inv, command, cwd=where)
    with _ending(*started.values()):
        _judged(plays, started)
    _nothing_left(fleet, tmp_path)
    out = tmp_path / "tasks" / "out"
    assert json.loads((out / "h0.json").read_text())["tasks"]["housekeeping"]  # ctxbench itself ran there
    _record_alone(installed, tmp_path, [out / "h0.json", out / "h1.json"], out / "store.sqlite")


def _judged(plays: dict, started: dict) -> None:
    """Each play: h2 a failed host, two documents in its store, made on the control node."""
    for section, (command, where) in plays.items():
        p = _ended(started[section])
        store, out = where / "out" / "store.sqlite", where / "out"
        said = p.stdout + p.stderr
        assert p.returncode == 2, said  # Ansible's status for a failed host
        recap = _recap(p.stdout)
        assert recap["h2"][2:] == (0, 1) and all(recap[h][2:] == (0, 0) for h in ("h0", "h1")), recap
        fatal = [line for line in said.splitlines() if line.startswith("fatal: [h2]")]
        assert fatal and "Connection refused" in fatal[0], said
        assert stored_runs(store) == 2, said
        assert sorted(x.name for x in out.glob("*.json")) == ["h0.json", "h1.json"]
        for name in ("h0", "h1"):
            doc = json.loads((out / f"{name}.json").read_text())
            assert doc["fleet"]["host"] == name and doc["fleet"]["command"] == command.split()
            measured = {r["params"]["cpu"] for r in doc["results"] if "cpu" in (r.get("params") or {})}
            assert doc["fleet"]["cpu"] == CPUS[name] and measured == {CPUS[name]}, measured  # its ctxbench_cpu
            assert doc["fleet"]["arch"] == os.uname().machine and doc["results"] and section in doc
            assert all("summary" in r for r in doc["results"])  # analysed on the control node
            assert f"added: '{out / name}.json'" in said


def _record_alone(installed: Path, tmp: Path, kept: list[Path], store: Path) -> None:
    """ctxbench.bench.record in a play of its own on the control node: the
    documents the role recorded are said as already kept, and a damaged
    document is that task's failure in one line, the store untouched."""
    damaged = tmp / "damaged.json"
    damaged.write_text('{"schema": "ctxbench/2", "results": [')
    play = tmp / "record.yml"
    play.write_text(
        "- name: Record\n  hosts: localhost\n  gather_facts: false\n  tasks:\n"
        f"    - ctxbench.bench.record: {{documents: {json.dumps([str(p) for p in kept])}, store: '{store}'}}\n"
        f"    - ctxbench.bench.record: {{documents: ['{damaged}'], store: '{store}'}}\n"
        "      ignore_errors: true\n"
        f"    - ctxbench.bench.record: {{documents: [], store: '{tmp / 'none.sqlite'}'}}\n"
        "    - ansible.builtin.debug:\n"  # the line a failed step on a host says (roles/measure/tasks/wheel.yml)
        "        msg: \"{{ {'rc': 127, 'stderr': 'sh: 1: /nonexistent/python3: not found'} | "
        "ctxbench.bench.step_failure('h0', 'unpacking ctxbench with /nonexistent/python3') }}\"\n")
    p = subprocess.run([str(BIN / "ansible-playbook"), "-v", "-i", "localhost,", "-c", "local", str(play)],
                       capture_output=True, text=True, timeout=120, cwd=tmp, env=_env(tmp, installed))
    said = p.stdout + p.stderr
    assert p.returncode == 0, said
    assert all(f"already kept: '{path}'" in said for path in kept), said
    fatal = [line for line in said.splitlines() if line.startswith("fatal: [localhost]")]
    assert len(fatal) == 1 and '"msg": "ctxbench: ' in fatal[0] and "damaged.json" in fatal[0], said
    assert stored_runs(store) == 2  # the role had recorded both; nothing more
    assert "no document given: nothing recorded" in said and not (tmp / "none.sqlite").exists(), said
    assert ("ctxbench: h0: unpacking ctxbench with /nonexistent/python3 failed (exit status 127): sh: 1: "
            "/nonexistent/python3: not found") in said, said


def test_check_mode_and_a_bad_command_touch_nothing(installed, fleet, tmp_path):
    inv = _inventory(fleet, tmp_path)
    (tmp_path / "bad").mkdir()
    bad = _start(installed, tmp_path, inv, "run --quick --bogus", cwd=tmp_path / "bad")  # beside the check
    with _ending(bad):
        _check_and_bad(installed, fleet, tmp_path, inv, bad)


def _check_and_bad(installed: Path, fleet: Fleet, tmp_path: Path, inv: Path, bad: subprocess.Popen) -> None:
    p = _playbook(installed, tmp_path, inv, TASKS, "--check")
    said = p.stdout + p.stderr
    assert p.returncode == 2, said
    assert said.count("would measure on this") == 2 and f"ctxbench {TASKS}" in said, said
    assert not (tmp_path / "out").exists()
    _nothing_left(fleet, tmp_path)
    p = _ended(bad)
    said = p.stdout + p.stderr
    assert p.returncode == 2, said
    assert sorted(line.split("]")[0] for line in said.splitlines() if "\"ctxbench_command: " in line) == \
        ["fatal: [h0", "fatal: [h1", "fatal: [h2"], said
    assert "Connection refused" not in said  # refused before any host was contacted
    assert all(_recap(p.stdout)[h][2:] == (0, 1) for h in ("h0", "h1", "h2")), p.stdout
