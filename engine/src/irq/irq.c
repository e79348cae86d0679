/* The timer signal and its counting handler, and D (its direct cost). */
#include "irq/irq.h"
#include "core/bench.h"
#include "core/clock.h"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t handled, overruns;
static uint64_t burn_ns; /* known-answer mode: extra wall time spent per signal */

void irq_set_burn(uint64_t ns)
{
    burn_ns = ns;
}

/* The handler does what David et al.'s interrupt handler does: count. In the
 * known-answer mode it also spins `burn_ns` of wall time (clock-based, so
 * the same d on any CPU), a direct cost that must come back as D. */
static void on_timer(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    spin_ns(burn_ns);
    handled++;
    overruns += (uint64_t)(si->si_overrun > 0 ? si->si_overrun : 0);
}

int irq_signal(void)
{
    return SIGRTMIN + 2;
} /* SIGALRM belongs to the watchdog */

void irq_counts_reset(void)
{
    handled = 0;
    overruns = 0;
}
uint64_t irq_handled(void)
{
    return handled;
}
uint64_t irq_overruns(void)
{
    return overruns;
}

int irq_timer_create(irq_timer_t *t)
{
    memset(t, 0, sizeof *t);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_timer;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(irq_signal(), &sa, NULL)) {
        bench_error("sigaction: %s", strerror(errno));
        return -1;
    }
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID; /* to this thread, the one running the task */
    ev.sigev_signo = irq_signal();
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    timer_t tm;
    if (timer_create(CLOCK_MONOTONIC, &ev, &tm)) {
        bench_error("timer_create: %s", strerror(errno));
        return -1;
    }
    t->timer = malloc(sizeof tm);
    if (!t->timer) {
        timer_delete(tm);
        bench_error("out of memory");
        return -1;
    }
    memcpy(t->timer, &tm, sizeof tm);
    return 0;
}

void irq_timer_arm(irq_timer_t *t, uint64_t period_ns)
{
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = (time_t)(period_ns / 1000000000ull);
    its.it_value.tv_nsec = (long)(period_ns % 1000000000ull);
    its.it_interval = its.it_value;
    timer_settime(*(timer_t *)t->timer, 0, &its, NULL);
    t->armed = period_ns != 0;
}

void irq_timer_delete(irq_timer_t *t)
{
    if (!t->timer) return;
    irq_timer_arm(t, 0);
    timer_delete(*(timer_t *)t->timer);
    free(t->timer);
    t->timer = NULL;
}

uint64_t irq_fire(uint64_t period_ns, uint64_t count, uint64_t *out_handled, uint64_t *due)
{
    irq_timer_t t;
    if (irq_timer_create(&t)) return 0;
    irq_counts_reset();
    uint64_t start = clock_ns_id(CLOCK_MONOTONIC);
    irq_timer_arm(&t, period_ns);
    uint64_t end = start + count * period_ns + period_ns / 2;
    while (clock_ns_id(CLOCK_MONOTONIC) < end) {
    }
    irq_timer_arm(&t, 0);
    uint64_t stop = clock_ns_id(CLOCK_MONOTONIC);
    /* an expiry already queued is still delivered: let it arrive */
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    irq_timer_delete(&t);
    if (out_handled) *out_handled = handled;
    if (due) *due = (stop - start) / period_ns;
    return handled + overruns;
}

uint64_t irq_fire_each(uint64_t period_ns, uint64_t count)
{
    irq_timer_t t;
    if (irq_timer_create(&t)) return 0;
    irq_counts_reset();
    timer_t tm = *(timer_t *)t.timer;
    uint64_t at = clock_ns_id(CLOCK_MONOTONIC);
    for (uint64_t i = 0; i < count; i++) {
        at += period_ns;
        struct itimerspec its;
        memset(&its, 0, sizeof its);
        its.it_value.tv_sec = (time_t)(at / 1000000000ull);
        its.it_value.tv_nsec = (long)(at % 1000000000ull);
        timer_settime(tm, TIMER_ABSTIME, &its, NULL);
        uint64_t limit = clock_ns_id(CLOCK_MONOTONIC) + period_ns + 1000000000ull; /* bounded */
        while (handled <= i && clock_ns_id(CLOCK_MONOTONIC) < limit) {
        }
    }
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    irq_timer_delete(&t);
    return handled;
}

/* This thread's context switches so far (voluntary + involuntary). */
static int64_t thread_switches(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru)) return -1;
    return (int64_t)ru.ru_nvcsw + (int64_t)ru.ru_nivcsw;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int irq_direct(uint64_t count, uint64_t period_ns, irq_direct_t *out)
{
    memset(out, 0, sizeof *out);
    double *gap = calloc(count ? count : 1, sizeof *gap);
    if (!gap) {
        bench_error("out of memory");
        return -1;
    }
    irq_timer_t t;
    if (irq_timer_create(&t)) {
        free(gap);
        return -1;
    }
    irq_counts_reset();
    /* warm: one signal before the measured ones (David et al. raise one too) */
    uint64_t min_step = UINT64_MAX, k = 0, seen = 0;
    irq_timer_arm(&t, period_ns);
    uint64_t limit = clock_ns() + 2000000000ull; /* bounded: 2 s */
    uint64_t prev = clock_ns();
    /* The signal lands between two clock reads; the counter read can fall
     * on either side of it, so the gap is the larger of the step in which
     * the count changed and the step after. */
    int pending = 0;
    double first = 0;
    int64_t switched = thread_switches();
    uint64_t preempted = 0;
    while (k < count) {
        uint64_t now = clock_ns();
        uint64_t h = handled;
        uint64_t step = now - prev;
        if (pending) {
            gap[k++] = first > (double)step ? first : (double)step;
            pending = 0;
            /* Another task took the CPU since the last signal (a switch
             * of this thread: a signal switches nothing): its time slice
             * may be in this gap, which is then not the signal's cost.
             * Read after the gap closed, so the read is in no gap. */
            int64_t sw = thread_switches();
            if (sw != switched) {
                gap[k - 1] = -1;
                preempted++;
            }
            switched = sw;
        } else if (h != seen) {
            if (seen) {
                pending = 1;
                first = (double)step;
            } /* the first signal only warms */
            seen = h;
        } else if (step < min_step) {
            min_step = step;
        }
        prev = now;
        if (now > limit) break;
    }
    irq_timer_delete(&t);
    if (!k) {
        free(gap);
        bench_error("no timer signal arrived within 2 s");
        return -1;
    }
    /* The gaps a switch of this thread may have lengthened are left out and
     * counted. No cut by length either, but the mean is not what a running
     * task pays per signal: a tick served in the signal's interrupt and a
     * host stall that ends at the signal are in its gap, while the task's
     * plain runs pay them anyway (here the gaps read 13.0 us, the same loop
     * timed whole 12.0 us). The front end sets D's level from the spin's
     * rate slope and uses this only from round to round (irq/calibration.py). */
    qsort(gap, k, sizeof *gap, cmpd);
    double med = gap[preempted + (k - preempted) / 2], sum = 0;
    uint64_t used = 0;
    for (uint64_t i = preempted; i < k; i++) {
        sum += gap[i];
        used++;
    }
    if (!used) {
        free(gap);
        bench_error("every timer signal met a switch of this thread (another task on the CPU)");
        return -1;
    }
    out->n = k;
    out->dropped = k - used;
    out->min_step_ns = (double)min_step;
    out->d_ns = sum / (double)used - (double)min_step;
    out->median_gap_ns = med;
    free(gap);
    return 0;
}
