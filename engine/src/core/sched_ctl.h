/* Pinning, scheduling class and the real-time safety limits. */
#ifndef CTXBENCH_SCHED_CTL_H
#define CTXBENCH_SCHED_CTL_H
#include <stddef.h>
#include "core/bench.h"

void sched_ctl_init(void); /* remember the allowed CPUs before pinning */
int cpu_allowed(int cpu);  /* in this process's affinity mask */
int cpu_online_count(void);
int default_cpu(void);     /* the highest-numbered allowed CPU */
int default_cpu2(int cpu); /* another allowed CPU, or -1 */
/* Pin the calling thread; 0 on success, else errno (message in err). */
int pin_self(int cpu, char *err, size_t len);
/* Set the calling thread's policy; 0 on success, else errno. */
int set_policy_self(policy_t p, int prio, char *err, size_t len);
const char *policy_name(policy_t p);
/* Kernel-enforced watchdog for real-time threads: a thread that runs at
 * SCHED_FIFO for `ms` of CPU time without blocking gets SIGXCPU (then
 * SIGKILL at twice that). Applies to this process and its children. */
void rt_cpu_limit(unsigned ms);
#endif
