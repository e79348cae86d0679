/* Start a group from a quiet CPU: wait until the measuring thread, pinned on
 * the measured CPU, has run a whole window without being switched out and
 * without losing the CPU for longer than a gap (an interrupt's softirq work,
 * such as the RCU callbacks that free the task structs of the previous
 * group's exited parties). What the previous group left behind (parties
 * still exiting, kernel threads woken by their exit and their freed memory)
 * runs before this group's samples instead of inside them. */
#ifndef CTXBENCH_SETTLE_H
#define CTXBENCH_SETTLE_H
#include <stdint.h>

typedef struct settle {
    uint64_t started_ns; /* the clock when the wait began (the group's place in the run) */
    uint64_t waited_ns;  /* from the call until the quiet window ended */
    int64_t switches;    /* times the thread was switched out while waiting */
    int64_t gaps;        /* times it lost the CPU for longer than gap_ns */
    int quiet;           /* 1: a quiet window was reached before limit_ns */
} settle_t;

/* Losing the CPU for longer than this restarts the window: longer than a
 * timer tick's interrupt in a KVM guest (a few us), shorter than the work a
 * group of exited parties leaves to the CPU. */
#define SETTLE_GAP_NS 50000ull
/* The wait gives up (and records it) after this many windows. */
#define SETTLE_LIMIT 50ull

/* Bounded by limit_ns (and the watchdog); spins, never sleeps. */
settle_t settle_wait(uint64_t window_ns, uint64_t gap_ns, uint64_t limit_ns);
#endif
