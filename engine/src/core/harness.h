/* The one timing harness every benchmark runs under. */
#ifndef CTXBENCH_HARNESS_H
#define CTXBENCH_HARNESS_H
#include "core/bench.h"
#include "core/json.h"

/* A benchmark is run in steps, so that several can be interleaved group by
 * group (each one's samples then span the whole run, not one stretch of it):
 * prepare (setup, warm-up, choose n), then groups 0..groups-1 in any order
 * relative to other jobs, then emit its result object. A failing step prints
 * one error line; the job then measures nothing more and emits nothing (-1).
 * cli/run.c's run_batch drives them (one job alone: start to finish). */
typedef struct harness_job harness_job_t;
harness_job_t *harness_prepare(const bench_t *b, const run_opts_t *opt);
int harness_group(harness_job_t *h, int group);
int harness_emit(harness_job_t *h, json_t *j);
/* Why a job failed ("" if it did not; a NULL job failed for lack of memory). */
const char *harness_error(const harness_job_t *h);
void harness_free(harness_job_t *h);
/* The engine_summary of a job's samples (its human output); -1 if it failed. */
typedef struct engine_summary {
    size_t n;
    double min, median, mean;
} engine_summary_t;
int harness_summary(const harness_job_t *h, engine_summary_t *out);
/* Default options (counts, sample length, CPUs). */
void run_opts_default(run_opts_t *o);
/* Warm the CPU to its steady clock once per process (Lopes and Maity's
 * WarmCPU). */
void harness_warmup(const run_opts_t *opt);
#endif
