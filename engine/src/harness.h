/* The one timing harness every benchmark runs under. */
#ifndef CTXBENCH_HARNESS_H
#define CTXBENCH_HARNESS_H
#include "bench.h"
#include "json.h"

/* Run `b` with `opt` and write its result object to `j`. Returns 0, or
 * nonzero after printing one error line (the result is then not written). */
int harness_run(const bench_t *b, const run_opts_t *opt, json_t *j);
/* Default options (counts, sample length, CPUs). */
void run_opts_default(run_opts_t *o);
/* Warm the CPU to its steady clock once per process (seed 003 WarmCPU). */
void harness_warmup(const run_opts_t *opt);
#endif
