/* Where the parties' time goes in the kernel: the cpu-clock software event
 * (it works in a VM without a PMU) sampled with kernel call chains, read
 * from its ring buffer between timed runs and aggregated here (identical
 * chains counted once). Sampled on the measured CPU as a whole where
 * allowed: it sees the switch path itself, which per-thread events cannot
 * (they are switched out with their task), and adds no work to each
 * switch; samples of other tasks are counted apart. Else per thread, and
 * the profile says so. The anatomy's in-kernel
 * attribution: the front end symbolises the addresses with /proc/kallsyms
 * and groups them. Written by hand because no library reads the perf ring
 * buffer without bringing the whole perf tool. */
#ifndef CTXBENCH_KPROFILE_H
#define CTXBENCH_KPROFILE_H
#include "core/json.h"
#include <stdint.h>
#include <sys/types.h>

#define KP_MAX_THREADS 2
#define KP_DEPTH       24   /* kernel frames kept per chain */
#define KP_CHAINS      4096 /* distinct chains kept per id; more are counted as dropped */

typedef struct kp_chain {
    uint64_t count;
    uint32_t depth;
    uint64_t ip[KP_DEPTH];
} kp_chain_t;

/* What one id's samples add up to over all its groups. */
typedef struct kp_profile {
    uint64_t period_ns;
    uint64_t samples, user_samples, lost, dropped, handoffs, window_ns;
    uint64_t other_samples; /* cpu scope: samples of any other task (idle included) */
    int scope_cpu;          /* 1: the CPU sampled as a whole; 0: each party thread */
    pid_t tid[KP_MAX_THREADS];
    kp_chain_t *chain; /* open addressing, KP_CHAINS slots */
    size_t nchains;
    char error[200]; /* why there is no profile ("" if there is) */
} kp_profile_t;

/* One group's events (one per party thread). */
typedef struct kp_events {
    int n;
    int fd[KP_MAX_THREADS];
    void *ring[KP_MAX_THREADS];
} kp_events_t;

/* Open cpu-clock sampling, disabled: on `cpu` as a whole, else on each of
 * the parties' `tids` (real tids). 0 on success; else -1 and p->error says
 * why (the id still measures). */
int kp_open(kp_events_t *e, kp_profile_t *p, int cpu, const pid_t *tids, int n);
void kp_enable(kp_events_t *e);
void kp_disable(kp_events_t *e);
/* Move what the ring buffers hold into `p` (after kp_disable). */
void kp_drain(kp_events_t *e, kp_profile_t *p);
void kp_close(kp_events_t *e);
/* "profile": {...} */
void kp_write(const kp_profile_t *p, json_t *j);
#endif
