/* Timer sources. The harness times samples with CLOCK_MONOTONIC_RAW
 * (clock_ns); the cycle counters exist for timer/<source> calibration, for single
 * short events (baseline/<event>) and to express results in cycles. */
#ifndef CTXBENCH_CLOCK_H
#define CTXBENCH_CLOCK_H
#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns_id(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t clock_ns(void)
{
    return clock_ns_id(CLOCK_MONOTONIC_RAW);
}

/* Spin for `ns` of wall time (not a count of iterations: the same time on
 * any CPU at any speed). The known answers' injected costs (tasks' burn
 * after a switch-in, the ring's per hand-off, the irq handler's) use it;
 * clock_gettime is async-signal-safe, so the handler may too. */
static inline void spin_ns(uint64_t ns)
{
    if (!ns) return;
    uint64_t end = clock_ns() + ns;
    while (clock_ns() < end) {
    }
}

#if defined(__x86_64__) || defined(__i386__)
#define CTXBENCH_HAVE_TSC 1
static inline uint64_t rdtsc_plain(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}
static inline uint64_t rdtscp_(void)
{
    uint32_t lo, hi, aux;
    __asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
    return ((uint64_t)hi << 32) | lo;
}
/* lfence orders rdtsc after every earlier instruction has completed. */
static inline uint64_t rdtsc_fenced(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
}
#endif

#if defined(__aarch64__)
#define CTXBENCH_HAVE_CNTVCT 1
static inline uint64_t cntvct(void)
{
    uint64_t v;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
    return v;
}
static inline uint64_t cntfrq(void)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
    return v;
}
#endif

#if defined(__arm__)
/* ARMv7 PMU cycle counter (PMCCNTR). Readable from user space only when the
 * kernel set PMUSERENR.EN, which few do: probe before use
 * (pmccntr_usable), never read it blind. 32 bits wide; pmccntr() extends it
 * per thread, so reads of one thread less than a wrap apart are monotonic. */
#define CTXBENCH_HAVE_PMCCNTR 1
static inline uint32_t pmccntr32(void)
{
    uint32_t v;
    __asm__ __volatile__("isb\n\tmrc p15, 0, %0, c9, c13, 0" : "=r"(v)::"memory");
    return v;
}
uint64_t pmccntr(void);
#endif
/* 1 when the PMU cycle counter can be read from user space and counts;
 * else 0 and *why says what the probe found. Always 0 off ARMv7. */
int pmccntr_usable(const char **why);

/* A timer source as the timer/<source> benchmarks and the env record see it. */
typedef struct timer_source {
    const char *name; /* id suffix: rdtsc, rdtscp, rdtsc_lfence, ... */
    uint64_t (*read)(void);
    int ticks;           /* 1: counts ticks of cycle_hz(); 0: counts ns */
    int (*usable)(void); /* NULL: always; else probed at run time */
} timer_source_t;

/* The sources this build has (cycle counters only on their architecture). */
extern const timer_source_t timer_src_rdtsc, timer_src_rdtscp, timer_src_rdtsc_lfence, timer_src_cntvct,
    timer_src_pmccntr, timer_src_clock_monotonic, timer_src_clock_monotonic_raw;
int timer_source_usable(const timer_source_t *t);

/* Every source this build and CPU support (probed); NULL-terminated. */
const timer_source_t *const *timer_sources(void);
const timer_source_t *timer_source_find(const char *name);

/* Tick rate of the cycle counter (TSC, cntvct), calibrated against
 * CLOCK_MONOTONIC_RAW once per process; 0 when there is none. */
double cycle_hz(void);
double cycle_hz_spread(void);         /* relative spread of the calibration rounds */
const char *cycle_counter_name(void); /* "tsc", "cntvct", "pmccntr", or NULL */

/* Best source for timing one short event: fenced TSC on x86, cntvct on
 * aarch64, PMCCNTR on ARMv7 when user space may read it, else the raw
 * monotonic clock. Returns ns. */
double event_ticks_to_ns(uint64_t ticks);
const timer_source_t *event_timer(void);
#endif
