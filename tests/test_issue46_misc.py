"""Issue 46 (a hostile audit), four root causes:

1. the engine an installed package starts is its own (ctxbench/engines/<arch>),
   never a build/native/ctxbench-engine or an engine/src found in a directory
   above the package; a checkout's build is used only when the package is the
   checkout's src/ctxbench (core/engine.checkout);
2. compare and report print no numpy warning: an id with no ratio (a baseline's
   residue, half its samples at or below 0) compares its difference; a sample
   no clock can measure (1e308) is one line, not overflow warnings;
3. the published JSON Schema types params from the table the reader checks
   them with (core/schema.PARAM_TYPES);
4. a store on a full disk says so, not "no such savepoint"."""
from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import uuid
from pathlib import Path

import numpy as np
import pytest

from conftest import FIXTURES, ROOT, ctxbench_cmd, run_cli

from ctxbench.core import engine, locations, reader, results, schema
from ctxbench.core.errors import UserError
from ctxbench.core.ssh import engines
from ctxbench.records import RECORDS

RUN = FIXTURES / "v1" / "run.json"  # a real `ctxbench run` file: baseline/nop and a kernel ping-pong


# ---- 1. which engine: the package's own, never one above it ----------------

def _engine_script(path: Path, says: str) -> Path:
    """An executable that answers --version as an engine does, naming itself."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho '{{\"name\": \"ctxbench-engine\", \"version\": \"{says}\", "
                    f"\"build\": {{\"arch\": \"x86_64\", \"static\": true}}}}'\n")
    path.chmod(0o755)
    return path


def _installed(site: Path) -> Path:
    """A package installed at site/ctxbench (a wheel's layout): its engine.py's path."""
    (site / "ctxbench" / "core").mkdir(parents=True, exist_ok=True)
    return site / "ctxbench" / "core" / "engine.py"


def _checkout(root: Path) -> None:
    """What makes a directory a ctxbench checkout: engine/src, a Makefile and ctxbench's pyproject.toml beside src/."""
    (root / "engine" / "src").mkdir(parents=True, exist_ok=True)
    (root / "Makefile").write_text("all:\n")
    (root / "pyproject.toml").write_text('[project]\nname = "ctxbench"\n')


@pytest.fixture
def no_engine_env(monkeypatch, tmp_path):
    """No CTXBENCH_ENGINE, no replay, nothing on PATH: the lookup alone decides."""
    for k in ("CTXBENCH_ENGINE", "CTXBENCH_ENGINE_REPLAY", "CTXBENCH_ENGINE_RECORD", "CTXBENCH_ENGINES"):
        monkeypatch.delenv(k, raising=False)
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    arch = engines.here()
    if arch is None:
        pytest.skip("no engine architecture for this machine")
    return arch


def test_installed_package_ignores_an_engine_built_in_a_directory_above_its_venv(tmp_path, monkeypatch,
                                                                                  no_engine_env):
    """A wheel installed into a venv under a directory that holds
    build/native/ctxbench-engine: its own engine runs, and --version names
    it, wherever the command runs from."""
    planted = _engine_script(tmp_path / "build" / "native" / "ctxbench-engine", "planted")
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    own = _engine_script(site / "ctxbench" / "engines" / no_engine_env / "ctxbench-engine", "packaged")
    monkeypatch.setattr(locations, "__file__", str(_installed(site)))
    for cwd in (tmp_path, site, tmp_path / "build"):
        monkeypatch.chdir(cwd)
        assert engine.engine_path() == str(own)
    version = engine.Engine().build()  # what `ctxbench --version` prints after "engine: "
    assert "packaged" in version and str(own) in version and "planted" not in version and \
        str(planted) not in version, version


def test_a_venv_inside_a_checkout_is_not_the_checkout(tmp_path, monkeypatch, no_engine_env):
    """A wheel installed into checkout/.venv: the package is not the
    checkout's src/ctxbench, so the checkout's build is not its engine."""
    _checkout(tmp_path)
    _engine_script(tmp_path / "build" / "native" / "ctxbench-engine", "planted")
    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    own = _engine_script(site / "ctxbench" / "engines" / no_engine_env / "ctxbench-engine", "packaged")
    monkeypatch.setattr(locations, "__file__", str(_installed(site)))
    assert locations.checkout() is None
    assert engine.engine_path() == str(own)


def test_an_installed_package_without_an_engine_starts_none_found_above_it(tmp_path, monkeypatch, no_engine_env):
    """No engine in the package: one line saying so, not the engine a
    directory above it holds."""
    _engine_script(tmp_path / "build" / "native" / "ctxbench-engine", "planted")
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    monkeypatch.setattr(locations, "__file__", str(_installed(site)))
    with pytest.raises(UserError) as e:
        engine.engine_path()
    assert "\n" not in e.value.why and "planted" not in e.value.why and "CTXBENCH_ENGINE" in e.value.why


def test_a_checkout_runs_its_own_build(tmp_path, monkeypatch, no_engine_env):
    """The package is src/ctxbench of a checkout (engine/src and a Makefile
    beside src/): the checkout's build/native is its engine, and its build/
    holds the static engines --host takes."""
    _checkout(tmp_path)
    built = _engine_script(tmp_path / "build" / "native" / "ctxbench-engine", "built")
    (tmp_path / "src" / "ctxbench" / "core").mkdir(parents=True)
    monkeypatch.setattr(locations, "__file__", str(tmp_path / "src" / "ctxbench" / "core" / "engine.py"))
    assert engine.engine_path() == str(built)
    assert locations.checkout() == tmp_path.resolve()
    assert locations.static_dir() == tmp_path.resolve() / "build"


def test_host_takes_the_static_engine_the_package_carries(tmp_path, monkeypatch, no_engine_env):
    """--host with an engine/src above the venv: the static engine for the
    host's architecture is the one the wheel carries, not 'no x86_64 engine
    here ... make engine-x86_64' from a build/ above it."""
    _checkout(tmp_path)  # engine/src (and a Makefile) in the directory above the venv
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    own = site / "ctxbench" / "engines" / no_engine_env / "ctxbench-engine"
    own.parent.mkdir(parents=True)
    shutil.copy(shutil.which("true", path="/usr/bin:/bin"), own)  # an executable of this machine's architecture
    monkeypatch.setattr(locations, "__file__", str(_installed(site)))
    assert locations.static_dir() == (site / "ctxbench" / "engines").resolve()
    assert engines.for_arch(os.uname().machine, locations.static_dir()) == own.resolve()


def test_host_default_dir_is_the_engine_lookup_s(tmp_path, monkeypatch, no_engine_env):
    """core/ssh/engines.default_dir (--host and the fleet) decides as
    core/engine does: an engine/src above the venv is not this package's."""
    _checkout(tmp_path)
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    (site / "ctxbench" / "core" / "ssh").mkdir(parents=True)
    monkeypatch.setattr(locations, "__file__", str(_installed(site)))
    assert engines.default_dir() == (site / "ctxbench" / "engines").resolve()


# ---- 2. no numpy warning: an id with no ratio, samples no clock measures ---

def _near_zero(tmp_path: Path, name: str = "nop.json") -> Path:
    """RUN with baseline/nop as `make run` measures it on a fast machine:
    its median just above 0, two of its five groups all at 0 (resampled
    medians of 0: the bootstrap divided by them)."""
    doc = json.loads(RUN.read_text())
    nop = next(r for r in doc["results"] if r["id"] == "baseline/nop")
    nop["samples"] = [0.0] * 12 + [0.01 * (i + 1) for i in range(18)]
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _no_warning(p: subprocess.CompletedProcess) -> None:
    assert "Warning" not in p.stderr and "warning" not in p.stderr.lower(), p.stderr


def _row(out: str, rid: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(rid + " "))


@pytest.mark.parametrize("unit", ["auto", pytest.param("ns", marks=pytest.mark.slow)])  # make check: one
def test_compare_of_a_baseline_near_zero_prints_no_numpy_warning(tmp_path, unit):
    f = _near_zero(tmp_path)
    p = run_cli("compare", "--unit", unit, str(f), str(f), in_process=False)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    row = _row(p.stdout, "baseline/nop")
    assert "% [" not in row and re.search(r" \+0(\.0)? (cyc|ns) \[-\S+ (cyc|ns), \+\S+ (cyc|ns)\]", row), row
    assert "no ratio" in p.stdout
    assert "+0.0% [" in _row(p.stdout, "kernel/thread/pipe/same-cpu")  # an id with a ratio keeps it


def test_an_id_without_a_ratio_that_moved_is_judged_on_its_difference(tmp_path):
    base = _near_zero(tmp_path)
    doc = json.loads(base.read_text())
    nop = next(r for r in doc["results"] if r["id"] == "baseline/nop")
    nop["samples"] = [x + 1.0 for x in nop["samples"]]
    new = tmp_path / "slower.json"
    new.write_text(json.dumps(doc))
    p = run_cli("compare", "--unit", "ns", str(base), str(new), in_process=False)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    row = _row(p.stdout, "baseline/nop")
    assert "+1.0 ns [" in row and row.rstrip().endswith("slower"), row


def test_compare_of_make_run_s_file_against_itself_gives_no_spread_of_a_mean_near_zero(tmp_path):
    """baseline/nop's groups straddle 0: a %sd over their mean was
    19960788.7%; it has none."""
    p = run_cli("compare", str(RUN), str(RUN), in_process=False)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    cells = _row(p.stdout, "baseline/nop").split()
    assert cells[4] == "n/a" and cells[7] == "n/a", cells  # ±%sd on both sides
    assert all(float(c.rstrip("%")) < 100 for c in cells if c.endswith("%") and c[0].isdigit()), cells


def test_the_gate_on_an_id_without_a_ratio_gives_its_difference(tmp_path):
    f = _near_zero(tmp_path)
    p = run_cli("compare", "--fail-if-slower", "5%", str(f), str(f), in_process=False)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    line = next(line for line in p.stdout.splitlines() if "baseline/nop" in line)
    assert line.startswith("unresolved") and "no ratio" in line and "the difference is +0" in line, line


def test_change_without_a_ratio_is_the_difference_with_no_floating_point_fault():
    from ctxbench.compare import change as changes
    doc = json.loads(RUN.read_text())
    nop = next(r for r in doc["results"] if r["id"] == "baseline/nop")
    x = np.array([0.0] * 12 + [0.01 * (i + 1) for i in range(18)])
    side = changes.SideSamples(x, np.array(nop["group"]), "groups")
    with np.errstate(all="raise"):  # a division by a resampled median of 0 raised here
        c = changes.change(side, side)
    assert not c.has_ratio and np.isnan(c.rel) and np.isnan(c.mde)
    assert c.diff == 0 and c.diff_ci[0] < 0 < c.diff_ci[1] and np.isfinite(c.diff_mde)
    assert np.isnan(c.sd_base)  # no spread relative to a mean near 0
    shifted = changes.SideSamples(x + 0.05, side.units, "groups")
    with np.errstate(all="raise"):
        d = changes.change(side, shifted)
    assert not d.has_ratio and abs(d.diff - 0.05) < 1e-12


@pytest.mark.parametrize("command", ["report", "compare"])
def test_samples_no_clock_measures_are_one_line_and_no_overflow_warning(tmp_path, command):
    doc = json.loads(RUN.read_text())
    doc["results"][1]["samples"] = [1e308] * len(doc["results"][1]["samples"])
    f = tmp_path / "huge.json"
    f.write_text(json.dumps(doc))
    args = ["report", str(f), "-o", str(tmp_path / "r.html")] if command == "report" else ["compare", str(f), str(f)]
    p = run_cli(*args, in_process=False)
    assert p.returncode == 2, p.stdout + p.stderr
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("ctxbench: ") and "out of range" in p.stderr and \
        "samples[0]" in p.stderr, p.stderr


def test_samples_at_the_bound_report_with_no_warning(tmp_path):
    """Just inside what a 64-bit clock holds: analysed, no overflow."""
    doc = json.loads(RUN.read_text())
    doc["results"][1]["samples"] = [9e18] * len(doc["results"][1]["samples"])
    f = tmp_path / "large.json"
    f.write_text(json.dumps(doc))
    p = run_cli("report", str(f), "-o", str(tmp_path / "r.html"), in_process=False)
    assert p.returncode == 0 and p.stderr == "", p.stderr


# ---- 3. the published schema types params as the reader does -------------

_JSON = {int: "integer", float: "number", str: "string", bool: "boolean", type(None): "null", list: "array",
         dict: "object"}


def _published() -> dict:
    return json.loads((ROOT / "docs" / "results-file.schema.json").read_text())


def test_every_param_type_the_reader_checks_is_in_the_published_schema():
    params = _published()["$defs"]["Result"]["properties"]["params"]
    declared = params.get("properties", {})
    for name, types in schema.PARAM_TYPES.items():
        assert name in declared, f"params.{name} is not in the published schema"
        want = {_JSON[t] for t in types}
        if {"integer", "number"} <= want:
            want.discard("integer")
        got = declared[name]["type"]
        assert set([got] if isinstance(got, str) else got) == want, (name, got, types)


def _v2_document() -> dict:
    """A ctxbench/2 document, as a command writes it (RUN read and encoded)."""
    return json.loads(results.encode(reader.load(str(RUN), RECORDS)))


def _wrong(types: tuple):
    """A JSON value that is none of `types` to the reader (nor to JSON Schema:
    never 1.0 for an int, which JSON Schema calls an integer)."""
    return next(v for v in (True, "1000", 1.5, [1], {"a": 1}, None, 7) if not schema.fits(v, types))


def test_a_param_of_the_wrong_type_fails_the_schema_as_it_fails_the_reader():
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(_published())
    good = _v2_document()
    validator.validate(good)
    reader.parse(json.loads(json.dumps(good)), "good.json", RECORDS)
    cases = [("n", True), ("n", "1000")] + [(name, _wrong(types)) for name, types in schema.PARAM_TYPES.items()]
    for name, value in cases:
        doc = json.loads(json.dumps(good))
        doc["results"][0]["params"][name] = value
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(doc)
        with pytest.raises(UserError) as e:
            reader.parse(doc, "bad.json", RECORDS)
        assert f"params.{name}" in e.value.why, e.value.why


def test_a_sample_beyond_a_clock_fails_the_schema_as_it_fails_the_reader():
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(_published())
    doc = _v2_document()
    doc["results"][1]["samples"][0] = 1e308
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(doc)
    with pytest.raises(UserError):
        reader.parse(doc, "huge.json", RECORDS)


# ---- 4. a store on a full disk -------------------------------------------

def _another_run(tmp_path: Path, name: str) -> Path:
    """RUN as another run (its own start: another digest)."""
    doc = json.loads(RUN.read_text())
    doc["run"]["started"] = f"2020-01-0{len(name) % 9 + 1}T00:00:00.{uuid.uuid4().int % 10**6:06d}"
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _one_line_disk_full(p) -> None:
    assert p.returncode == 2, p.stdout + p.stderr
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("ctxbench: store "), p.stderr
    assert "disk is full" in p.stderr and "savepoint" not in p.stderr, p.stderr


def test_store_add_onto_a_full_tmpfs_says_the_disk_is_full(tmp_path):
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    try:
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mnt)], capture_output=True,
                           text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"cannot mount a tmpfs: {e}")
    if m.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {m.stderr.strip()}")
    try:
        store = str(mnt / "store.sqlite")
        # in child processes: no connection of this one keeps the file system busy at its unmount
        first = run_cli("store", "add", "--store", store, str(_another_run(tmp_path, "a.json")), in_process=False)
        assert first.returncode == 0, first.stderr
        fd = os.open(mnt / "filler", os.O_WRONLY | os.O_CREAT)  # the rest of the disk
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError:
            pass
        finally:
            os.close(fd)
        _one_line_disk_full(run_cli("store", "add", "--store", store, str(_another_run(tmp_path, "bb.json")),
                                    in_process=False))
    finally:
        if subprocess.run(["umount", str(mnt)], capture_output=True, timeout=30).returncode != 0:
            subprocess.run(["umount", "-l", str(mnt)], capture_output=True, timeout=30)


@pytest.mark.parametrize("fault,said", [("database or disk is full", "disk is full"),
                                        ("disk I/O error", "I/O error on its disk")])
def test_store_add_when_sqlite_fails_on_its_disk_says_so(tmp_path, monkeypatch, fault, said):
    """What SQLite does on a full disk (or an I/O error), at the point it
    happens: the insert fails and the whole transaction is rolled back, so
    the savepoint's own rollback then fails with 'no such savepoint'."""
    from sqlalchemy import event

    from ctxbench.core.store import db
    store = str(tmp_path / "store.sqlite")
    assert run_cli("store", "add", "--store", store, str(_another_run(tmp_path, "a.json"))).returncode == 0
    locking = db._sqlite_locking

    def failing(eng):
        locking(eng)

        @event.listens_for(eng, "before_cursor_execute")
        def _full(conn, cursor, statement, parameters, context, executemany):
            if statement.lstrip().upper().startswith("INSERT INTO RUNS"):
                cursor.connection.execute("ROLLBACK")  # SQLite's own rollback on SQLITE_FULL / SQLITE_IOERR
                raise sqlite3.OperationalError(fault)
    monkeypatch.setattr(db, "_sqlite_locking", failing)
    p = run_cli("store", "add", "--store", store, str(_another_run(tmp_path, "bb.json")))
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert said in p.stderr and "savepoint" not in p.stderr, p.stderr


def test_an_engine_the_kernel_will_not_start_is_one_line_for_a_run(tmp_path):
    """An executable file that is no program here (Exec format error): one
    line naming it, not subprocess's OSError traceback."""
    bad = tmp_path / "ctxbench-engine"
    bad.write_bytes(b"\x7fELF garbage")
    bad.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "CTXBENCH_ENGINE_REPLAY"}
    p = subprocess.run([*ctxbench_cmd(), "run", "--quick", "--no-store", "-o", str(tmp_path / "o.json")],
                       capture_output=True, text=True, timeout=60, env=dict(env, CTXBENCH_ENGINE=str(bad)))
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.strip().splitlines() == [p.stderr.strip()] and "cannot be started" in p.stderr, p.stderr
