#include "core/clock.h"
#include <stddef.h>
#include <string.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>

static uint64_t read_mono(void)
{
    return clock_ns_id(CLOCK_MONOTONIC);
}
static uint64_t read_mono_raw(void)
{
    return clock_ns_id(CLOCK_MONOTONIC_RAW);
}

#ifdef CTXBENCH_HAVE_TSC
static uint64_t read_rdtsc(void)
{
    return rdtsc_plain();
}
static uint64_t read_rdtscp(void)
{
    return rdtscp_();
}
static uint64_t read_rdtsc_lfence(void)
{
    return rdtsc_fenced();
}
const timer_source_t timer_src_rdtsc = {"rdtsc", read_rdtsc, 1, NULL};
const timer_source_t timer_src_rdtscp = {"rdtscp", read_rdtscp, 1, NULL};
const timer_source_t timer_src_rdtsc_lfence = {"rdtsc_lfence", read_rdtsc_lfence, 1, NULL};
#endif
#ifdef CTXBENCH_HAVE_CNTVCT
static uint64_t read_cntvct(void)
{
    return cntvct();
}
const timer_source_t timer_src_cntvct = {"cntvct", read_cntvct, 1, NULL};
#endif
#ifdef CTXBENCH_HAVE_PMCCNTR
static __thread uint32_t pmc_last;
static __thread uint64_t pmc_high;
uint64_t pmccntr(void)
{
    uint32_t v = pmccntr32();
    if (v < pmc_last) pmc_high += 1ull << 32;
    pmc_last = v;
    return pmc_high | v;
}
static int pmc_usable(void)
{
    return pmccntr_usable(NULL);
}
const timer_source_t timer_src_pmccntr = {"pmccntr", pmccntr, 1, pmc_usable};

/* The probe: read the counter twice under a SIGILL handler. Reading it with
 * PMUSERENR.EN clear is an undefined instruction (SIGILL), which the handler
 * turns into "not usable"; equal reads mean the counter is not enabled. */
static sigjmp_buf probe_env;
static void probe_sigill(int sig)
{
    (void)sig;
    siglongjmp(probe_env, 1);
}
#endif

int pmccntr_usable(const char **why)
{
#ifdef CTXBENCH_HAVE_PMCCNTR
    static int state = -1;
    static const char *reason = "";
    if (state < 0) {
        struct sigaction sa, old_ill;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = probe_sigill;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGILL, &sa, &old_ill);
        if (sigsetjmp(probe_env, 1) == 0) {
            uint32_t a = pmccntr32();
            for (volatile int i = 0; i < 10000; i++) {
            }
            uint32_t b = pmccntr32();
            state = a != b;
            reason = state ? "readable from user space and counting"
                           : "readable but not counting (PMCNTENSET.C clear)";
        } else {
            state = 0;
            reason = "SIGILL: user access disabled by the kernel (PMUSERENR.EN = 0)";
        }
        sigaction(SIGILL, &old_ill, NULL);
    }
    if (why) *why = reason;
    return state;
#else
    if (why) *why = "no PMCCNTR on this architecture";
    return 0;
#endif
}

const timer_source_t timer_src_clock_monotonic = {"clock_monotonic", read_mono, 0, NULL};
const timer_source_t timer_src_clock_monotonic_raw = {"clock_monotonic_raw", read_mono_raw, 0, NULL};

static const timer_source_t *const all_sources[] = {
#ifdef CTXBENCH_HAVE_TSC
    &timer_src_rdtsc,
    &timer_src_rdtscp,
    &timer_src_rdtsc_lfence,
#endif
#ifdef CTXBENCH_HAVE_CNTVCT
    &timer_src_cntvct,
#endif
#ifdef CTXBENCH_HAVE_PMCCNTR
    &timer_src_pmccntr,
#endif
    &timer_src_clock_monotonic,
    &timer_src_clock_monotonic_raw,
    NULL};

int timer_source_usable(const timer_source_t *t)
{
    return !t->usable || t->usable();
}

const timer_source_t *const *timer_sources(void)
{
    static const timer_source_t *usable[sizeof all_sources / sizeof *all_sources];
    if (!usable[0]) {
        size_t k = 0;
        for (size_t i = 0; all_sources[i]; i++)
            if (timer_source_usable(all_sources[i])) usable[k++] = all_sources[i];
    }
    return usable;
}

const timer_source_t *timer_source_find(const char *name)
{
    const timer_source_t *const *all = timer_sources();
    for (size_t i = 0; all[i]; i++)
        if (!strcmp(all[i]->name, name)) return all[i];
    return NULL;
}

const char *cycle_counter_name(void)
{
#if defined(CTXBENCH_HAVE_TSC)
    return "tsc";
#elif defined(CTXBENCH_HAVE_CNTVCT)
    return "cntvct";
#elif defined(CTXBENCH_HAVE_PMCCNTR)
    return pmccntr_usable(NULL) ? "pmccntr" : NULL;
#else
    return NULL;
#endif
}

static double g_hz = -1, g_spread = 0;

#if defined(CTXBENCH_HAVE_TSC) || defined(CTXBENCH_HAVE_CNTVCT) || defined(CTXBENCH_HAVE_PMCCNTR)
static uint64_t cyc(void)
{
#if defined(CTXBENCH_HAVE_TSC)
    return rdtsc_fenced();
#elif defined(CTXBENCH_HAVE_CNTVCT)
    return cntvct();
#else
    return pmccntr();
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
            c0a = cyc();
            t0 = clock_ns();
            c0b = cyc();
            if (c0b - c0a < 20000 || tries > 50) break;
        }
        do {
            t1 = clock_ns();
        } while (t1 - t0 < 20000000ull);
        for (int tries = 0;; tries++) {
            c1a = cyc();
            t1 = clock_ns();
            c1b = cyc();
            if (c1b - c1a < 20000 || tries > 50) break;
        }
        double dc = (double)((c1a + c1b) / 2 - (c0a + c0b) / 2);
        r[k] = dc * 1e9 / (double)(t1 - t0);
    }
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            if (r[j] < r[i]) {
                double t = r[i];
                r[i] = r[j];
                r[j] = t;
            }
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
#elif defined(CTXBENCH_HAVE_PMCCNTR)
        /* the cycle counter follows the core clock (DVFS): calibrated rate
         * holds only while the frequency does */
        g_hz = pmccntr_usable(NULL) ? calibrate(&g_spread) : 0;
#else
        g_hz = 0;
#endif
    }
    return g_hz;
}

double cycle_hz_spread(void)
{
    cycle_hz();
    return g_spread;
}

const timer_source_t *event_timer(void)
{
#if defined(CTXBENCH_HAVE_TSC)
    return &timer_src_rdtsc_lfence;
#elif defined(CTXBENCH_HAVE_CNTVCT)
    return &timer_src_cntvct;
#elif defined(CTXBENCH_HAVE_PMCCNTR)
    return pmccntr_usable(NULL) ? &timer_src_pmccntr : &timer_src_clock_monotonic_raw;
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
