"""Environment checks with advice, pyperf-style. The engine records facts;
this module judges them. Each finding: level (ok | note | warning), its
topic (the code), what was found, a hint on how to fix it, and for a
finding about one result its subject (the result) and data (the numbers
its text was made from), by which findings are grouped, never by text."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, asdict, field
from types import MappingProxyType


@dataclass
class Finding:
    level: str      # ok | note | warning
    topic: str      # the code: what kind of finding
    what: str
    hint: str = ""
    subject: str = ""                         # the result it is about ("" for the machine)
    data: dict = field(default_factory=dict)  # the numbers in `what`

    def as_dict(self) -> dict:
        return asdict(self)


def cpu_busy(seconds: float = 0.2) -> dict[int, float]:
    """Busy fraction of each CPU over `seconds`, from /proc/stat."""
    def snap():
        out = {}
        try:
            with open("/proc/stat") as f:
                for line in f:
                    if line.startswith("cpu") and line[3:4].isdigit():
                        p = line.split()
                        vals = list(map(int, p[1:]))
                        idle = vals[3] + (vals[4] if len(vals) > 4 else 0)
                        out[int(p[0][3:])] = (sum(vals), idle)
        except OSError:
            pass
        return out
    a = snap()
    time.sleep(seconds)
    b = snap()
    res = {}
    for c in b:
        if c in a:
            tot = b[c][0] - a[c][0]
            idle = b[c][1] - a[c][1]
            res[c] = (tot - idle) / tot if tot > 0 else 0.0
    return res


def environment_findings(env, cpus: list[int] | None = None, busy: dict[int, float] | None = None) -> list[Finding]:
    """Findings about the machine, from its environment record (a dict or
    a model.Environment): each topic's check in turn (as pyperf's system
    checks: one function per topic)."""
    from ctxbench.core.model import Environment
    e = Environment(env)
    return [*_cpu(e), *_frequency(e), *_platform(e), *_smt(e, cpus, busy), *_kernel(e), *_scheduling(e),
            *_idle(e), *_perf(e)]


def _cpu(e) -> list[Finding]:
    f = [Finding("ok", "cpu", f"{e.cpu_model or 'unknown CPU'}, {e.cpus_online} CPUs online, "
                 f"{_or(e.cores, '?')} cores, {_or(e.threads_per_core, '?')} thread(s) per core"
                 f" (topology from {e.topology_source})")]
    if e.caches:
        desc = ", ".join(f"L{c['level']}{'d' if c['type']=='data' else 'i' if c['type']=='instruction' else ''} "
                         f"{_size(c['size'])}" for c in e.caches)
        f.append(Finding("ok", "caches", desc))
    return f


def _frequency(e) -> list[Finding]:
    govs = e.governors
    vals = {v for v in govs.values()}
    if not govs or vals == {None}:
        f = [Finding("note", "governor", "frequency governor not readable (no cpufreq: typical in a VM)",
                     "on bare metal: cpupower frequency-set -g performance")]
    elif vals != {"performance"}:
        f = [Finding("warning", "governor", f"frequency governor is {', '.join(sorted(str(v) for v in vals))}, "
                     "not performance", "sudo cpupower frequency-set -g performance")]
    else:
        f = [Finding("ok", "governor", "frequency governor: performance")]
    if e.intel_no_turbo == "0" or e.boost == "1":
        f.append(Finding("warning", "turbo", "turbo boost is enabled: the clock depends on temperature and load",
                         "echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo (or cpufreq/boost = 0)"))
    return f


def _platform(e) -> list[Finding]:
    """Emulation, the ARM timers, a virtual machine."""
    f = []
    if e.emulated:
        f.append(Finding("warning", "emulated", f"measured under user-mode emulation ({e.emulator}): "
                         "these timings measure the emulator, not the CPU; the CPU and cache records describe "
                         f"the host ({e.emulation_evidence})",
                         "use such a file only to check the pipeline; measure on the board itself"))
    f.extend(_arm_timer_findings(e))
    if e.is_vm:
        f.append(Finding("warning", "vm", f"running in a virtual machine ({e.hypervisor or e.dmi_product_name or 'hypervisor detected'})",
                         "absolute numbers include virtualisation costs; compare ratios measured in one run, "
                         "or measure on bare metal"))
    return f


def _smt(e, cpus: list[int] | None, busy: dict[int, float] | None) -> list[Finding]:
    tpc = e.threads_per_core or 1
    if tpc <= 1:
        return [Finding("ok", "smt", "no SMT siblings")]
    f = []
    busy = busy if busy is not None else cpu_busy()
    for group in e.smt_siblings:
        if cpus and not set(group) & set(cpus):
            continue
        others = [c for c in group if not cpus or c not in cpus]
        hot = [c for c in others if busy.get(c, 0) > 0.05]
        if hot:
            f.append(Finding("warning", "smt", f"SMT sibling CPU {hot} of the measured CPU is busy "
                             f"({max(busy[c] for c in hot):.0%})",
                             "stop the load there, or take the sibling offline: "
                             f"echo 0 | sudo tee /sys/devices/system/cpu/cpu{hot[0]}/online"))
    f.append(Finding("note", "smt", f"SMT is on ({tpc} threads per core)",
                     "for the cleanest numbers: echo off | sudo tee /sys/devices/system/cpu/smt/control"))
    return f


def _kernel(e) -> list[Finding]:
    """Preemption, the clock source, isolation, mitigations."""
    f = [Finding("ok" if e.preempt or e.preempt_banner else "note", "kernel",
                 f"Linux {e.kernel_release}, preemption: {e.preempt or e.preempt_banner}")]
    cs = e.clocksource
    if cs and cs not in ("tsc", "arch_sys_counter"):
        f.append(Finding("warning", "clocksource", f"clock source is {cs}: clock_gettime may be a slow system call",
                         "use the tsc clocksource where the CPU has an invariant TSC (tsc=reliable)"))
    else:
        f.append(Finding("ok", "clocksource", f"clock source: {cs}"))
    iso, nohz = e.isolated or "", e.nohz_full or ""
    if not iso.strip():
        f.append(Finding("note", "isolation", "no isolated CPUs (isolcpus) and "
                         + ("no nohz_full" if not nohz.strip() or nohz.strip() == "(null)" else f"nohz_full={nohz}"),
                         "boot with isolcpus=N nohz_full=N rcu_nocbs=N and measure with --cpu N"))
    else:
        f.append(Finding("ok", "isolation", f"isolated CPUs: {iso}; nohz_full: {nohz or 'none'}"))
    mit = e.mitigations
    active = sorted(k for k, v in mit.items() if v and v.startswith("Mitigation"))
    vuln = sorted(k for k, v in mit.items() if v and v.startswith("Vulnerable"))
    if mit:
        f.append(Finding("note", "mitigations", f"mitigations in force: {', '.join(active) or 'none'}"
                         + (f"; vulnerable: {', '.join(vuln)}" if vuln else ""),
                         "they add to every kernel entry and switch; compare kernels with the same setting"))
    return f


def _scheduling(e) -> list[Finding]:
    """SCHED_FIFO, RT throttling, mlockall."""
    if not e.sched_fifo_allowed:
        f = [Finding("warning", "sched_fifo", f"SCHED_FIFO not available: {e.sched_fifo_error}",
                     "run as root, or allow it: ulimit -r 99 / 'rtprio' in /etc/security/limits.conf")]
    else:
        f = [Finding("ok", "sched_fifo", "SCHED_FIFO available (the /fifo ids use it)")]
    rt = e.sched_rt_runtime_us
    if rt and rt != "-1":
        f.append(Finding("note", "rt_throttling", f"RT throttling on: real-time tasks get {int(rt)/1e4:.0f}% of "
                         f"each {int(e.sched_rt_period_us or 1000000)/1e6:g} s period",
                         "ctxbench relies on it as a second safety net; leave it on"))
    if e.mlockall is False and e.mlockall_error:
        f.append(Finding("warning", "mlock", e.mlockall_error, "run as root or raise ulimit -l"))
    return f


def _idle(e) -> list[Finding]:
    drv, states = e.idle_driver, e.idle_states
    if e.idle_held:
        return [Finding("ok", "idle", f"idle driver {drv}; /dev/cpu_dma_latency held at 0 during the run")]
    return [Finding("note", "idle", f"idle driver: {drv or 'none'}"
                    + (f", {len(states)} idle states" if states else "")
                    + ("; an idle vCPU halts in the hypervisor" if e.is_vm else ""),
                    "cross-CPU wake-up latency includes leaving idle; --no-idle holds "
                    "/dev/cpu_dma_latency at 0 during the run (as cyclictest does)")]


def _perf(e) -> list[Finding]:
    if e.hardware_counters:
        return [Finding("ok", "perf", "hardware perf counters available")]
    return [Finding("note", "perf", f"hardware perf counters unavailable ({e.hardware_error})"
                    + ("; software events work" if e.software_counters else ""),
                    "on bare metal: sysctl kernel.perf_event_paranoid=1; in a VM the hypervisor must expose the PMU")]


def _or(x, default):
    return default if x is None else x


def _arm_timer_findings(e) -> list[Finding]:
    """Which timer an ARM engine used (cntvct and its rate, or the PMU
    cycle counter / CLOCK_MONOTONIC_RAW on ARMv7)."""
    out: list[Finding] = []
    if e.cntfrq_el0 is not None:
        dev = e.cntfrq_vs_calibrated
        out.append(Finding("ok", "timer", f"cntvct_el0 at {e.cntfrq_el0 / 1e6:g} MHz (cntfrq_el0)"
                           + (f", calibrated rate differs by {dev:+.2e}" if isinstance(dev, (int, float)) else "")))
        if isinstance(dev, (int, float)) and abs(dev) > 1e-3:
            out.append(Finding("warning", "timer", f"cntvct's calibrated rate differs from cntfrq_el0 by {dev:+.1%}",
                               "the firmware may program cntfrq_el0 wrongly: cycle figures use the calibrated rate"))
    elif e.pmccntr_usable is not None:
        if e.pmccntr_usable:
            out.append(Finding("ok", "timer", "PMU cycle counter (PMCCNTR) readable from user space; it follows "
                               "the core clock, so fix the frequency"))
        else:
            out.append(Finding("note", "timer", f"PMU cycle counter not usable ({e.pmccntr_probe}); "
                               "short events are timed with CLOCK_MONOTONIC_RAW",
                               "a kernel module or perf setting that sets PMUSERENR.EN makes PMCCNTR readable"))
    return out


def result_findings(result: dict) -> list[Finding]:
    """Warnings about one analysed result."""
    from ctxbench.core import verification
    from ctxbench.core.model import Result
    r = Result(result)
    out: list[Finding] = []
    p = r.params
    if p.pinned is False:
        out.append(Finding("warning", "pinning", f"{r.id}: not pinned as asked",
                           "check the CPU mask (taskset -p $$) and --cpu", subject=r.id))
    if p.policy_requested == "SCHED_FIFO" and p.policy != "SCHED_FIFO":
        out.append(Finding("warning", "sched_fifo", f"{r.id}: measured under {p.policy}, not SCHED_FIFO",
                           "run as root or grant rtprio", subject=r.id, data={"policy": p.policy}))
    v = r.verification
    # disturbed (other load: extra switches, another task's time or presence on the CPU); older files: dropped
    disturbed = v.get("disturbed", v.get("dropped") or 0)
    if disturbed:
        why = ", ".join(k for k in sorted(v.get("reasons") or {}) if k not in verification.FAILURES)
        out.append(Finding("warning", "involuntary", f"{r.id}: other load on the CPU in {disturbed} samples "
                           f"(dropped; {why or 'see verification.reasons'})",
                           "another task shared the CPU: isolate it (isolcpus, cset shield) or stop background load",
                           subject=r.id, data={"samples": disturbed}))
    cv = r.summary.cv
    if math.isfinite(cv) and abs(cv) > 0.10 and r.quantity in ("switch", "wakeup"):
        out.append(Finding("warning", "cv", f"{r.id}: CV {cv:.0%} is high",
                           "more samples (--full), a quieter machine, or an isolated CPU", subject=r.id,
                           data={"cv": cv}))
    return out


# Per-result findings of one topic are printed as one line listing the
# results: the headline, and what each result adds from its data.
_GROUPS = MappingProxyType({
    "pinning": ("not pinned as asked", lambda d: ""),
    "sched_fifo": ("not measured under SCHED_FIFO", lambda d: ""),
    "involuntary": ("samples that met other load on the CPU (extra switches, another task's time or presence; "
                    "dropped)", lambda d: f" ({d['samples']} sample{'s' if d['samples'] != 1 else ''})"),
    "cv": ("CV above 10%", lambda d: f" ({d['cv']:.0%})"),
})


def grouped(findings: list[Finding]) -> list[Finding]:
    """The same findings with each per-result topic folded into one:
    "<headline> in N results: id (detail), ...", keeping the first one's
    place and hint. A topic seen once is left as it is."""
    def key(f):
        return (f.topic, f.level, f.hint) if f.subject and f.topic in _GROUPS else None
    same: dict = {}
    for f in findings:
        if key(f):
            same.setdefault(key(f), []).append(f)
    out: list[Finding] = []
    for f in findings:
        group = same.get(key(f)) if key(f) else None
        if not group or len(group) < 2:
            out.append(f)
        elif group[0] is f:
            headline, detail = _GROUPS[f.topic]
            items = [g.subject + detail(g.data) for g in group]
            out.append(Finding(f.level, f.topic, f"{headline} in {len(group)} results: " + ", ".join(items), f.hint,
                               data={"results": [{"subject": g.subject, **g.data} for g in group]}))
    return out


def _size(b) -> str:
    if not b:
        return "?"
    for unit, k in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= k and b % k == 0:
            return f"{b // k} {unit}"
    return f"{b} B"
