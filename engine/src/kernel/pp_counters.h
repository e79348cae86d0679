/* Event counts of both ping-pong parties for the sweep (--counters).
 *
 * Counting is done only in the first sample after each setup, which the
 * harness discards (group 0: its first adaptive-n sample; later groups:
 * their warm-up sample), so that the PMU's own save/restore at every
 * switch never enters a timed sample. Counts are summed over the run and
 * written as the result's "counters" member by sc_write. The state is the
 * job's own (bench_run_t.job_state), so interleaved jobs never mix counts. */
#ifndef CTXBENCH_PP_COUNTERS_H
#define CTXBENCH_PP_COUNTERS_H
#include "core/bench.h"
#include "core/perf_counters.h"
#include <sys/types.h>

enum { SC_SINGLE = 0, SC_SWITCH = 1 };

/* Open the counters of A (the caller) and B (b_tid) if --counters. */
void sc_open(bench_run_t *r, pid_t b_tid);
void sc_close(bench_run_t *r);
/* Does this sample count? (the first after sc_open) */
int sc_armed(bench_run_t *r);
void sc_begin(bench_run_t *r, int phase);
void sc_end(bench_run_t *r, int phase);
void sc_sample_done(bench_run_t *r);
/* Count these events instead of pc_sweep_events (tests: software events,
 * where the hardware ones are refused). Before sc_open. */
void sc_use_events(bench_run_t *r, const pc_event_t *ev, int nev);
/* The result's "counters" member; resets the accumulated counts. */
void sc_write(bench_run_t *r, json_t *j);
#endif
