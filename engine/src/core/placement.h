/* Where a group's stacks and shared words land in memory, drawn afresh per
 * group.
 *
 * Addresses decide cache-set and 4K-aliasing conflicts (a futex word, two
 * stacks at the same offset in their pages). With one placement per engine
 * process, some ids' medians moved by 2-9% from one run to the next on a
 * KVM guest (kernel/thread/futex, user/asm): an effect of the execution
 * that a bootstrap over the groups of one run cannot see. With a placement
 * per group it becomes group-to-group variance: the interval covers it and
 * the median averages over it. */
#ifndef CTXBENCH_PLACEMENT_H
#define CTXBENCH_PLACEMENT_H
#include <stddef.h>

#define PLACEMENT_SPAN 4096u /* one page: every offset within it, in lines */
#define PLACEMENT_LINE 64u

/* A random multiple of PLACEMENT_LINE in [0, PLACEMENT_SPAN). */
size_t placement_offset(void);
#endif
