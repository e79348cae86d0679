"""The schema of every result kind, in one place.

The engine writes results; the front end's analyses (tasks, irq, sweep)
derive more. Every member a reader uses is named here for the kind of
result that carries it, each param with its type. The results model
(model.py) reads only through these declarations, and tests/test_schema.py
runs the engine's every id and checks its output against them (its
`problems`): a renamed key fails a test, not a figure.

A declaration lists what a result of that kind *must* have. Members that
only some results carry (counters, the sweep's `indirect` and
`round_cost_s`: what each of a point's rounds took, `sample_n`: its n per
sample, calibrated anew in every round) are named as optional, so that
readers still find them here; their types are the records' (a feature's
own members are declared in its package: core/results/registry.py).

Why this is not derived from the records (core/results): a record says
what any file may hold, and so it is liberal: one Result for every kind
(it carries no tag to tell kinds apart, only an id prefix or `parts`),
every environment fact optional and nullable (older engines, other
architectures, other tools' files). This module says what the engine of
this checkout *must* write, per kind: which members a kind requires and
which facts are never null. It is the engine's contract, checked against
its real output (tests/test_schema.py); the records are the file's. The
two meet in one place: each param's type (PARAM_TYPES), which the Result
record enforces on reading. What both would say is said once: the types of
the members a kind names, and the commands (core/results.Records.commands),
are the records'.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

NUM = (int, float)
INT = (int,)
STR = (str,)
BOOL = (bool,)
LIST = (list,)
DICT = (dict,)
OPT_STR = (str, type(None))
OPT_NUM = (int, float, type(None))
OPT_INT = (int, type(None))


@dataclass(frozen=True)
class Kind:
    name: str
    ids: tuple[str, ...]                 # id prefixes of this kind (the longest match wins)
    doc: str
    members: tuple[str, ...] = ()                   # required top-level members (typed by the records)
    params: dict = field(default_factory=dict)      # required params: types
    raw: tuple[str, ...] = ()                       # required raw arrays
    verify: bool = False                            # carries per-sample switch counts
    optional: tuple[str, ...] = ()                  # members some results carry (typed by the records)
    derived: bool = False                           # built by the front end, not the engine


# What every engine result has (harness.c: harness_emit).
ENGINE_MEMBERS = ("id", "quantity", "unit", "doc", "params", "samples", "group", "raw", "warnings", "engine_summary",
                  "timing",
                  # the core-clock probe's readings per group (core/clock_probe.h; files before issue 32 lack it)
                  "clock_probe")
ENGINE_PARAMS = MappingProxyType({"cpu": INT, "groups": INT, "iterations": INT, "n": INT, "pinned": BOOL,
                                  "policy": STR, "policy_requested": STR})
# What analyse() adds to every analysed result (cycles: core/cycles.py).
ANALYSED = ("summary", "verification", "cycles")
# The per-sample switch counts (verify.c), judged by core/verification.py.
VERIFY_ARRAYS = ("expected_voluntary", "voluntary", "involuntary", "migrations",
                 "single_voluntary", "single_involuntary", "single_migrations")
# What a result the front end writes has (runtimes, peers, userbench), and a
# derived one (tasks' and irq's points, from their runs).
FRONT_END_MEMBERS = ("id", "quantity", "unit", "params", "samples", "warnings")
DERIVED_MEMBERS = (*FRONT_END_MEMBERS, "summary", "parts")
# A ping-pong's params (pingpong.c, user_pp.c): what the run table, the
# figures and compare read.
SWITCH_PARAMS = MappingProxyType({**ENGINE_PARAMS, "placement": STR, "mechanism": STR, "kind": STR, "size": INT,
                                  "stride": INT, "t_single": STR, "formula": STR})

KINDS: tuple[Kind, ...] = (
    Kind("timer", ("timer/",), "overhead of reading a timer",
         ENGINE_MEMBERS, {**ENGINE_PARAMS, "source": STR, "resolution_ns": NUM}, ("min_ns",)),
    Kind("baseline", ("baseline/", "reference/", "peer/"), "fixed work: nop, call, syscall, the speed reference, "
         "a peer's method (peer/ctx-clock)",
         ENGINE_MEMBERS, ENGINE_PARAMS),
    Kind("switch", ("kernel/", "user/"), "direct cost of a switch (ping-pong minus single party)",
         ENGINE_MEMBERS, SWITCH_PARAMS, ("t_single_ns", "t_switch_ns"), verify=True,
         optional=("counters", "indirect", "round_cost_s", "sample_n", "settle")),
    Kind("selftest", ("test/",), "hidden known-answer benchmarks (an injected cost)",
         ENGINE_MEMBERS, ENGINE_PARAMS, ("t_single_ns", "t_switch_ns"), verify=True,
         optional=("indirect", "round_cost_s", "sample_n")),
    Kind("ring", ("ring/", "test/ring/"), "a token passed around N parties on one CPU (test/ring/: with a "
         "known spin per hand-off)",
         ENGINE_MEMBERS, {**ENGINE_PARAMS, "placement": STR, "mechanism": STR, "kind": STR, "parties": INT,
                          "footprint": INT}, ("t_ring_ns", "t_single_ns"), verify=True,
         # settle: engine --settle-us, per group; above_pingpong: ctxbench ring (ring/analysis.py)
         optional=("settle", "above_pingpong")),
    Kind("tasks-run", ("tasks/",), "a task pair run with n switches (the engine's samples)",
         ENGINE_MEMBERS, {**ENGINE_PARAMS, "pair": STR, "task_a": STR, "task_b": STR, "scale": NUM},
         ("t_total_ns", "t_task_a_ns", "t_task_b_ns", "n"), verify=True,
         optional=("chunks",)),  # files before issue 45 lack it
    Kind("irq-direct", ("irq/direct",), "D: the direct cost of one timer signal",
         ENGINE_MEMBERS, {**ENGINE_PARAMS, "rate_hz": INT}, ("d_ns", "interrupts")),
    Kind("irq-run", ("irq/",), "a task with and without timer signals at a rate",
         ENGINE_MEMBERS, {**ENGINE_PARAMS, "task": STR, "rate_hz": INT, "scale": NUM},
         ("rate_hz", "r_task_ns", "r_prime_ns", "interrupts", "overruns", "d_ns", "waited_ns", "waited_prime_ns"),
         optional=("chunks",)),  # files before issue 45 lack it
    Kind("noise", ("noise/",), "gaps seen by a timer-reading loop",
         (*ENGINE_MEMBERS, "noise"), {**ENGINE_PARAMS, "noise_cpu": INT},
         ("gaps", "gap_total_ns", "longest_ns", "threshold_ns", "window_ns")),
    # derived by the front end
    Kind("tasks-point", ("tasks/",), "R', C and I of a pair at n switches (tasks/analysis.py)",
         DERIVED_MEMBERS, {"pair": STR, "n": INT}, derived=True),
    Kind("irq-point", ("irq/",), "R_task, R' and I of a task at a rate (irq/analysis.py)",
         DERIVED_MEMBERS, {"task": STR, "rate_hz": INT}, derived=True,
         optional=("chunks",)),  # its runs' chunk records (irq/chunked.py), since issue 45
    # written by userbench from the Boost.Context helper's lines, not by the engine
    Kind("runtime", ("runtimes/",), "a language runtime's hand-off, spawn or memory per thread, from its "
         "harness (ctxbench runtimes; runtimes/PROTOCOL.md)",
         FRONT_END_MEMBERS, {"runtime": STR, "mechanism": STR, "placement": STR},
         optional=("group", "raw", "verify", "warmup", "jfr", "kernel", "resolution")),
    Kind("peer", ("peers/",), "another tool's number (perf bench, stress-ng, ...) in ctxbench's unit, beside "
         "ctxbench's matching part (ctxbench peers; peers/catalogue.py)",
         (*FRONT_END_MEMBERS, "group", "raw"), {"peer": STR, "placement": STR},
         ("per_op_ns", "ops", "wall_s", "voluntary", "involuntary", "match_ns", "predicted_ns"),
         optional=("comparison",), derived=True),
    Kind("boost", ("boost/",), "Boost.Context's fiber switch, same method (ctxbench userbench)",
         FRONT_END_MEMBERS, {"kind": STR, "placement": STR, "mechanism": STR}, ("t_single_ns", "t_switch_ns")),
)
BY_NAME = MappingProxyType({k.name: k for k in KINDS})

# Environment facts the readers use, by path (env.c). Optional ones are
# absent on some machines (ARM timers, a kernel without cpufreq).
ENVIRONMENT = MappingProxyType({
    "hostname": STR,
    "cpu.model": OPT_STR, "cpu.online": INT,
    "topology.cores": INT, "topology.threads_per_core": INT, "topology.source": STR,
    "topology.smt_siblings": LIST, "topology.caches": LIST,
    "tlb.page_size": INT, "tlb.dtlb": LIST,
    "kernel.release": STR, "kernel.version": OPT_STR, "kernel.cmdline": OPT_STR,
    "kernel.clocksource": OPT_STR, "kernel.preempt": OPT_STR, "kernel.preempt_banner": OPT_STR,
    "kernel.isolated": OPT_STR, "kernel.nohz_full": OPT_STR,
    "kernel.sched_rt_runtime_us": OPT_STR, "kernel.sched_rt_period_us": OPT_STR,
    "frequency.governors": DICT, "frequency.intel_no_turbo": OPT_STR, "frequency.boost": OPT_STR,
    "idle.driver": OPT_STR, "idle.states": LIST, "idle.cpu_dma_latency_held_at_0": BOOL,
    "mitigations": DICT,
    "virtualization.is_vm": BOOL, "virtualization.hypervisor_vendor": OPT_STR,
    "virtualization.dmi_product_name": OPT_STR, "virtualization.emulated": BOOL,
    "virtualization.emulator": OPT_STR, "virtualization.emulation_evidence": OPT_STR,
    "perf.hardware_counters": BOOL, "perf.software_counters": BOOL, "perf.hardware_error": OPT_STR,
    "process.sched_fifo_allowed": BOOL, "process.sched_fifo_error": OPT_STR, "process.mlockall": BOOL,
    "timers.cycle_counter": OPT_STR, "timers.cycle_hz": OPT_NUM,
})
ENVIRONMENT_OPTIONAL = MappingProxyType({
    "process.mlockall_error": OPT_STR, "cpu.microcode": OPT_STR, "idle.no_idle_error": OPT_STR,
    "cpu.flags_of_interest": LIST,  # x86: the flags a reader uses (anatomy: pcid)
    "timers.cntfrq_el0": NUM, "timers.cntfrq_vs_calibrated": OPT_NUM,
    "timers.pmccntr_usable": BOOL, "timers.pmccntr_probe": OPT_STR,
    # for --host (core/memory.py): older files and recordings lack them
    "kernel.machine": STR,  # uname -m: a fleet host's architecture
    "process.allowed_cpus": LIST, "process.mem_available": OPT_INT, "process.rlimit_as": OPT_INT,
    "process.cgroup_memory_room": OPT_INT})


def kind_of(result: dict) -> Kind | None:
    """The kind a result is, or None for an id no kind claims.

    Derived results are told apart by what they carry (`parts`); the rest
    by their id's prefix, the longest that matches."""
    rid = str(result.get("id", ""))
    if result.get("parts") is not None:
        derived = [k for k in KINDS if k.derived and any(rid.startswith(p) for p in k.ids)]
        p = result.get("params") if isinstance(result.get("params"), dict) else {}
        for k in derived:
            if all(name in p for name in k.params):
                return k
    best = None
    for k in KINDS:
        if k.derived:
            continue
        for p in k.ids:
            if rid.startswith(p) and (best is None or len(p) > best[0]):
                best = (len(p), k)
    return best[1] if best else None


def type_name(types: tuple) -> str:
    return " or ".join("null" if t is type(None) else t.__name__ for t in types)


def type_of(v) -> str:
    """A JSON value's type as a results file's reader would name it."""
    return "null" if v is None else type(v).__name__


def fits(v, types: tuple) -> bool:
    if isinstance(v, bool) and bool not in types:
        return False
    return isinstance(v, types)


# The type of every param any kind declares, and of the few others readers
# use (second CPUs): a reader checks every one a file holds against it, so a
# param of the wrong type is one line at the boundary, not a traceback in a
# figure. The kinds agree on each name's type (tests/test_schema.py).
PARAM_TYPES = MappingProxyType({**{name: types for k in KINDS for name, types in k.params.items()},
                                "cpu_b": INT, "pair_cpu": INT, "irq_cpu": INT, "window_ms": INT})


@dataclass(frozen=True)
class Pattern:
    regex: str   # what the whole string matches (re.fullmatch; the schema's "pattern", anchored)
    what: str    # what it is, for the reader's line


# Params whose text has a form readers split: a task pair is two tasks
# joined by '+' (core/workloads.pairs), the figures and tables split it.
PARAM_PATTERNS = MappingProxyType({"pair": Pattern(r"[^+]+\+[^+]+", "two tasks joined by '+'")})
# JSON Schema's name of each type a declaration uses.
_JSON_TYPES = MappingProxyType({int: "integer", float: "number", str: "string", bool: "boolean", type(None): "null",
                                list: "array", dict: "object"})


def json_type(types: tuple) -> dict:
    """A declaration's types as JSON Schema, as strict as fits(): a bool is
    no int there either (JSON Schema's boolean is not an integer), a string
    of digits no number. int with float is "number". JSON Schema cannot
    tell 1.0 from 1 (both are integers to it): the reader refuses 1.0 for
    an int, the schema cannot."""
    names = list(dict.fromkeys(_JSON_TYPES[t] for t in types))
    if "integer" in names and "number" in names:
        names.remove("integer")
    return {"type": names[0] if len(names) == 1 else names}


def params_json_schema() -> dict:
    """The published schema of a result's `params` (tools/results_schema.py,
    through core/results.json_schema): each name of PARAM_TYPES with its
    type, any other name allowed (params differ by kind)."""
    props = {name: json_type(types) for name, types in sorted(PARAM_TYPES.items())}
    for name, p in PARAM_PATTERNS.items():
        props[name]["pattern"] = f"^(?:{p.regex})$"
    return {"type": "object", "properties": props, "additionalProperties": True}


# A derived result's parts are statistics records (core/results.Stats),
# except these, which may be a plain number (irq's I as a share of R_task is
# one since issue 32's analysis; tasks' and older irq files' are records).
NUMBER_PARTS = ("I_pct",)
