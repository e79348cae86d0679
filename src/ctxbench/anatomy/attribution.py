"""In-kernel attribution of a hand-off: the profiled rung's cpu-clock
samples (engine core/kprofile: kernel call chains, aggregated), symbolised
with /proc/kallsyms and grouped by what the kernel was doing.

A sample goes to the group of the first frame, from the leaf up, whose
function matches one of GROUPS; a mitigation leaf wins whatever called it
(a retpoline or return thunk is the mitigation's cost wherever it runs).
Without a PMU the samples come from a timer interrupt, so a region that
runs with interrupts off is seen where it turns them back on: schedule()'s
pick and switch together at finish_task_switch (one group), a wake-up at
its waker's irqrestore (IRQ_ON, WAKERS).
A sample in user mode is "user"; a chain that matches nothing is "other
kernel". A group's share of the parties' samples, times the measured
hand-off of the profiled rung, is its time per hand-off; its interval is
the share's binomial interval (Clopper-Pearson, scipy) times the same.

Physical sum check: with the CPU sampled as a whole, every nanosecond of
the switching windows is either in a sample period of a party or of
another task, so samples x period over the windows' total time (the
coverage) must be close to 1; what is missing (the sampling interrupt's own
handling, lost records) is shown as "not sampled". The sampling's own cost
is the profiled rung minus the plain thread rung, measured in the same
rounds."""
from __future__ import annotations

import bisect
import math
import re


KALLSYMS = "/proc/kallsyms"
USER, OTHER = "user", "other kernel"

# Group patterns on kernel function names (x86-64 and arm64, Linux 5.x-6.x).
GROUPS: tuple[tuple[str, str], ...] = (
    # indirect-branch and return-stack mitigations: thunks, barriers, RSB fill
    ("mitigation", r"^(__x86_indirect_(call_|jump_)?thunk|__x86_return_thunk|srso_|retbleed_|its_return_thunk|"
                   r"call_depth_return_thunk|__x86_return_skl|(entry_|zen_|srso_)?untrain_ret|entry_ibpb|write_ibpb|"
                   r"clear_bhb|__fill_rsb|fill_return_buffer|__speculation_ctrl_update|speculation_ctrl_update|"
                   r"x86_spec_ctrl|l1d_flush|mds_clear|x86_virt_spec_ctrl|__ibpb|indirect_branch_prediction_barrier)"),
    # the sampling itself: the timer interrupt that takes the sample
    ("sampling", r"^(perf_|__perf|cpu_clock_event|perf_swevent|__hrtimer_run|hrtimer_interrupt|"
                 r"__sysvec_apic_timer|sysvec_apic_timer|asm_sysvec_apic_timer|lapic_next|native_apic|x2apic_)"),
    # schedule(): picking the next task and switching to it, one region with
    # interrupts off (the rq lock), so a timer sample cannot split it
    ("schedule: pick and switch", r"^(__switch_to|switch_mm|context_switch|finish_task_switch|finish_lock_switch|"
                                  r"cpu_switch_to|load_new_mm|enter_lazy_tlb|switch_ldt|load_mm_cr4|"
                                  r"native_write_cr3|switch_fpu|fpu__|fpregs_|restore_fpregs|save_fpregs|os_xsave|"
                                  r"os_xrstor|xfd_|fpsimd_|sve_|mm_cid|membarrier_switch|x86_fsbase|save_fsgs|"
                                  r"load_TLS|schedule|__schedule|preempt_schedule|pick_next|pick_task|__pick|"
                                  r"pick_eevdf|put_prev|set_next|dequeue_|deactivate_task|update_curr|update_load|"
                                  r"update_cfs|__update_load|update_min_vruntime|reweight|place_entity|"
                                  r"update_rq_clock|sched_clock|psi_|rcu_note_context_switch|newidle_balance|"
                                  r"sched_balance|balance_fair|cpuacct_charge|__cgroup_account|cgroup_account|"
                                  r"account_|prepare_task_switch|__dequeue|update_entity|avg_vruntime|"
                                  r"entity_eligible|__calc_delta|hrtick|sched_core|raw_spin_rq_lock|_raw_spin_rq)"),
    # waking the other party: finding its run queue, enqueueing, preemption check
    ("wake-up", r"^(try_to_wake_up|ttwu_|wake_up_|__wake_up|wake_q|select_task_rq|select_idle|enqueue_|"
                r"activate_task|check_preempt|wakeup_preempt|resched_curr|autoremove_wake_function|"
                r"default_wake_function|pollwake|futex_wake_mark|sched_ttwu|__smp_call_single_queue)"),
    # the mechanism: pipe buffers, futex hash, file lookups, copies
    ("IPC", r"^(pipe_|anon_pipe|ksys_read|ksys_write|vfs_read|vfs_write|new_sync_|__fdget|fdget|__fget|fput|"
            r"futex_|__futex|do_futex|eventfd_|copy_page_to_iter|copy_page_from_iter|_copy_to_iter|"
            r"_copy_from_iter|copy_user|rep_movs|__check_object_size|mutex_|rw_verify_area|"
            r"security_file_permission|fsnotify|file_update_time|touch_atime|atime_needs_update|"
            r"__sb_start_write|generic_pipe|get_futex_key|hash_futex|__x64_sys_futex|__arm64_sys_futex)"),
    # entering and leaving the kernel
    ("entry/exit", r"^(entry_SYSCALL|do_syscall|syscall_exit|syscall_enter|__x64_sys_|x64_sys_call|"
                   r"exit_to_user_mode|syscall_trace|entry_SYSRETQ|el0_svc|el0t_64_sync|invoke_syscall|"
                   r"__arm64_sys_|ret_to_user|arch_exit_to_user_mode|irqentry_exit_to_user|"
                   r"__syscall_exit|syscall_return|do_el0_svc)"),
)
ORDER = [g for g, _ in GROUPS] + [USER, OTHER]
_COMPILED = [(g, re.compile(p)) for g, p in GROUPS]
# Without a PMU the sample is a timer interrupt, which cannot land where
# interrupts are off: the samples of an interrupts-off region land where it
# ends. finish_task_switch ends schedule()'s; an irqrestore called by a
# waker ends the wake-up's (the wait-queue lock and try_to_wake_up).
IRQ_ON = re.compile(r"^(_raw_spin_unlock_irq|__raw_spin_unlock_irq|raw_spin_rq_unlock_irq|arch_local_irq_enable|"
                    r"local_irq_enable|_raw_write_unlock_irq|_raw_read_unlock_irq)")
WAKERS = re.compile(r"^(anon_pipe_write|pipe_write|__wake_up|wake_up_|futex_wake|eventfd_write|try_to_wake_up|"
                    r"ttwu_|wake_q)")


class Symbols:
    """Kernel text symbols from kallsyms: address -> function name."""

    def __init__(self, text: str):
        addrs, names = [], []
        for line in text.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                try:
                    addrs.append(int(parts[0], 16))
                except ValueError:
                    continue
                names.append(parts[2])
        order = sorted(range(len(addrs)), key=addrs.__getitem__)
        self.addrs = [addrs[i] for i in order]
        self.names = [names[i] for i in order]
        self.hidden = bool(self.addrs) and not any(self.addrs)  # kptr_restrict: every address 0

    @classmethod
    def load(cls, engine, path: str = KALLSYMS) -> "Symbols":
        """The symbols of the kernel the command's engine (core/engine.Engine)
        ran on: this one's, or with --host, the host's (the addresses are
        that boot's)."""
        return cls(engine.host_text(path))

    def name(self, ip: int) -> str:
        i = bisect.bisect_right(self.addrs, ip) - 1
        return self.names[i] if i >= 0 else "?"


def group_of(names: list[str]) -> str:
    """The group of one kernel call chain (leaf first)."""
    if names:
        leaf_group = next((g for g, rx in _COMPILED if rx.match(names[0])), None)
        if leaf_group == "mitigation":
            return leaf_group
        if IRQ_ON.match(names[0]) and len(names) > 1 and WAKERS.match(names[1]):
            return "wake-up"
    for n in names:
        for g, rx in _COMPILED:
            if rx.match(n):
                return g
    return OTHER


def _interval(k: int, n: int) -> tuple[float, float]:
    from scipy.stats import binomtest  # late: start-up time
    if n <= 0:
        return math.nan, math.nan
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    return float(ci.low), float(ci.high)


def named_chains(profile: dict, symbols: Symbols | None = None, engine=None) -> dict:
    """The profile (a new one; `profile` is not changed) with every chain's
    addresses named (`functions`), at measurement time: kernel addresses
    move with every boot (KASLR), so a file read later, or on another
    machine, must carry the names, not only the addresses. A reason
    instead (`naming_error`) where they cannot be. Without `symbols`, those
    of the kernel `engine` ran on, read only when there are chains."""
    if not isinstance(profile, dict) or profile.get("error") or not profile.get("chains"):
        return profile
    symbols = symbols or Symbols.load(engine)
    if not symbols.addrs:
        return dict(profile, naming_error=f"{KALLSYMS} unreadable: kernel addresses cannot be named")
    if symbols.hidden:
        return dict(profile, naming_error=f"{KALLSYMS} shows every address as 0 (kernel.kptr_restrict): "
                                          "run as root to name them")
    return dict(profile, chains=[dict(c, functions=[symbols.name(int(x, 16)) for x in c.get("ips") or []])
                                 for c in profile["chains"]])


def attribute(profile: dict, handoff_ns: float, symbols: Symbols | None = None) -> dict:
    """Shares of the parties' samples by group, as time per hand-off. The
    chains' names are the ones recorded at measurement (named_chains); with
    `symbols`, unnamed chains are named now (same boot only)."""
    if not isinstance(profile, dict) or profile.get("error"):
        return {"error": (profile or {}).get("error") or "no profile in this result"}
    if profile.get("naming_error"):
        return {"error": profile["naming_error"]}
    chains = profile.get("chains") or []
    if any("functions" not in c for c in chains):
        if symbols is None:
            return {"error": "the call chains in this file were not named when they were measured"}
        if not symbols.addrs:
            return {"error": f"{KALLSYMS} unreadable: kernel addresses cannot be named"}
        if symbols.hidden:
            return {"error": f"{KALLSYMS} shows every address as 0 (kernel.kptr_restrict): run as root to name them"}
    counts = {g: 0 for g in ORDER}
    funcs: dict[str, int] = {}
    for c in chains:
        k = int(c.get("count") or 0)
        names = c.get("functions") or [symbols.name(int(x, 16)) for x in c.get("ips") or []]
        counts[group_of(names)] += k
        if names:
            funcs[names[0]] = funcs.get(names[0], 0) + k
    counts[USER] += int(profile.get("user_samples") or 0)
    n = int(profile.get("samples") or 0)
    groups = []
    for g in ORDER:
        share = counts[g] / n if n else math.nan
        lo, hi = _interval(counts[g], n)
        groups.append({"group": g, "samples": counts[g], "share": share, "share_ci95": [lo, hi],
                       "ns": share * handoff_ns, "ns_ci95": [lo * handoff_ns, hi * handoff_ns]})
    window = float(profile.get("window_ns") or 0)
    period = float(profile.get("period_ns") or 0)
    sampled = (n + int(profile.get("other_samples") or 0)) * period
    coverage = sampled / window if window > 0 else math.nan
    top = sorted(funcs.items(), key=lambda kv: -kv[1])[:10]
    return {"event": profile.get("event"), "scope": profile.get("scope"), "period_ns": period, "samples": n,
            "other_samples": int(profile.get("other_samples") or 0), "lost": int(profile.get("lost") or 0),
            "chains_dropped": int(profile.get("chains_dropped") or 0), "handoff_ns": handoff_ns,
            "groups": [g for g in groups if g["samples"]],
            "coverage": coverage,
            "not_sampled_ns": (1 - coverage) * handoff_ns if math.isfinite(coverage) else math.nan,
            "top_functions": [{"function": f, "samples": k, "share": k / n} for f, k in top] if n else []}
