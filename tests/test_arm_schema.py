"""One schema for every results file: written by the engine alone
(`ctxbench-engine run ... --json`, as on a board, native or cross-built
under qemu) or by the Python CLI (`ctxbench run --ids`), the same benchmarks
give the same top-level members, the same result members, and the same
types, once the front end has read them (reader.load adds the statistics
the engine leaves to the laptop)."""
import pytest

from arm_helpers import arm_engine, run_under_qemu
from conftest import run_cli, run_engine

from ctxbench.core import model, reader, results
from ctxbench.records import RECORDS

pytestmark = pytest.mark.cross

IDS = ["timer/clock_monotonic_raw", "kernel/thread/pipe/same-cpu"]
SHORT = ["--groups", "2", "--iterations", "3"]
TOP = {"schema": str, "tool": dict, "environment": dict, "results": list}
NESTED = ("params", "raw", "verify", "summary", "verification", "engine_summary")


def kind(v):
    """JSON type; int and float are both numbers, null matches any type."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    return type(v).__name__


def same_shape(a: dict, b: dict, where: str) -> list[str]:
    errs = []
    if set(a) != set(b):
        errs.append(f"{where}: members differ: only engine {sorted(set(a) - set(b))}, "
                    f"only CLI {sorted(set(b) - set(a))}")
    for k in set(a) & set(b):
        ka, kb = kind(a[k]), kind(b[k])
        if ka and kb and ka != kb:
            errs.append(f"{where}.{k}: {ka} vs {kb}")
    return errs


@pytest.fixture(scope="module")
def cli_file(tmp_path_factory, engine_bin):
    f = tmp_path_factory.mktemp("schema") / "cli.json"
    p = run_cli("run", "--ids", ",".join(IDS), *SHORT, "-o", str(f))
    assert p.returncode == 0, p.stderr
    return f


def engine_file(where, tmp_path):
    f = tmp_path / f"{where}.json"
    args = ["run", *IDS, *SHORT, "--min-sample-us", "200", "--warmup-ms", "0", "--json", "-o", str(f)]
    if where == "native":
        p = run_engine(*args)
    else:
        p = run_under_qemu(where, arm_engine(where), *args)
    assert p.returncode == 0, p.stderr
    return f


@pytest.mark.parametrize("where", ["native", "aarch64", "armv7"])
def test_engine_and_cli_files_have_one_schema(where, tmp_path, cli_file):
    eng = results.plain(reader.load(str(engine_file(where, tmp_path)), RECORDS))  # compared member by member
    cli = results.plain(reader.load(str(cli_file), RECORDS))
    for doc in (eng, cli):
        for k, t in TOP.items():
            assert isinstance(doc.get(k), t), k
        assert doc["schema"] == model.SCHEMA
    errs = same_shape(eng["tool"]["build"], cli["tool"]["build"], "tool.build")
    errs += same_shape(eng["environment"], cli["environment"], "environment")
    assert [r["id"] for r in eng["results"]] == IDS == [r["id"] for r in cli["results"]]
    for re_, rc in zip(eng["results"], cli["results"]):
        errs += same_shape(re_, rc, re_["id"])
        for k in NESTED:
            if isinstance(re_.get(k), dict) and isinstance(rc.get(k), dict):
                errs += same_shape(re_[k], rc[k], f"{re_['id']}.{k}")
        for r in (re_, rc):
            assert all(kind(x) in ("number", None) for x in r["samples"])
            assert len(r["group"]) == len(r["samples"])
            for name, vals in r["raw"].items():
                assert len(vals) == len(r["samples"]), name
    assert not errs, "\n".join(errs)


def test_shape_check_sees_a_difference():
    """The comparison itself: a missing member or a changed type is found."""
    assert same_shape({"a": 1, "b": "x"}, {"a": 2.5, "b": None}, "r") == []
    assert same_shape({"a": 1}, {"a": 1, "c": 0}, "r")
    assert same_shape({"a": 1}, {"a": "1"}, "r")
