"""Known answer for irq (issue 11, item 6): in the hidden --burn-us mode the
signal handler spins d us of wall time (clock-based: d on any CPU). That is
direct cost and nothing else, so `ctxbench irq` must give it back as D (D
with the burn minus D without, within 10% of d), the rate slope must match
D within the same 10% of d (the runs pay it as the gap loop sees it), and
the exit status says the run's own verdict (1 exactly when a self-check or
the control failed). Whether the self-checks pass is a property of the host
that minute, not of the code: `make bench` reports it
(bench/test_verdicts.py)."""
import json
import math

import pytest
from conftest import run_cli

pytestmark = pytest.mark.machine

# The known cost must dwarf how much D itself moves between two runs seconds
# apart on a shared host, or a 10% test checks the host and not the method:
# here plain D read 9.4-9.8 us in most runs and 13.5 us in one, and a fresh-clone
# CI read a 50 us burn back as 55.7 us (plain 9.75, burnt 65.4: the whole burnt
# run slower). With 150 us, 10% is 15 us, over twice the largest such move.
# The rates leave at least twice the burn per period (the command requires it).
BURN_US = 150
ARGS = ["--task", "crc", "--rates", "500,1500,3000", "--rounds", "4", "--scale", "0.3"]


def assert_status_is_the_verdict(p, sec: dict) -> None:
    """irq exits 1 exactly when the file's self-check or control failed, and
    says which; whether they fail is the host's that minute, not the code's."""
    failed = bool(sec["self_check_failed"]) or sec["control"]["ok"] is False
    assert p.returncode == int(failed), (p.returncode, p.stderr, sec["self_check_failed"], sec["control"])
    # the tasks' rows (the spin's, the control's, say its own failure on the same words)
    tasks_said = any("SELF-CHECK FAILED" in line and not line.startswith("spin ") for line in p.stdout.splitlines())
    assert tasks_said == bool(sec["self_check_failed"]), p.stdout


_measured: dict[int, dict] = {}  # one run per burn for the module's tests (a measuring test shares its runs)


def measure(tmp_path, burn: int) -> dict:
    if burn in _measured:
        return _measured[burn]
    out = tmp_path / f"irq-{burn}.json"
    p = run_cli("irq", *ARGS, "--burn-us", str(burn), "-o", str(out), timeout=300)
    sec = json.loads(out.read_text())["irq"]
    assert_status_is_the_verdict(p, sec)
    _measured[burn] = sec
    return sec


def test_a_known_handler_cost_comes_back_as_d(tmp_path, engine_bin):
    plain, burnt = measure(tmp_path, 0), measure(tmp_path, BURN_US)
    d = BURN_US * 1000.0
    # 10% of 150 us is 15 us: D is a mean of gaps whose spread within a run is
    # well under a microsecond; a loaded machine's preemptions are cut (gaps
    # after a switch of the thread) or taken out of the runs (run delay)
    got = burnt["D"]["estimate_ns"] - plain["D"]["estimate_ns"]
    resolves = math.hypot(plain["D"]["mde_ns"], burnt["D"]["mde_ns"])
    if not resolves <= 0.1 * d:
        # a fresh-clone CI while other tests loaded the guest: the plain run's D was
        # 137 us [-48, +321], MDE 190 us; the two runs cannot tell 10% of d from nothing
        pytest.skip(f"the two runs resolve D to {resolves / 1000:.0f} us on this host now, more than the 10% "
                    f"of d ({0.1 * d / 1000:.0f} us) they are checked to")
    assert abs(got - d) <= 0.1 * d, (got, plain["D"], burnt["D"])
    # the runs pay the burn as D says: the spin loop's rate slope minus D (no
    # indirect cost in registers) is within the same 10% of d. Not "its
    # interval contains 0": a 95% interval misses 5% of the time by design,
    # and a fresh-clone CI saw +1.16 us [0.83, 1.63] (2% of d) with a 50 us
    # handler, a small real difference a test of overlap calls a failure
    assert burnt["burn_ns"] == d and plain["burn_ns"] == 0
    per = burnt["D_check"]["per_interrupt"]
    if per["mde_ns"] > 0.1 * d:
        # a fresh-clone CI on a loaded host: -18 us [-76, +40], MDE 78 us; the slope
        # of this run cannot tell 10% of d from nothing, so it tests nothing here
        pytest.skip(f"the spin's rate slope resolves {per['mde_ns'] / 1000:.0f} us on this host now, more than "
                    f"the 10% of d ({0.1 * d / 1000:.0f} us) it is checked to")
    assert abs(per["estimate_ns"]) <= 0.1 * d, per


def test_the_chunks_put_a_known_handler_cost_in_d_not_in_the_task(tmp_path):
    """The chunk design (irq/chunked.py) on the same kind of runs: the
    handler's spin lands in the chunk the signal landed in, so D as the
    chunks see it (the spin's excess per signal) rises by the burn, within
    10% of d, and the task's per-interrupt indirect cost (its excess minus
    the spin's) and the part of it in the chunks after the signal's do not
    (each within 10% of d of the plain run's: the spin is wall time, the
    same 150 µs in every chunk it lands in)."""
    plain, burnt = (measure(tmp_path, b)["chunks"] for b in (0, BURN_US))
    d = BURN_US * 1000.0
    assert abs(burnt["D"]["estimate_ns"] - plain["D"]["estimate_ns"] - d) <= 0.1 * d, (plain["D"], burnt["D"])
    for part in ("per_interrupt", "after_signal_chunk"):
        a, b = plain["tasks"]["crc"][part], burnt["tasks"]["crc"][part]
        assert abs(b["estimate_ns"] - a["estimate_ns"]) <= 0.1 * d, (part, a, b)
    pts = burnt["spin_curve"]["points"]  # D taken from the signal's chunk: the control is flat
    assert all(abs(p["excess_ns"]) <= 0.1 * d for p in pts), pts
