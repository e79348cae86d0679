"""A fake runtime harness for tests/test_runtimes_protocol.py: speaks
runtimes/PROTOCOL.md with made-up numbers, or misbehaves as
FAKE_RT_MODE says (hang, hang with a child, fail, a malformed record, a
skipped mechanism). FAKE_RT_NAME is the runtime it speaks as ("fake";
tests/fixtures/runtimes-root makes it the python runtime for the CLI's
flow tests). FAKE_RT_PIDS names a file it writes its pid (and its
child's) to, so a test can see that nothing outlived the run."""
import json
import os
import subprocess
import sys
import time

MODE = os.environ.get("FAKE_RT_MODE", "good")
NAME = os.environ.get("FAKE_RT_NAME", "fake")


def arg(flag, default=None):
    return sys.argv[sys.argv.index(flag) + 1] if flag in sys.argv else default


def result(mech, placement, n=4):
    totals = [1000.0 * (i + 1) for i in range(n)]
    handoffs = [10] * n
    return {"id": f"runtimes/{NAME}/{mech}/{placement}", "quantity": "handoff", "unit": "ns", "doc": "made up",
            "params": {"runtime": NAME, "mechanism": mech, "placement": placement, "n": 5,
                       "delay_ns": int(arg("--delay-ns", 0)), "workers": 1},
            "samples": [t / h for t, h in zip(totals, handoffs)], "group": [i // 2 for i in range(n)],
            "raw": {"total_ns": totals, "handoffs": handoffs},
            "verify": {"voluntary": [0] * n, "involuntary": [1] * n, "source": "made up"},
            "warmup": {"ms": 1, "method": "none"}, "warnings": []}


def main():
    if "--list" in sys.argv:
        print(json.dumps({"mechanism": "a", "doc": "first"}))
        print(json.dumps({"mechanism": "b", "doc": "second"}))
        return 0
    pids = os.environ.get("FAKE_RT_PIDS")
    child = None
    if MODE == "hang-with-child":  # a grandchild in the same group, as a runtime's helper process would be
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    if pids:
        with open(pids, "w") as f:
            f.write(f"{os.getpid()} {child.pid if child else ''} {os.getppid()}\n")
    placement = arg("--placement")
    print(json.dumps({"tool": {"name": "ctxbench-rt-fake", "version": os.environ.get("CTXBENCH_VERSION", "0")},
                      "runtime": {"name": NAME, "version": "1.0",
                                  "flags": {"affinity": sorted(os.sched_getaffinity(0)),
                                            "env": os.environ.get("FAKE_WORKERS", "")}}}), flush=True)
    if MODE.startswith("hang"):
        for _ in range(6000):  # bounded: 600 s, far beyond any test's watchdog
            time.sleep(0.1)
        return 0
    if MODE == "fail":
        print("ctxbench-rt-fake: the toolchain fell over", file=sys.stderr)
        return 1
    for mech in arg("--mechanisms").split(","):
        if MODE == "skip" and mech == "b":
            print(json.dumps({"skipped": "b", "why": "b is not installed"}))
            continue
        rec = result(mech, placement)
        if MODE == "not-json" and mech == "b":
            print("{half a record")
            continue
        if MODE == "bad-samples" and mech == "b":
            rec["samples"][1] = "fast"
        if MODE == "short-group" and mech == "b":
            rec["group"] = rec["group"][:-1]
        if MODE == "wrong-placement" and mech == "b":
            rec["params"]["placement"] = "elsewhere"
        if MODE == "silent" and mech == "b":
            continue
        print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
