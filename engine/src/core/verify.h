/* Switch and migration counts of one thread, read from /proc. */
#ifndef CTXBENCH_VERIFY_H
#define CTXBENCH_VERIFY_H
#include <stdint.h>
#include <sys/types.h>
#include "core/bench.h"

typedef struct party_counts {
    int64_t voluntary, involuntary, migrations; /* -1: not readable */
    /* CPU time the thread has run (its thread CPU clock, ns; -1: not
     * readable) and the clock when read: over a window, the wall time the
     * parties did not run is time the CPU gave to something else (a third
     * task, which their switch counts cannot see) */
    int64_t runtime_ns;
    int64_t at_ns;
} party_counts_t;

/* pid 0 / tid 0 mean the calling thread. */
int party_counts_read(pid_t pid, pid_t tid, party_counts_t *c);
/* after - before for each field (-1 if either side is unknown) */
party_counts_t party_counts_delta(const party_counts_t *before, const party_counts_t *after);
/* Add a party's delta into the sample's switch-run counts. */
void verify_add_switch(verify_counts_t *v, const party_counts_t *d);
void verify_add_single(verify_counts_t *v, const party_counts_t *d);
void verify_zero(verify_counts_t *v);
/* Which /proc source the counts come from ("sched", "status"). */
const char *verify_source(void);
pid_t gettid_(void);
#endif
