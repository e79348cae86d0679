/* Forced interrupts from user space: a POSIX timer delivering a real-time
 * signal to this thread, whose handler only counts (docs/method.md#interrupts;
 * David et al. 2007, section 4, with a signal in place of a raw
 * interrupt). */
#ifndef CTXBENCH_IRQ_H
#define CTXBENCH_IRQ_H
#include <stdint.h>

typedef struct irq_timer {
    void *timer; /* timer_t */
    int armed;
} irq_timer_t;

int irq_timer_create(irq_timer_t *t);                   /* 0 ok, else bench_error */
void irq_timer_arm(irq_timer_t *t, uint64_t period_ns); /* periodic; 0 disarms */
void irq_timer_delete(irq_timer_t *t);
void irq_counts_reset(void);
uint64_t irq_handled(void);     /* handler invocations since reset */
uint64_t irq_overruns(void);    /* expirations merged into a pending signal */
int irq_signal(void);           /* the signal number used */
void irq_set_burn(uint64_t ns); /* the handler also spins ns of wall time (known answer; 0: off) */

/* Arm a periodic timer, spin until `count` expirations are due plus half a
 * period, disarm; returns handled + overruns, and in *due the expirations
 * due by the clock between arming and disarming. For tests. */
uint64_t irq_fire(uint64_t period_ns, uint64_t count, uint64_t *handled, uint64_t *due);
/* Request exactly `count` expirations, one at a time (absolute one-shot
 * timers `period_ns` apart, each waited for, bounded); returns the handler
 * count. For tests. */
uint64_t irq_fire_each(uint64_t period_ns, uint64_t count);

/* D: the direct cost of servicing one timer signal, seen by a loop reading
 * the clock: mean gap at a signal minus the loop's minimum step, over
 * `count` signals (gaps after which this thread had switched, i.e. another
 * task may have run in them, left out and counted in `dropped`). Returns 0
 * ok. */
typedef struct {
    double d_ns, median_gap_ns, min_step_ns;
    uint64_t n, dropped;
} irq_direct_t;
int irq_direct(uint64_t count, uint64_t period_ns, irq_direct_t *out);
#endif
