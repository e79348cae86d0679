"""The ARM flow end to end, with qemu-user standing in for the board: the
static cross-built engines, their unit tests, a --quick suite written by the
engine alone, and the laptop's front end reading those files."""
import struct

import pytest

from arm_helpers import ARCHES, ELF_MACHINE, QUICK_ARGS, arm_engine, run_under_qemu
from conftest import ROOT, run_cli, run_engine
from test_engine_units import SKIPPED

from ctxbench.core import checks
from ctxbench.core import reader, results
from ctxbench.records import RECORDS

pytestmark = pytest.mark.cross

# Front-end commands run on each board's results file, as a user runs them
# on the laptop ({file}: this arch's file, {other}: the other arch's).
# Add a command here as one line, e.g. ["report", "{file}"] or
# ["compare", "{file}", "{other}"].
ANALYSE_COMMANDS: list[list[str]] = [
    ["report", "{file}", "-o", "{file}.html"],
    ["compare", "{file}", "{other}"],
]

UNITS = sorted(p.stem for p in (ROOT / "engine" / "tests").glob("test_*.c"))


@pytest.fixture(scope="module")
def board_files(tmp_path_factory):
    """One quick-suite results file per arch, written by the engine itself."""
    d = tmp_path_factory.mktemp("boards")
    out = {}
    for arch in ARCHES:
        f = d / f"{arch}.json"
        p = run_under_qemu(arch, arm_engine(arch), "run-suite", *QUICK_ARGS, "--json", "-o", str(f))
        assert p.returncode == 0, f"{arch}: {p.stderr}"
        out[arch] = f
    return out


@pytest.mark.parametrize("arch", ARCHES)
def test_cross_engine_is_static_elf_for_arch(arch):
    data = arm_engine(arch).read_bytes()
    assert data[:4] == b"\x7fELF"
    is64 = data[4] == 2
    (machine,) = struct.unpack_from("<H", data, 18)
    assert machine == ELF_MACHINE[arch]
    # static: no PT_INTERP (type 3) among the program headers
    if is64:
        phoff, = struct.unpack_from("<Q", data, 32)
        phentsize, phnum = struct.unpack_from("<HH", data, 54)
    else:
        phoff, = struct.unpack_from("<I", data, 28)
        phentsize, phnum = struct.unpack_from("<HH", data, 42)
    types = [struct.unpack_from("<I", data, phoff + i * phentsize)[0] for i in range(phnum)]
    assert 3 not in types, "dynamically linked: a board's minimal userland may lack the libraries"


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("name", UNITS)
def test_arm_engine_unit(arch, name):
    exe = ROOT / "build" / arch / "tests" / name
    assert exe.exists(), f"{exe} not built (make arm-unit-tests)"
    p = run_under_qemu(arch, exe, timeout=600)
    if p.returncode == SKIPPED:  # engine/tests/check.h: cannot run here, and says why
        why = [line for line in p.stdout.splitlines() if line.startswith("skip: ")]
        assert why, f"exit {SKIPPED} without a 'skip: ' line saying why:\n{p.stdout}{p.stderr}"
        pytest.skip(why[-1][len("skip: "):])
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.parametrize("arch", ARCHES)
def test_board_file_loads_with_samples_and_records(arch, board_files):
    doc = results.plain(reader.load(str(board_files[arch]), RECORDS))
    build = doc["tool"]["build"]
    assert build["arch"] == arch and build["static"] is True
    libs = build["libraries"]
    for name in ("zlib", "libcrypto"):
        assert name in libs
    if libs["zlib"] is None or libs["libcrypto"] is None:
        assert libs["note"], "a library left out of the ARM build must come with a note"
    env = doc["environment"]
    assert env["virtualization"]["emulated"] is True
    assert "qemu" in env["virtualization"]["emulation_evidence"]
    timers = env["timers"]
    srcs = timers["sources"]
    assert "clock_monotonic_raw" in srcs and not any(s.startswith("rdtsc") for s in srcs)
    if arch == "aarch64":
        assert "cntvct" in srcs and timers["cycle_counter"] == "cntvct" and timers["cntfrq_el0"] > 0
    else:
        assert "cntvct" not in srcs
        assert ("pmccntr" in srcs) == bool(timers["pmccntr_usable"]) and timers["pmccntr_probe"]
        assert timers["event_timer"] == ("pmccntr" if timers["pmccntr_usable"] else "clock_monotonic_raw")
    ids = [r["id"] for r in doc["results"]]
    assert sorted(i.split("/", 1)[1] for i in ids if i.startswith("timer/")) == sorted(srcs)
    assert any(i.startswith("kernel/") for i in ids)
    for r in doc["results"]:
        assert len(r["samples"]) == 2 * 3, r["id"]   # raw samples: groups x iterations
        assert r["summary"]["n"] > 0 or r["verification"]["dropped"], r["id"]


@pytest.mark.parametrize("arch", ARCHES)
def test_emulation_is_a_warning(arch, board_files):
    env = reader.load(str(board_files[arch]), RECORDS).environment
    found = [f for f in checks.environment_findings(env, busy={}) if f.topic == "emulated"]
    assert found and found[0].level == "warning"


def test_native_engine_not_flagged_emulated(engine_bin):
    import json
    env = json.loads(run_engine("env").stdout)["environment"]
    assert env["virtualization"]["emulated"] is False


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("cmd", ANALYSE_COMMANDS, ids=lambda c: c[0])
def test_laptop_reads_board_file(arch, cmd, board_files):
    other = next(a for a in ARCHES if a != arch)
    args = [a.format(file=board_files[arch], other=board_files[other]) for a in cmd]
    p = run_cli(*args)
    assert p.returncode == 0, p.stderr
