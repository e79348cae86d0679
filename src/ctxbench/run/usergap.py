"""User-level vs kernel-level switching: the ratios the table and
`ctxbench userbench` print (all from measured medians, nothing assumed)."""
from __future__ import annotations

from ctxbench.core.model import median_of
from ctxbench.stats.derived import ratio

# Kernel same-CPU ids compared against the user-level asm switch, best first.
KERNEL_REFS = ["kernel/thread/futex/same-cpu", "kernel/thread/pipe/same-cpu", "kernel/process/pipe/same-cpu"]
USER_REF = "user/asm/same-thread"


def gap_lines(results: list[dict]) -> list[str]:
    """One line per kernel reference measured in the same run."""
    u = median_of(results, USER_REF)
    out = []
    for k in KERNEL_REFS:
        x = ratio(median_of(results, k), u)
        if x is not None:
            out.append(f"  {k} costs {x:.0f}x {USER_REF} (medians, same CPU, this run)")
    uc = ratio(median_of(results, "user/ucontext/same-thread"), u)
    if uc is not None:
        out.append(f"  user/ucontext/same-thread costs {uc:.1f}x {USER_REF} "
                   "(swapcontext makes a rt_sigprocmask system call per switch)")
    return out
