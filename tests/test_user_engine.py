"""user/* ids: structure of their results (formula, raw components,
verification expecting zero kernel switches), --size/--stride honoured."""
import json
import statistics

import pytest

from conftest import run_engine

pytestmark = pytest.mark.machine

IDS = ["user/asm/same-thread", "user/ucontext/same-thread", "user/green/yield", "user/green/channel",
       "user/asm-minimal/same-thread"]


def _run(*args):
    p = run_engine("run", *args, "--groups", "2", "--iterations", "3", "--n", "2000", "--json", timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["results"]


@pytest.mark.parametrize("bid", IDS)
def test_user_result_structure(bid):
    (r,) = _run(bid)
    assert r["quantity"] == "switch"
    assert r["params"]["kind"] == "user" and r["params"]["placement"] == "same-thread"
    assert r["params"]["mechanism"] and r["params"]["resume"]
    assert set(r["raw"]) == {"t_single_ns", "t_switch_ns"}
    n = r["params"]["n"]
    for v, s, w in zip(r["samples"], r["raw"]["t_single_ns"], r["raw"]["t_switch_ns"]):
        assert v == pytest.approx((w / 2 - s) / n, rel=1e-9, abs=1e-9)
    assert set(r["verify"]["expected_voluntary"]) == {0}
    assert len(r["verify"]["voluntary"]) == len(r["samples"]) == 6


def test_user_size_stride_recorded_and_work_done():
    (small,) = _run("user/asm/same-thread")
    (big,) = _run("user/asm/same-thread", "--size", "65536", "--stride", "64")
    assert big["params"]["size"] == 65536 and big["params"]["stride"] == 64
    # the traversal is really done between messages: t_single grows with it, by
    # 1024 lines a message, hundreds of us a sample against tens without; medians,
    # as a sample another task preempted lasts a time slice longer
    assert statistics.median(big["raw"]["t_single_ns"]) > statistics.median(small["raw"]["t_single_ns"])


def test_user_ids_in_default_and_quick_lists():
    p = run_engine("list", "--json")
    assert p.returncode == 0, p.stderr
    ls = {b["id"]: b for b in json.loads(p.stdout)}
    for bid in IDS[:4]:
        assert ls[bid]["default"], bid
    assert ls["user/asm/same-thread"]["quick"] and ls["user/ucontext/same-thread"]["quick"]
    assert "user/asm-minimal/same-thread" not in ls  # hidden
