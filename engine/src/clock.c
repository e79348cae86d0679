#include "clock.h"
#include <stddef.h>
#include <string.h>
#include <math.h>

static uint64_t read_mono(void) { return clock_ns_id(CLOCK_MONOTONIC); }
static uint64_t read_mono_raw(void) { return clock_ns_id(CLOCK_MONOTONIC_RAW); }

#ifdef CTXBENCH_HAVE_TSC
static uint64_t read_rdtsc(void) { return rdtsc_plain(); }
static uint64_t read_rdtscp(void) { return rdtscp_(); }
static uint64_t read_rdtsc_lfence(void) { return rdtsc_fenced(); }
const timer_source_t timer_src_rdtsc = {"rdtsc", read_rdtsc, 1};
const timer_source_t timer_src_rdtscp = {"rdtscp", read_rdtscp, 1};
const timer_source_t timer_src_rdtsc_lfence = {"rdtsc_lfence", read_rdtsc_lfence, 1};
#endif
#ifdef CTXBENCH_HAVE_CNTVCT
static uint64_t read_cntvct(void) { return cntvct(); }
const timer_source_t timer_src_cntvct = {"cntvct", read_cntvct, 1};
#endif
const timer_source_t timer_src_clock_monotonic = {"clock_monotonic", read_mono, 0};
const timer_source_t timer_src_clock_monotonic_raw = {"clock_monotonic_raw", read_mono_raw, 0};

static const timer_source_t *const all_sources[] = {
#ifdef CTXBENCH_HAVE_TSC
    &timer_src_rdtsc, &timer_src_rdtscp, &timer_src_rdtsc_lfence,
#endif
#ifdef CTXBENCH_HAVE_CNTVCT
    &timer_src_cntvct,
#endif
    &timer_src_clock_monotonic, &timer_src_clock_monotonic_raw, NULL};

const timer_source_t *const *timer_sources(void) { return all_sources; }

const timer_source_t *timer_source_find(const char *name)
{
    for (size_t i = 0; all_sources[i]; i++)
        if (!strcmp(all_sources[i]->name, name)) return all_sources[i];
    return NULL;
}

const char *cycle_counter_name(void)
{
#if defined(CTXBENCH_HAVE_TSC)
    return "tsc";
#elif defined(CTXBENCH_HAVE_CNTVCT)
    return "cntvct";
#else
    return NULL;
#endif
}

static double g_hz = -1, g_spread = 0;

#if defined(CTXBENCH_HAVE_TSC) || defined(CTXBENCH_HAVE_CNTVCT)
static uint64_t cyc(void)
{
#ifdef CTXBENCH_HAVE_TSC
    return rdtsc_fenced();
#else
    return cntvct();
#endif
}

/* Count ticks over ~20 ms windows of CLOCK_MONOTONIC_RAW, five times; the
 * median round is the rate and the spread says how much to trust it. Each
 * window edge is bracketed by two counter reads so that a preemption between
 * the clock read and the counter read shows up as a wide bracket and the
 * round is retried. */
static double calibrate(double *spread)
{
    double r[5];
    for (int k = 0; k < 5; k++) {
        uint64_t c0a, c0b, t0, c1a, c1b, t1;
        for (int tries = 0;; tries++) {
            c0a = cyc(); t0 = clock_ns(); c0b = cyc();
            if (c0b - c0a < 20000 || tries > 50) break;
        }
        do { t1 = clock_ns(); } while (t1 - t0 < 20000000ull);
        for (int tries = 0;; tries++) {
            c1a = cyc(); t1 = clock_ns(); c1b = cyc();
            if (c1b - c1a < 20000 || tries > 50) break;
        }
        double dc = (double)((c1a + c1b) / 2 - (c0a + c0b) / 2);
        r[k] = dc * 1e9 / (double)(t1 - t0);
    }
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            if (r[j] < r[i]) { double t = r[i]; r[i] = r[j]; r[j] = t; }
    *spread = (r[4] - r[0]) / r[2];
    return r[2];
}
#endif

double cycle_hz(void)
{
    if (g_hz < 0) {
#if defined(CTXBENCH_HAVE_CNTVCT)
        /* cntfrq_el0 is the architected frequency; still check it. */
        g_hz = calibrate(&g_spread);
#elif defined(CTXBENCH_HAVE_TSC)
        g_hz = calibrate(&g_spread);
#else
        g_hz = 0;
#endif
    }
    return g_hz;
}

double cycle_hz_spread(void) { cycle_hz(); return g_spread; }

const timer_source_t *event_timer(void)
{
#if defined(CTXBENCH_HAVE_TSC)
    return &timer_src_rdtsc_lfence;
#elif defined(CTXBENCH_HAVE_CNTVCT)
    return &timer_src_cntvct;
#else
    return &timer_src_clock_monotonic_raw;
#endif
}

double event_ticks_to_ns(uint64_t ticks)
{
    const timer_source_t *t = event_timer();
    if (!t->ticks) return (double)ticks;
    double hz = cycle_hz();
    return hz > 0 ? (double)ticks * 1e9 / hz : NAN;
}
