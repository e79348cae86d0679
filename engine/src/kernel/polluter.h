/* The sweep's test polluter (hidden ids test/polluter/<lines>): a same-CPU
 * thread futex ping-pong in which party A evicts a chosen number of cache
 * lines of its own working array from every cache level at every switch
 * back to it. Its indirect cost must rise with the lines evicted: the
 * sweep's known-answer test. */
#ifndef CTXBENCH_POLLUTER_H
#define CTXBENCH_POLLUTER_H
#include "core/work.h"

/* Evict the first `lines` cache lines (64-byte steps, capped at the array)
 * of w's array: clflush on x86-64, dc civac on arm64. */
void polluter_evict(work_t *w, unsigned lines);
/* 1 if this architecture can evict (else the polluter is a no-op). */
int polluter_supported(void);
#endif
