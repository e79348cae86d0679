/* timer/<source>: overhead of reading each timer back to back, and its
 * resolution (docs/method.md#timers-and-baselines). */
#include "core/bench.h"
#include "core/clock.h"
#include <math.h>
#include <string.h>
#include <time.h>

#define PAIRS 1000

static const char *const raw_names[] = {"min_ns", "min_nonzero_ns", NULL};

static double to_ns(const timer_source_t *t, uint64_t d)
{
    if (!t->ticks) return (double)d;
    double hz = cycle_hz();
    return hz > 0 ? (double)d * 1e9 / hz : NAN;
}

/* One sample: PAIRS back-to-back reads; value = mean delta (ns). */
static int sample(bench_run_t *r, uint64_t n, sample_t *out)
{
    const timer_source_t *t = r->b->arg;
    uint64_t sum = 0, mn = UINT64_MAX, mnz = UINT64_MAX;
    (void)n;
    uint64_t t0 = clock_ns();
    for (int i = 0; i < PAIRS; i++) {
        uint64_t a = t->read();
        uint64_t b = t->read();
        uint64_t d = b - a;
        sum += d;
        if (d < mn) mn = d;
        if (d && d < mnz) mnz = d;
    }
    out->duration_ns = clock_ns() - t0;
    out->value = to_ns(t, sum) / PAIRS;
    out->raw[0] = to_ns(t, mn);
    out->raw[1] = mnz == UINT64_MAX ? NAN : to_ns(t, mnz);
    return 0;
}

static void params(bench_run_t *r, json_t *j)
{
    const timer_source_t *t = r->b->arg;
    json_kstr(j, "source", t->name);
    json_kint(j, "pairs_per_sample", PAIRS);
    if (t->ticks) {
        json_knum(j, "tick_hz", cycle_hz());
        json_knum(j, "tick_hz_spread", cycle_hz_spread());
        json_kstr(j, "tick_hz_calibrated_against", "CLOCK_MONOTONIC_RAW");
        json_knum(j, "resolution_ns", 1e9 / cycle_hz());
    } else {
        struct timespec res;
        clockid_t id = strcmp(t->name, "clock_monotonic") ? CLOCK_MONOTONIC_RAW : CLOCK_MONOTONIC;
        clock_getres(id, &res);
        json_knum(j, "resolution_ns", (double)res.tv_sec * 1e9 + (double)res.tv_nsec);
    }
}

static int available(const bench_t *b)
{
    return timer_source_usable(b->arg);
}

#define TIMER_BENCH(var, src_getter_name, idstr, ord)                                                        \
    static const bench_t var = {.id = idstr,                                                                 \
                                .quantity = "overhead",                                                      \
                                .unit = "ns",                                                                \
                                .doc = "cost of one read of the timer (back-to-back pairs)",                 \
                                .flags = BENCH_DEFAULT | BENCH_QUICK | BENCH_FIXED_N,                        \
                                .order = ord,                                                                \
                                .raw_names = raw_names,                                                      \
                                .sample = sample,                                                            \
                                .params = params,                                                            \
                                .n0 = PAIRS,                                                                 \
                                .arg = src_getter_name,                                                      \
                                .available = available};                                                     \
    BENCH_REGISTER(var)

#ifdef CTXBENCH_HAVE_TSC
TIMER_BENCH(t_rdtsc, &timer_src_rdtsc, "timer/rdtsc", 100);
TIMER_BENCH(t_rdtscp, &timer_src_rdtscp, "timer/rdtscp", 101);
TIMER_BENCH(t_lfence, &timer_src_rdtsc_lfence, "timer/rdtsc_lfence", 102);
#endif
#ifdef CTXBENCH_HAVE_CNTVCT
TIMER_BENCH(t_cntvct, &timer_src_cntvct, "timer/cntvct", 103);
#endif
#ifdef CTXBENCH_HAVE_PMCCNTR
TIMER_BENCH(t_pmccntr, &timer_src_pmccntr, "timer/pmccntr", 103);
#endif
TIMER_BENCH(t_mono, &timer_src_clock_monotonic, "timer/clock_monotonic", 104);
TIMER_BENCH(t_mono_raw, &timer_src_clock_monotonic_raw, "timer/clock_monotonic_raw", 105);
