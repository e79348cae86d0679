/* Hardware (or software) event counts of one thread over a window, through
 * perf_event_open: used by the sweep to record L1-dcache, L1-icache and
 * dTLB load misses and instructions per party for the single and the
 * switching runs (docs/method.md#working-set-sweep; Chen et al.,
 * Figures 4 and 6-11).
 *
 * A counter set is one perf event group for one thread (tid 0: the caller;
 * another tid: a party the caller may observe). Where the kernel or the
 * hypervisor refuses an event, the set is unavailable and says why once. */
#ifndef CTXBENCH_PERF_COUNTERS_H
#define CTXBENCH_PERF_COUNTERS_H
#include <stdint.h>
#include <sys/types.h>

#define PC_MAX_EVENTS 6

typedef struct pc_event {
    const char *name; /* e.g. "l1d_load_misses" */
    uint32_t type;    /* PERF_TYPE_* */
    uint64_t config;
} pc_event_t;

typedef struct pc_set {
    int nev;
    const pc_event_t *ev;
    int fd[PC_MAX_EVENTS]; /* fd[0] is the group leader; -1: closed */
    int err;               /* errno of the first refusal, 0 if open */
    const char *err_event; /* which event was refused */
} pc_set_t;

/* The sweep's events: instructions first (the denominator), then misses. */
extern const pc_event_t pc_sweep_events[];
extern const int pc_sweep_nevents;

/* Open `nev` events for thread `tid` (0: the caller), counting user and
 * kernel. Returns 0, or -errno (the set is then closed; err says why). */
int pc_open(pc_set_t *s, const pc_event_t *ev, int nev, pid_t tid);
void pc_close(pc_set_t *s);
int pc_reset_enable(pc_set_t *s);
int pc_disable(pc_set_t *s);
/* Read the counts (scaled when multiplexed). 0 on success. */
int pc_read(pc_set_t *s, uint64_t out[PC_MAX_EVENTS]);
#endif
