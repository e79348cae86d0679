"""The Go harness (runtimes/go, issue 24) measured through the front end:
its records keep the protocol in both placements, its user-level hand-offs
stay in user space and its OS-thread one goes through the kernel, and a
known delay comes back (tests/runtimes_helpers.py says the physics)."""
import pytest

import runtimes_helpers as rh

pytestmark = pytest.mark.machine
USER = {"channel", "gosched", "iter-pull"}
KERNEL = {"lockosthread"}


@pytest.fixture(scope="module")
def pinned():
    return rh.run("go", "pinned", rh.SMALL)


@pytest.mark.parametrize("placement", ["pinned", "default"])
def test_records_keep_the_protocol(placement, pinned):
    out = pinned if placement == "pinned" else rh.run("go", placement, rh.SMALL)
    rh.check_protocol("go", placement, *out)
    header = out[0]
    assert header["runtime"]["version"].startswith("go")
    assert header["runtime"]["flags"]["GOMAXPROCS"] == (1 if placement == "pinned" else 2)
    assert not out[2], "Go skips nothing"


def test_switches_per_handoff_pinned(pinned):
    rh.check_switches(pinned[1], USER, KERNEL)


def test_a_known_delay_comes_back():
    rh.check_known_answer(rh.run("go", "pinned", rh.KNOWN)[1], USER, KERNEL)
