"""ctxbench-rt-python: issue 24's Python harness (runtimes/PROTOCOL.md):
greenlet, asyncio on the default loop and on uvloop, threading with a
Condition; JSON lines on stdout. Run by the interpreter being measured
(the project's .venv python unless another is named)."""
import json
import os
import platform
import sys

import lightweight
import measure
from mechanisms import MECHANISMS

FAMILIES = ("greenlet", "asyncio-task", "uvloop-task", "thread")


class Options:
    mechanisms = ()
    placement = "pinned"
    groups, iterations, min_sample_us, warmup_ms = 3, 10, 2000, 200
    delays = (0,)
    spawn = park = 0


COUNTS = {"--groups": ("groups", 1, 1000), "--iterations": ("iterations", 1, 100000),
          "--min-sample-us": ("min_sample_us", 1, 1000000), "--warmup-ms": ("warmup_ms", 0, 60000),
          "--spawn": ("spawn", 0, 10**7), "--park": ("park", 0, 10**7)}


def fail(message):
    print(f"ctxbench-rt-python: {message}", file=sys.stderr)
    sys.exit(1)


def parse(argv):
    o = Options()
    if len(argv) % 2:
        fail(f"{argv[-1]} needs a value")
    for flag, value in zip(argv[::2], argv[1::2]):
        if flag == "--mechanisms":
            o.mechanisms = value.split(",")
            unknown = [m for m in o.mechanisms if m not in MECHANISMS]
            if unknown:
                fail(f"unknown mechanism {unknown[0]!r} (--list names them)")
        elif flag == "--delay-ns":  # one delay, or a few taken in turn (the known answer's interleaving)
            try:
                o.delays = tuple(int(v) for v in value.split(","))
            except ValueError:
                o.delays = ()
            if not 1 <= len(o.delays) <= 4 or not all(0 <= d <= 10**9 for d in o.delays) \
                    or len(set(o.delays)) != len(o.delays):
                fail(f"--delay-ns must be 1 to 4 distinct integers in [0, 1000000000], not {value!r}")
        elif flag == "--placement":
            if value not in ("pinned", "default"):
                fail("--placement must be pinned or default")
            o.placement = value
        elif flag in COUNTS:
            attr, lo, hi = COUNTS[flag]
            try:
                v = int(value)
            except ValueError:
                v = lo - 1
            if not lo <= v <= hi:
                fail(f"{flag} must be an integer in [{lo}, {hi}], not {value!r}")
            setattr(o, attr, v)
        else:
            fail(f"unknown argument {flag!r}")
    if not o.mechanisms:
        fail("--mechanisms names none")
    return o


def version_of(module):
    try:
        return __import__(module).__version__
    except ImportError:
        return None


def jit():
    """CPython's experimental JIT (3.13+ builds), else None."""
    j = getattr(sys, "_jit", None)
    return j.is_enabled() if j is not None and hasattr(j, "is_enabled") else None


def main(argv):
    if argv == ["--list"]:
        for name, m in MECHANISMS.items():
            print(json.dumps({"mechanism": name, "doc": m.doc}))
        return 0
    o = parse(argv)
    gil = getattr(sys, "_is_gil_enabled", None)
    flags = {"implementation": sys.implementation.name, "version": sys.version.replace("\n", " "),
             "executable": sys.executable, "greenlet": version_of("greenlet"), "uvloop": version_of("uvloop"),
             "gil": gil() if gil else True, "jit": jit(), "switchinterval_s": sys.getswitchinterval(),
             "optimize": sys.flags.optimize, "cpus": len(os.sched_getaffinity(0))}
    print(json.dumps({"tool": {"name": "ctxbench-rt-python", "version": os.environ.get("CTXBENCH_VERSION", "0")},
                      "runtime": {"name": "python", "version": platform.python_version(), "flags": flags}}),
          flush=True)
    # one event loop, one thread at a time: the workers of a placement are the CPUs it may use
    params = {"workers": 1}
    families = set()
    for name in o.mechanisms:
        m = MECHANISMS[name]
        if m.needs and version_of(m.needs) is None:
            print(json.dumps({"skipped": name, "why": f"{m.needs} is not installed in {sys.executable} "
                                                     "(`make runtimes` installs it)"}), flush=True)
            continue
        for record in measure.handoff(o, name, m, params):
            print(json.dumps(record), flush=True)
        families.add(m.family)
    for family in FAMILIES:
        if family in families and o.spawn:
            print(json.dumps(lightweight.spawn_record(o, family, params)), flush=True)
        if family in families and o.park:
            print(json.dumps(lightweight.park_record(o, family, params)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
