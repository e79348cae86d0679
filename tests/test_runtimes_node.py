"""The Node harness (runtimes/node, issue 24) measured through the front
end: its records keep the protocol in both placements, the Promise and
MessageChannel hand-offs stay on the event loop's thread (the loop never
sleeps: a message is always pending) and the worker one goes through the
kernel, and a known delay comes back (tests/runtimes_helpers.py says the
physics)."""
import pytest

import runtimes_helpers as rh

pytestmark = pytest.mark.machine
USER = {"promise", "messagechannel"}
KERNEL = {"worker-atomics"}


@pytest.fixture(scope="module")
def pinned():
    return rh.run("node", "pinned", rh.SMALL)


@pytest.mark.parametrize("placement", ["pinned", "default"])
def test_records_keep_the_protocol(placement, pinned):
    out = pinned if placement == "pinned" else rh.run("node", placement, rh.SMALL)
    rh.check_protocol("node", placement, *out)
    flags = out[0]["runtime"]["flags"]
    assert out[0]["runtime"]["version"].startswith("v") and flags["v8"] and "--expose-gc" in flags["execArgv"]
    assert not out[2], "Node skips nothing"


def test_switches_per_handoff_pinned(pinned):
    rh.check_switches(pinned[1], USER, KERNEL)


def test_a_known_delay_comes_back():
    rh.check_known_answer(rh.run("node", "pinned", rh.KNOWN)[1], USER, KERNEL)
