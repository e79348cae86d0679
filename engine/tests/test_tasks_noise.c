/* Known answer for the noise loop: a SCHED_FIFO helper thread on the same
 * CPU wakes at known moments and takes the CPU for a known time; the loop
 * must show a gap of that length starting at each of those moments.
 * Tolerances, not timing targets: the machine is shared. */
#include "check.h"
#include "clock.h"
#include "noise.h"
#include "sched_ctl.h"
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#define STEALS 5
#define STEAL_NS 3000000ull   /* 3 ms */
#define FIRST_NS 60000000ull  /* the first at 60 ms */
#define EVERY_NS 50000000ull  /* then every 50 ms */

static int cpu;
static volatile uint64_t t_start;
static int fifo_ok;

static void *helper(void *arg)
{
    (void)arg;
    char err[200];
    pin_self(cpu, err, sizeof err);
    fifo_ok = set_policy_self(POLICY_FIFO, 20, err, sizeof err) == 0;
    while (!t_start) sched_yield();
    for (int k = 0; k < STEALS; k++) {
        /* CLOCK_MONOTONIC_RAW cannot be slept on: sleep on MONOTONIC to
         * just before the moment, then spin to it on the loop's clock */
        uint64_t at = t_start + FIRST_NS + (uint64_t)k * EVERY_NS;
        uint64_t now = clock_ns();
        if (at > now + 200000) {
            struct timespec ts = {0, (long)(at - now - 200000)};
            nanosleep(&ts, NULL);
        }
        /* (the spin to `at` is part of the steal: it starts when we wake) */
        while (clock_ns() < at + STEAL_NS) {}
    }
    return NULL;
}

int main(void)
{
    sched_ctl_init();
    cpu = default_cpu();
    char err[200];
    pin_self(cpu, err, sizeof err);
    pthread_t th;
    pthread_create(&th, NULL, helper, NULL);
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL); /* the helper is pinned, FIFO and waiting */
    static noise_result_t r;
    uint64_t win = FIRST_NS + STEALS * EVERY_NS;
    t_start = clock_ns();
    /* noise_measure calibrates for 20 ms first: the window starts later */
    noise_measure(win, 0, &r);
    pthread_join(th, NULL);
    if (!fifo_ok) { printf("skip: SCHED_FIFO not permitted, the helper cannot preempt on time\n"); CHECK_DONE("tasks_noise"); }
    int found = 0;
    for (int k = 0; k < STEALS; k++) {
        uint64_t at = t_start + FIRST_NS + (uint64_t)k * EVERY_NS; /* absolute */
        int hit = 0;
        for (size_t i = 0; i < r.ngaps && !hit; i++) {
            uint64_t g0 = r.t_start + r.gaps[i].at_ns;
            /* the helper wakes up to 200 us early plus its wake-up latency */
            if (g0 + 2000000 < at || g0 > at + 1000000) continue;
            uint64_t len = r.gaps[i].len_ns;
            hit = len >= STEAL_NS * 9 / 10 && len <= STEAL_NS + 3000000;
            if (hit) printf("steal %d at %.3f ms: gap of %.3f ms\n", k, (at - r.t_start) / 1e6, len / 1e6);
        }
        found += hit;
    }
    /* one steal may coincide with another task's gap on a busy machine */
    CHECK(found >= STEALS - 1, "found %d of %d known gaps of %.1f ms", found, STEALS, STEAL_NS / 1e6);
    int bin = 0;
    for (uint64_t x = STEAL_NS; x > 1; x >>= 1) bin++;
    CHECK(r.hist_count[bin] + r.hist_count[bin + 1] >= (uint64_t)(STEALS - 1),
          "histogram bins around %.1f ms hold %llu gaps", STEAL_NS / 1e6,
          (unsigned long long)(r.hist_count[bin] + r.hist_count[bin + 1]));
    CHECK(r.threshold_ns == 20 * r.min_step_ns, "threshold %llu from min step %llu",
          (unsigned long long)r.threshold_ns, (unsigned long long)r.min_step_ns);
    CHECK(r.count >= (uint64_t)found && r.longest_ns >= STEAL_NS * 9 / 10, "count/longest");
    CHECK_DONE("tasks_noise");
}
