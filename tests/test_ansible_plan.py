"""The Ansible collection's control-node checks (ansible/plugins), called
directly, without ansible-playbook or a host: what ctxbench.bench.plan
refuses before any host is contacted (in check mode too), in one line;
the output directory made only when a document is written (and a new
SQLite store's directory inside it with it); ctxbench.bench.record with no
document; a failed step on a host said in one line. The collection run
end to end is tests/test_ansible_collection.py."""
from __future__ import annotations

import importlib
import os
import sys

import pytest

from conftest import ROOT

HOSTS = {"inventory_hostname": "h0", "ansible_play_hosts_all": ["h0"], "hostvars": {}}


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """The collection's plugins, importable as Ansible names them
    (ansible_collections.ctxbench.bench.*), only while this module runs."""
    top = tmp_path_factory.mktemp("collections")
    (top / "ansible_collections" / "ctxbench").mkdir(parents=True)
    (top / "ansible_collections" / "ctxbench" / "bench").symlink_to(ROOT / "ansible")
    sys.path.insert(0, str(top))
    try:
        names = ("plugins.action.plan", "plugins.action.record", "plugins.action.document",
                 "plugins.plugin_utils.front_end", "plugins.plugin_utils.verdict")
        yield {n.rsplit(".", 1)[1]: importlib.import_module(f"ansible_collections.ctxbench.bench.{n}") for n in names}
    finally:
        sys.path.remove(str(top))
        for name in [m for m in sys.modules if m == "ansible_collections" or m.startswith("ansible_collections.")]:
            del sys.modules[name]


@pytest.fixture
def engines(tmp_path):
    """An engines directory with an x86-64 engine (its ELF header alone:
    the plan reads no more of it)."""
    exe = tmp_path / "engines" / "x86_64" / "ctxbench-engine"
    exe.parent.mkdir(parents=True)
    exe.write_bytes(b"\x7fELF\x02\x01" + bytes(12) + (62).to_bytes(2, "little") + bytes(44))
    exe.chmod(0o755)
    return str(tmp_path / "engines")


def _plan(bench, tmp_path, built, check=False, **given) -> dict:
    args = {"command": "run --quick", "install": "auto", "output_dir": str(tmp_path / "results"), "store": "off",
            "cpu": None, "timeout": 1800, "connect_timeout": 30, "step_timeout": 600, "commit": None,
            "engines": built, "wheel": None, **given}
    return bench["front_end"].result(bench["plan"].planned, args, HOSTS, check)


def test_a_store_in_the_output_directory_not_made_yet(bench, tmp_path, engines, monkeypatch):
    """docs/ansible.md's first example in a fresh directory: results/ and
    its store are made when a document is written, not by the plan; a
    store whose directory is elsewhere and missing is still refused."""
    monkeypatch.chdir(tmp_path)
    for store, made in (("results/store.sqlite", []), ("results/db/store.sqlite", [str(tmp_path / "results/db")])):
        for check in (False, True):
            plan = _plan(bench, tmp_path, engines, check, output_dir="results", store=store)
            assert not plan.get("failed"), plan
            assert plan["make"] == [str(tmp_path / "results"), *made] and plan["store"] == store
            assert not (tmp_path / "results").exists()  # nothing made before a document
    plan = _plan(bench, tmp_path, engines, store="elsewhere/store.sqlite")
    assert plan["failed"] and plan["msg"].startswith("ctxbench_store: store elsewhere/store.sqlite: its directory")
    bench["document"]._made(_plan(bench, tmp_path, engines, store="results/db/s.sqlite")["make"])
    assert (tmp_path / "results" / "db").is_dir()


@pytest.mark.parametrize("given, said", [
    ({"command": ""}, "ctxbench_command is empty: give a measuring command (env, run, userbench, "),
    ({"command": []}, "ctxbench_command is empty: give a measuring command (env, run, "),
    ({"command": "run --quick --bogus"}, "ctxbench_command: unrecognized arguments to run: --bogus"),
    ({"command": "tasks --bogus"}, "ctxbench_command: unrecognized arguments to tasks: --bogus"),
    ({"commit": "a" * 65}, "ctxbench_commit: 65 characters: give the commit the runs measured, 1 to 64 characters"),
    ({"commit": "  "}, "ctxbench_commit: 2 characters of blanks: "),
    ({"connect_timeout": -1}, "ctxbench_connect_timeout '-1': give whole seconds from 1 to 3600"),
    ({"step_timeout": -5}, "ctxbench_step_timeout '-5': give whole seconds from 1 to 86400"),
    ({"timeout": 0}, "ctxbench_timeout '0': give whole seconds from 1 to 86400"),
    ({"timeout": float("inf")}, "ctxbench_timeout 'inf': give whole seconds from 1 to 86400"),
    ({"timeout": 86401}, "ctxbench_timeout '86401': give whole seconds from 1 to 86400"),
    ({"engines": "EMPTY"}, "ctxbench_engines: no static engine in "),
    ({"engines": "NOWHERE"}, "ctxbench_engines: "),
    ({"command": "tasks --quick", "wheel": "FILE"}, "ctxbench_wheel: "),
    ({"command": "tasks --quick", "wheel": "NOWHERE"}, "ctxbench_wheel: cannot read "),
    ({"output_dir": "FILE"}, "ctxbench_output_dir: "),
    ({"output_dir": "FILE/sub"}, "ctxbench_output_dir: its parent "),
    ({"store": "postgresql://127.0.0.1:1/db"}, "ctxbench_store: store postgresql://127.0.0.1:1/db: "),
])
@pytest.mark.parametrize("check", [False, True], ids=["run", "check"])
def test_refused_before_any_host_in_one_line(bench, tmp_path, engines, given, said, check):
    """Each bad value is the plan's failure (so no host is contacted), in
    check mode as in a real run, in one line, and nothing is made."""
    (tmp_path / "file").write_text("not a directory, not a wheel")
    (tmp_path / "empty").mkdir()
    places = {"EMPTY": tmp_path / "empty", "NOWHERE": tmp_path / "nowhere", "FILE": tmp_path / "file"}
    given = {k: _placed(v, places) for k, v in given.items()}
    plan = _plan(bench, tmp_path, engines, check, **given)
    assert plan.get("failed") and plan["msg"].startswith(said) and "\n" not in plan["msg"], plan
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "engines", "file"]


def _placed(value, places: dict):
    """A value whose first part names one of the test's `places` (FILE/sub),
    with that place's path."""
    head, sep, rest = value.partition("/") if isinstance(value, str) else ("", "", "")
    return f"{places[head]}{sep}{rest}" if head in places else value


def test_record_refuses_a_long_commit_and_makes_nothing_of_no_document(bench, tmp_path):
    record, front_end = bench["record"], bench["front_end"]
    store = str(tmp_path / "store.sqlite")
    said = front_end.result(record.recorded, {"documents": [], "store": store, "commit": None}, False)
    assert said == {"changed": False, "runs": [], "msg": "no document given: nothing recorded"}
    said = front_end.result(record.recorded, {"documents": [], "store": store, "commit": "c" * 65}, False)
    assert said["failed"] and said["msg"].startswith("ctxbench: commit: 65 characters")
    assert list(tmp_path.iterdir()) == []


def test_a_failed_step_on_a_host_in_one_line(bench):
    """ctxbench_python=/nonexistent/python3: the unpacking step's own last
    line, escaped, not Ansible's "non-zero return code"."""
    ran = {"rc": 127, "msg": "non-zero return code", "stderr": "sh: 1: /nonexistent/python3: not found\x1b[2J\n"}
    assert bench["verdict"].step_failed(ran, "h0", "unpacking ctxbench with /nonexistent/python3") == (
        "ctxbench: h0: unpacking ctxbench with /nonexistent/python3 failed (exit status 127): "
        "sh: 1: /nonexistent/python3: not found\\x1b[2J")
    assert bench["verdict"].step_failed({"failed": True, "msg": "timed out"}, "h0", "pip") == \
        "ctxbench: h0: pip failed: timed out"


def test_the_plan_as_it_was(bench, tmp_path, engines):
    """A good plan still says what a host would do (check mode's line)."""
    plan = _plan(bench, tmp_path, engines, True, command=["run", "--quick"], cpu=1)
    assert plan["way"] == "engine" and plan["timeout"] == 1800 and not plan.get("failed"), plan
    assert plan["msg"].startswith("h0: ctxbench-engine run-suite --preset quick --json --cpu 1 (the engine alone)")
    assert os.path.basename(plan["document"]) == "h0.json" and not (tmp_path / "results").exists()
