/* Cache-line eviction of a party's working array (core/work.h): the
 * primitive behind the sweep's known-answer polluter (kernel/polluter.c),
 * used by the ping-pong (kernel/pingpong.c) at every switch back to A. */
#ifndef CTXBENCH_EVICT_H
#define CTXBENCH_EVICT_H
#include "core/work.h"

/* Evict the first `lines` cache lines (64-byte steps, capped at the array)
 * of w's array from every cache level: clflush on x86-64, dc civac on
 * arm64. The array's contents do not change. */
void evict_lines(work_t *w, unsigned lines);
/* 1 if this architecture can evict (else evict_lines is a no-op). */
int evict_supported(void);
#endif
