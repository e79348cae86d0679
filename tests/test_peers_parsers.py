"""Each peer's output parser on recorded outputs of the versions here
(tests/fixtures/peers/: perf 6.1.187, stress-ng 0.15.06, rt-tests'
hackbench 2.4, sysbench 1.0.20, lmbench 3's lat_ctx built from
intel/lmbench 941a0dc), and on output it does not know: one PeerOutput,
never a wrong number."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxbench.peers import catalogue, parsers

HERE = Path(__file__).parent / "fixtures" / "peers"


def text(name: str) -> str:
    return (HERE / name).read_text()


def test_perf_sched_pipe_processes_and_threads():
    p = parsers.perf_sched_pipe(text("perf-6.1-sched-pipe-process.txt"))
    assert p.per_op_ns == pytest.approx(5236.35) and p.ops == 20000 and p.extra["tasks"] == "processes"
    t = parsers.perf_sched_pipe(text("perf-6.1-sched-pipe-thread.txt"))
    assert t.per_op_ns == pytest.approx(5112.8) and t.ops == 20000 and t.extra["tasks"] == "threads"


def test_stress_ng_switch_and_context():
    s = parsers.stress_switch(text("stress-ng-0.15.06-switch.txt"))
    assert s.per_op_ns == pytest.approx(4008.04) and s.ops == 50000 and s.extra["method"] == "pipe"
    c = parsers.stress_context(text("stress-ng-0.15.06-context.txt"))
    # its metric is calls per second; one bogo op is 1000 swapcontext calls (stress-context.c)
    assert c.per_op_ns == pytest.approx(1e9 / 3937001.28) and c.ops == 200_000


def test_hackbench_counts_every_message():
    h = parsers.hackbench(text("hackbench-2.4-process.txt"))
    # 2 groups of 20 senders, each sending 100 messages to each of its 20 receivers
    assert h.ops == 2 * 20 * 20 * 100
    assert h.per_op_ns == pytest.approx(0.065e9 / 80_000)
    assert h.extra["mode"] == "process"
    assert parsers.hackbench(text("hackbench-2.4-thread.txt")).extra["mode"] == "threaded"


def test_sysbench_threads_per_yield():
    s = parsers.sysbench_threads(text("sysbench-1.0.20-threads.txt"), 1000)
    assert s.ops == 200 * 1000 and s.per_op_ns == pytest.approx(0.3697e9 / 200_000)
    assert s.extra["threads"] == 2


@pytest.mark.parametrize("name, per_switch, overhead", [
    ("lmbench-3-941a0dc-lat_ctx-pinned.txt", 2510.0, 690.0),
    ("lmbench-3-941a0dc-lat_ctx-unpinned.txt", 19850.0, 890.0)])
def test_lat_ctx(name, per_switch, overhead):
    p = parsers.lat_ctx(text(name), 2)
    assert p.per_op_ns == pytest.approx(per_switch) and p.extra["overhead_ns"] == pytest.approx(overhead)
    assert p.ops == 0  # lmbench chooses its own count and does not print it


def test_ctx_clock_reads_the_engines_minimum():
    doc = {"results": [{"id": "peer/ctx-clock", "samples": [91.0, 90.1, 95.0], "params": {"n": 1000, "timer": "rdtscp"},
                        "raw": {"min_ticks": [236, 234, 247], "ticks_per_ns": [2.597, 2.597, 2.6]}}]}
    p = parsers.ctx_clock(json.dumps(doc))
    assert p.per_op_ns == 90.1 and p.extra["min_ticks"] == 234 and p.ops == 3000


def _all_parsers():
    return [(peer.key, peer.parse) for peer in catalogue.PEERS]


@pytest.mark.parametrize("key, parse", _all_parsers())
@pytest.mark.parametrize("output", ["", "garbage\n", "Segmentation fault\n", "\x1b[31m nan usecs/op\n"])
def test_unexpected_output_is_one_error(key, parse, output):
    with pytest.raises(parsers.PeerOutput):
        parse(output)


@pytest.mark.parametrize("name, parse", [
    ("perf-6.1-sched-pipe-process.txt", parsers.perf_sched_pipe),
    ("stress-ng-0.15.06-switch.txt", parsers.stress_switch),
    ("stress-ng-0.15.06-context.txt", parsers.stress_context),
    ("hackbench-2.4-process.txt", parsers.hackbench),
    ("sysbench-1.0.20-threads.txt", lambda t: parsers.sysbench_threads(t, 1000))])
def test_a_cut_output_is_refused(name, parse):
    """An output cut before its number (a killed peer) is refused, not read as zero."""
    full = text(name)
    number_line = max(i for i, ln in enumerate(full.splitlines()) if any(
        k in ln for k in ("usecs/op", "nanosecs", "calls per sec", "Time:", "total time")))
    with pytest.raises(parsers.PeerOutput):
        parse("\n".join(full.splitlines()[:number_line]))


def test_zero_is_not_a_number_of_a_peer():
    with pytest.raises(parsers.PeerOutput):
        parsers.perf_sched_pipe("# Executed 10 pipe operations between two processes\n   0.000000 usecs/op\n")


@pytest.mark.parametrize("output", [
    "# Executed 9" + "0" * 400 + " pipe operations between two processes\n  5.0 usecs/op\n",   # no float has it
    "# Executed 10 pipe operations between two processes\n  1e308 usecs/op\n",               # infinite in ns
    "# Executed 10 pipe operations between two processes\n  1" + "0" * 5000 + " usecs/op\n"])
def test_numbers_no_peer_could_print_are_refused(output):
    with pytest.raises(parsers.PeerOutput):
        parsers.perf_sched_pipe(output)


def test_context_rate_too_small_is_refused():
    with pytest.raises(parsers.PeerOutput):
        parsers.stress_context("stress-ng: metrc: [1] context 1 0.1 0.1 0.1 1 1 1 1\n"
                               "stress-ng: metrc: [1] context 1e-300 swapcontext calls per sec\n")


def test_a_flood_of_blank_lines_is_read_in_linear_time():
    """A pattern whose blanks spanned lines took 28 s on 60,000 newlines."""
    import time
    text = "# Executed 10 pipe operations between two processes\n" + "\n" * 200_000
    t0 = time.monotonic()
    for parse in (parsers.perf_sched_pipe, parsers.stress_switch, parsers.stress_context, parsers.hackbench,
                  lambda t: parsers.sysbench_threads(t, 1000), lambda t: parsers.lat_ctx(t, 2)):
        with pytest.raises(parsers.PeerOutput):
            parse(text)
    assert time.monotonic() - t0 < 5  # linear: tens of ms; quadratic: hours
