"""The tool that wrote a document and the environment it measured in, as
the engine writes them (engine/src/env/env.c, build_libs.c, tlb_info.c:
`ctxbench-engine env`). The environment's sections are open records: the
engine's members differ by architecture (an ARM host's cntfrq_el0, an
x86's cpuid family) and grow with it; the members readers use are typed
(schema.ENVIRONMENT declares them by path) and the rest kept in `extra`."""
from __future__ import annotations

from typing import Union

from msgspec import UNSET, UnsetType

from ctxbench.core.results.base import Closed, Json, Open

OptStr = Union[str, None, UnsetType]
OptBool = Union[bool, None, UnsetType]
OptInt = Union[int, None, UnsetType]


class Build(Open, frozen=True):
    compiler: OptStr = UNSET
    flags: OptStr = UNSET
    arch: OptStr = UNSET
    hwloc: OptStr = UNSET
    static: OptBool = UNSET
    libraries: Union[dict[str, Json], UnsetType] = UNSET


class Tool(Closed, frozen=True):
    """The program that wrote the document (the engine's name and version)."""
    name: OptStr = UNSET
    version: OptStr = UNSET
    build: Union[Build, UnsetType] = UNSET


class Cpu(Open, frozen=True):
    model: OptStr = UNSET
    vendor: OptStr = UNSET
    microcode: OptStr = UNSET
    flags_of_interest: Union[list[str], UnsetType] = UNSET
    online: OptInt = UNSET
    online_list: OptStr = UNSET


class Topology(Open, frozen=True):
    source: OptStr = UNSET
    packages: OptInt = UNSET
    cores: OptInt = UNSET
    pus: OptInt = UNSET
    threads_per_core: OptInt = UNSET
    smt_siblings: Union[list[list[int]], UnsetType] = UNSET
    caches: Union[list[dict[str, Json]], UnsetType] = UNSET


class Tlb(Open, frozen=True):
    page_size: OptInt = UNSET
    source: OptStr = UNSET
    dtlb: Union[list[dict[str, Json]], UnsetType] = UNSET


class Kernel(Open, frozen=True):
    release: OptStr = UNSET
    version: OptStr = UNSET
    machine: OptStr = UNSET
    preempt: OptStr = UNSET
    preempt_banner: OptStr = UNSET
    cmdline: OptStr = UNSET
    isolated: OptStr = UNSET
    nohz_full: OptStr = UNSET
    clocksource: OptStr = UNSET
    sched_rt_runtime_us: OptStr = UNSET
    sched_rt_period_us: OptStr = UNSET


class Frequency(Open, frozen=True):
    governors: Union[dict[str, Union[str, None]], UnsetType] = UNSET
    driver: OptStr = UNSET
    intel_no_turbo: OptStr = UNSET
    boost: OptStr = UNSET


class Idle(Open, frozen=True):
    driver: OptStr = UNSET
    governor: OptStr = UNSET
    states: Union[list[dict[str, Json]], UnsetType] = UNSET
    no_idle_requested: OptBool = UNSET
    cpu_dma_latency_held_at_0: OptBool = UNSET
    no_idle_error: OptStr = UNSET


class Virtualization(Open, frozen=True):
    is_vm: OptBool = UNSET
    hypervisor_vendor: OptStr = UNSET
    dmi_product_name: OptStr = UNSET
    emulated: OptBool = UNSET
    emulator: OptStr = UNSET
    emulation_evidence: OptStr = UNSET


class Perf(Open, frozen=True):
    hardware_counters: OptBool = UNSET
    hardware_error: OptStr = UNSET
    software_counters: OptBool = UNSET
    software_error: OptStr = UNSET


class Process(Open, frozen=True):
    root: OptBool = UNSET
    sched_fifo_allowed: OptBool = UNSET
    sched_fifo_error: OptStr = UNSET
    mlockall: OptBool = UNSET
    mlockall_error: OptStr = UNSET
    allowed_cpus: Union[list[int], UnsetType] = UNSET
    # what the front end checks a run's memory against (core/memory.py), for a host it cannot read
    mem_available: Union[int, None, UnsetType] = UNSET
    rlimit_as: Union[int, None, UnsetType] = UNSET
    cgroup_memory_room: Union[int, None, UnsetType] = UNSET


class Timers(Open, frozen=True):
    cycle_counter: OptStr = UNSET
    cycle_hz: Union[float, None, UnsetType] = UNSET
    cntfrq_el0: Union[float, None, UnsetType] = UNSET
    cntfrq_vs_calibrated: Union[float, None, UnsetType] = UNSET
    pmccntr_usable: OptBool = UNSET
    pmccntr_probe: OptStr = UNSET


class Environment(Open, frozen=True):
    """The host the document was measured on. A reader asks it through
    core/model.Environment (paths declared in schema.ENVIRONMENT); every
    section may be absent (a document another tool wrote, an old engine)."""
    hostname: OptStr = UNSET
    cpu: Union[Cpu, UnsetType] = UNSET
    topology: Union[Topology, UnsetType] = UNSET
    tlb: Union[Tlb, UnsetType] = UNSET
    kernel: Union[Kernel, UnsetType] = UNSET
    frequency: Union[Frequency, UnsetType] = UNSET
    idle: Union[Idle, UnsetType] = UNSET
    mitigations: Union[dict[str, Union[str, None]], UnsetType] = UNSET
    virtualization: Union[Virtualization, UnsetType] = UNSET
    perf: Union[Perf, UnsetType] = UNSET
    process: Union[Process, UnsetType] = UNSET
    timers: Union[Timers, UnsetType] = UNSET
