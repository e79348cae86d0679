"""The results model against what the engine really writes: every id the
engine lists, measured briefly, must fit the kind schema.py declares for
it, and so must the results the front end derives from them (tasks and
irq points); the environment record must hold every path the readers use.
A key renamed in the engine, or read under another name by the front end,
fails here rather than in a figure."""
import os

import pytest

from conftest import run_engine

from ctxbench.core import engine, schema
from ctxbench.core.measure import EngineOptions, run_ids
from ctxbench.core.model import Document, Result, coded
from ctxbench.core.results import plain
from ctxbench.irq import analysis as irq_analysis
from ctxbench.tasks.analysis import analyse_pair

# smallest counts that still give every member: the values are not judged
BRIEF = dict(groups=1, iterations=2, min_sample_us=100, warmup_ms=0)
TWO_CPUS = len(os.sched_getaffinity(0)) >= 2


def problems(result: dict, kind: schema.Kind | None = None, analysed: bool = False) -> list[str]:
    """What in `result` does not match its kind's declaration (empty: fits)."""
    kind = kind or schema.kind_of(result)
    rid = result.get("id")
    if kind is None:
        return [f"{rid}: no kind claims this id"]
    out = []
    # the members' types are the records' (analyse validated every result here)
    members = (*kind.members, *(schema.ANALYSED if analysed and not kind.derived else ()))
    out += [f"{rid}: missing '{name}' ({kind.name})" for name in members if name not in result]
    params = result.get("params") if isinstance(result.get("params"), dict) else {}
    for name, types in kind.params.items():
        if name not in params:
            out.append(f"{rid}: missing params.{name} ({kind.name})")
        elif not schema.fits(params[name], types):
            out.append(f"{rid}: params.{name} is {type(params[name]).__name__}, not {schema.type_name(types)}")
    raw = result.get("raw") if isinstance(result.get("raw"), dict) else {}
    for name in kind.raw:
        if name not in raw:
            out.append(f"{rid}: missing raw.{name} ({kind.name})")
    if kind.verify:
        v = result.get("verify")
        if not isinstance(v, dict):
            out.append(f"{rid}: missing 'verify' ({kind.name})")
        else:
            out += [f"{rid}: missing verify.{a}" for a in schema.VERIFY_ARRAYS if a not in v]
    return out


def environment_problems(env: dict) -> list[str]:
    out = []
    for path, types in schema.ENVIRONMENT.items():
        cur: object = env
        for step in path.split("."):
            if not isinstance(cur, dict) or step not in cur:
                out.append(f"environment: missing {path}")
                break
            cur = cur[step]
        else:
            if not schema.fits(cur, types):
                out.append(f"environment: {path} is {type(cur).__name__}, not {schema.type_name(types)}")
    return out


@pytest.fixture(scope="module")
def every_id(engine_bin):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CTXBENCH_ENGINE", str(engine_bin))
        return _measure_every_id()


REFUSABLE = ("/ibpb", "/ssbd", "/l1d-flush", "/cgroup-same", "/cgroup-split")


def _runs(rid: str) -> bool:
    return run_engine("run", rid, "--groups", "1", "--iterations", "1", "--min-sample-us", "100",
                      "--warmup-ms", "0", "--json").returncode == 0


def _measure_every_id():
    ids = [b["id"] for b in engine.Engine().list_benchmarks(all_=True)]
    if not TWO_CPUS:
        ids = [i for i in ids if "/cross-cpu" not in i]
    # the anatomy's rungs that a kernel may refuse (a prctl, cgroups without
    # root): measured here only where they run, as `ctxbench anatomy` does
    ids = [i for i in ids if not i.endswith(REFUSABLE) or _runs(i)]
    # task-family ids: small tasks and a fixed n keep them to seconds
    plain = [i for i in ids if not i.startswith(("tasks/", "irq/"))]
    eng = engine.Engine()
    header, res = run_ids(eng, plain, EngineOptions(**BRIEF))
    tasks = _task_cover([i for i in ids if i.startswith("tasks/")])
    ids = [i for i in ids if not i.startswith("tasks/") or i in tasks]
    _, res_t = run_ids(eng, tasks, EngineOptions(groups=2, iterations=2, warmup_ms=0, task_scale=0.02,
                                            extra=["--n-list", "1,3"]))
    irqs = [i for i in ids if i.startswith("irq/")]
    _, res_i = run_ids(eng, irqs, EngineOptions(groups=1, iterations=2, n=3, warmup_ms=0, task_scale=0.02))
    return ids, header, res + res_t + res_i


def _task_cover(tasks: list[str]) -> list[str]:
    """The task pairs to measure: every task and every variant (cold,
    warm, burn-...) at least once, and the two the derived points need.
    The 27 pairs share one emitter (engine/src/tasks/pair.c), and
    measuring them all took 13 s of the 18 s this module's engine work
    took; test_schema_kinds_claim_every_listed_id still covers each id."""
    def parts(i):
        pair, _, variant = i[len("tasks/"):].partition("/")
        return {*pair.split("+"), "/" + variant}
    chosen = ["tasks/sort+crc/warm", "tasks/empty+empty/warm"]
    seen = set().union(*(parts(i) for i in chosen))
    for i in tasks:
        if not parts(i) <= seen:
            chosen.append(i)
            seen |= parts(i)
    return [i for i in tasks if i in chosen]


def test_schema_kinds_claim_every_listed_id():
    for b in engine.Engine().list_benchmarks(all_=True):
        k = schema.kind_of({"id": b["id"]})
        assert k is not None and not k.derived, b["id"]


@pytest.mark.machine
@pytest.mark.flow
def test_every_engine_id_fits_its_kind(every_id):
    ids, header, res = every_id
    res = plain(res)  # problems() reads members as the engine wrote them
    assert sorted(r["id"] for r in res) == sorted(ids)
    found = [p for r in res for p in problems(r, analysed=True)]
    assert found == []
    for r in res:
        v = Result(r)
        assert v.kind is not None
        assert len(v.keep) == len(v.samples)
        # the codes analyse() writes (clock_probe: the probe's check chain, off on a loaded host)
        assert all(w.code in ("engine", "dropped", "verification", "outliers", "negative", "clock_probe")
                   for w in v.warnings), [w.code for w in v.warnings]


@pytest.mark.machine
@pytest.mark.flow
def test_environment_holds_every_path_the_readers_use(every_id):
    _, header, _ = every_id
    assert environment_problems(header["environment"]) == []
    env = Document({"environment": header["environment"]}).environment
    assert env.label and env.kernel_release


@pytest.mark.machine
@pytest.mark.flow
def test_derived_points_fit_their_kinds(every_id):
    _, _, res = every_id
    by_id = {r["id"]: r for r in plain(res)}
    # the engine ran each task id once at n = 3: enough to derive the points'
    # members (their values are not judged here)
    pts = plain(analyse_pair(by_id["tasks/sort+crc/warm"], by_id["tasks/empty+empty/warm"], resamples=50).points)
    ipt = plain(irq_analysis.derive({"sort": irq_analysis.rows(by_id["irq/sort"])}, irq_analysis.rows(by_id["irq/direct"]),
                                     [by_id["irq/sort"]["params"]["rate_hz"]], {})["points"]["sort"])
    for p in pts + ipt:
        assert problems(p) == [], p["id"]
        assert schema.kind_of(p).derived
        assert all(coded(w) == w for w in p["warnings"])  # stored as {code, text}


def test_the_boost_helpers_result_fits_its_kind():
    # userbench builds this result from the helper's lines, not the engine
    from ctxbench.userbench.command import boost_result
    rows = [{"n": 1000, "value": 5.0 + i, "t_single_ns": 1e4, "t_switch_ns": 2.2e4, "voluntary": 0,
             "involuntary": 0} for i in range(6)]
    r = boost_result(rows, 1)
    assert schema.kind_of(plain(r)) is schema.BY_NAME["boost"]
    assert problems(plain(r)) == []
    assert Result(r).summary.median == 7.5


def test_a_renamed_key_is_caught():
    r = {"id": "irq/crc", "quantity": "overhead", "unit": "ns", "doc": "", "params": {"task": "crc", "rate": 100},
         "samples": [], "group": [], "raw": {}, "warnings": [], "engine_summary": {}, "timing": {}}
    assert any("params.rate_hz" in p for p in problems(r))
    env = {"virtualization": {"hypervisor": "KVM"}}
    assert any("virtualization.hypervisor_vendor" in p for p in environment_problems(env))


def test_old_plain_text_warnings_get_codes():
    assert coded("ctxbench: 3 of 40 samples disturbed and dropped (migration: 3)")["code"] == "dropped"
    assert coded("negative indirect cost I (printed as measured)")["code"] == "negative_indirect"
    assert coded("SCHED_FIFO refused; measured under SCHED_OTHER instead") == {
        "code": "engine", "severity": "warning", "text": "SCHED_FIFO refused; measured under SCHED_OTHER instead",
        "data": {}}
    # a file from before severities: {code, text} gets its code's severity and no data
    assert coded({"code": "outliers", "text": "2 statistical outliers"}) == {
        "code": "outliers", "severity": "info", "text": "2 statistical outliers", "data": {}}
    assert coded({"code": "no-such-code", "text": "x"})["code"] == "engine"


def test_every_optional_member_a_kind_names_is_a_record_s():
    """A kind names the members some of its results carry; their types are
    the records' (the core's, or a feature's registered in ctxbench.records)."""
    import msgspec
    from ctxbench.records import RECORDS
    declared = {f.name for f in msgspec.structs.fields(RECORDS.Result)}
    assert not [(k.name, m) for k in schema.KINDS for m in (*k.optional, *k.members) if m not in declared]
