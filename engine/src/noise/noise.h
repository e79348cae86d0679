/* What the system takes from a pinned CPU: a tight loop reads the clock
 * and records every step longer than a threshold (a gap: the loop was not
 * running), next to the /proc/interrupts counts of that CPU. */
#ifndef CTXBENCH_NOISE_H
#define CTXBENCH_NOISE_H
#include <stddef.h>
#include <stdint.h>

#define NOISE_BINS     40    /* bin k: gaps of [2^k, 2^(k+1)) ns */
#define NOISE_MAX_GAPS 65536 /* gaps kept with their times (counts stay exact) */
#define IRQ_MAX_LINES  160

typedef struct {
    uint64_t at_ns, len_ns;
} noise_gap_t; /* at: from the window start */

typedef struct {
    uint64_t window_ns, threshold_ns, min_step_ns;
    uint64_t count, total_ns, longest_ns, steps;
    uint64_t hist_count[NOISE_BINS], hist_ns[NOISE_BINS];
    noise_gap_t gaps[NOISE_MAX_GAPS];
    size_t ngaps;
    uint64_t t_start; /* CLOCK_MONOTONIC_RAW at the window start */
} noise_result_t;

/* The loop's minimum step over `ms` milliseconds (calibration). */
uint64_t noise_min_step(unsigned ms);
/* One window of `window_ns`; threshold 0: 20 x the loop's minimum step,
 * calibrated over 20 ms first (else min_step_ns is 0: not calibrated). */
int noise_measure(uint64_t window_ns, uint64_t threshold_ns, noise_result_t *r);

/* /proc/interrupts counts of one CPU. */
typedef struct {
    int n;
    char name[IRQ_MAX_LINES][16];
    char desc[IRQ_MAX_LINES][64];
    uint64_t count[IRQ_MAX_LINES];
} irq_snap_t;
int irq_snap_read(int cpu, irq_snap_t *s); /* 0 ok; -1 unreadable */
#endif
