"""Known answer for the ring: the hidden test/ring/ ids are the plain ring
plus a spin of 5 µs of wall time per hand-off (engine/src/ring/ring.c,
core/clock.h spin_ns: a clock-based spin, so 5 µs on any CPU at any speed). Measured in
the same interleaved rounds as the plain ring, the paired difference per
hand-off (rounds.paired_difference, the arithmetic `ctxbench ring` uses) must give
the spin back within 10%: the spin is inside the timed ring and absent from
t_single, so the formula (t_ring - t_single)/(n*N) carries it whole; what
can move it is the clock reads ending the spin (tens of ns) and a host that
preempts the vCPU mid-spin (it lengthens that spin, then only that
round's difference; whole rounds are compared by their medians).

Only at N = 2. Above it the spin changes the scheduler's choices, not
only the time: a party that has just run 5 µs longer is preempted by the
wake-up it sends more or less often than in the plain ring, which moves
the hand-off's own cost. At N = 8 (4K footprint) the spin came back as
4.46 to 5.62 µs from one 24-round run to the next here, so N = 8 cannot
isolate the arithmetic; at N = 2 the two parties strictly alternate
whatever they do in between, and the spin came back as 5.06 to 5.32 µs.
24 rounds: with 6 the difference's standard error was 3-5% of the spin,
too close to the 10% being checked."""
import json

import pytest

from conftest import run_engine

from ctxbench import rounds
from ctxbench.core import model
from ctxbench.core.results import plain as builtins_of

pytestmark = pytest.mark.machine
SPIN_NS = 5000


def measure(kind: str, mech: str) -> dict:
    """The spin ring's paired difference per hand-off over the plain ring's,
    from one interleaved run (rounds.paired_difference)."""
    p = run_engine("run", f"ring/{kind}/{mech}", f"test/ring/{kind}/{mech}/spin5us", "--ring-points", "2:0",
                   "--interleave", "--groups", "24", "--iterations", "4", "--min-sample-us", "500",
                   "--settle-us", "500", "--warmup-ms", "50", "--json", timeout=240)
    assert p.returncode == 0, p.stderr
    res = [builtins_of(model.analyse(r)) for r in json.loads(p.stdout)["results"]]
    by = {r["id"].startswith("test/"): r for r in res}
    assert len(by) == 2
    spin, plain = by[True], by[False]
    assert spin["params"]["spin_ns"] == SPIN_NS and "spin_ns" not in plain["params"]
    return rounds.paired_difference(spin, plain)


@pytest.mark.parametrize("kind,mech", [("thread", "futex"), ("process", "pipe")])
def test_ring_recovers_a_known_spin_per_handoff(kind, mech):
    e = measure(kind, mech)
    if e["rounds"] < 12:  # a round whose every sample met other load has no median
        pytest.skip(f"only {e['rounds']} of 24 rounds kept a sample of both rings: too busy a host to check 10%")
    # whether the interval excludes 0 is the host's noise, not the arithmetic: make bench
    assert abs(e["estimate_ns"] / SPIN_NS - 1) <= 0.10, e
