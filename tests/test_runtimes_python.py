"""The Python harness (runtimes/python, issue 24) measured through the
front end, under the project's .venv python: its records keep the protocol
in both placements, greenlet and asyncio hand-offs stay in user space and
the threading one goes through the kernel, and a known delay comes back
(tests/runtimes_helpers.py says the physics). greenlet and uvloop are
skipped by the harness itself, with its reason, where they are not
installed (`make runtimes` installs them)."""
import pytest

import runtimes_helpers as rh

pytestmark = pytest.mark.machine
USER = {"greenlet", "asyncio", "uvloop"}
KERNEL = {"threading"}


@pytest.fixture(scope="module")
def pinned():
    return rh.run("python", "pinned", rh.SMALL)


@pytest.mark.parametrize("placement", ["pinned", "default"])
def test_records_keep_the_protocol(placement, pinned):
    out = pinned if placement == "pinned" else rh.run("python", placement, rh.SMALL)
    rh.check_protocol("python", placement, *out)
    flags = out[0]["runtime"]["flags"]
    assert flags["implementation"] and "greenlet" in flags and "uvloop" in flags
    for s in out[2]:
        assert s["mechanism"] in ("greenlet", "uvloop") and "not installed" in s["why"]


def test_switches_per_handoff_pinned(pinned):
    rh.check_switches(pinned[1], USER, KERNEL)


def test_a_known_delay_comes_back():
    rh.check_known_answer(rh.run("python", "pinned", rh.KNOWN)[1], USER, KERNEL)
