/* The environment record: facts about the machine, kernel and run that
 * every results file carries. The engine only gathers facts; the front end
 * judges them (warnings, advice). */
#ifndef CTXBENCH_ENV_H
#define CTXBENCH_ENV_H
#include "core/json.h"

typedef struct env_run {
    int mlocked; /* mlockall obtained */
    char mlock_error[120];
    int no_idle_requested; /* --no-idle */
    int no_idle_held;      /* /dev/cpu_dma_latency held at 0 */
    char no_idle_error[120];
} env_run_t;

/* Write the "environment" object's members. */
void env_write(json_t *j, const env_run_t *run);
/* Write the "tool" object's members (version, build). */
void tool_write(json_t *j);
#endif
