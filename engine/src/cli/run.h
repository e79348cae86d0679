/* Measuring: the run's preparation (memory locked, idle states held,
 * the RT watchdog, the cycle counter calibrated), the header (tool and
 * environment), and the jobs, one after the other or interleaved group by
 * group in a fixed pseudo-random order per round. */
#ifndef CTXBENCH_CLI_RUN_H
#define CTXBENCH_CLI_RUN_H
#include "cli/options.h"
#include "core/json.h"

void write_header(json_t *j);
int run_ids(cli_t *c, const bench_t **list, size_t n);
#endif
