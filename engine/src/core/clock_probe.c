#include "core/clock_probe.h"
#include "core/clock.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PER_ITER 16 /* ops per loop iteration: the loop's own counter runs beside the chain */

/* The chains. Each op depends on the one before; the loop counter is an
 * independent chain the core runs beside them, and its branch is taken
 * every time but the last. */
#if defined(__x86_64__)
#define CHAIN_NAME   "add reg,reg (x86-64)"
#define CHECK_NAME   "imul reg,reg (x86-64)"
#define CHECK_CYCLES 3
static uint64_t chain_add(uint64_t iters)
{
    uint64_t a = 1, d = 3;
    __asm__ volatile("1:\n\t.rept 16\n\tadd %[d], %[a]\n\t.endr\n\tdec %[i]\n\tjnz 1b"
                     : [a] "+r"(a), [i] "+r"(iters)
                     : [d] "r"(d)
                     : "cc");
    return a;
}
static uint64_t chain_check(uint64_t iters)
{
    uint64_t a = 1, d = 3;
    __asm__ volatile("1:\n\t.rept 16\n\timul %[d], %[a]\n\t.endr\n\tdec %[i]\n\tjnz 1b"
                     : [a] "+r"(a), [i] "+r"(iters)
                     : [d] "r"(d)
                     : "cc");
    return a;
}
#elif defined(__aarch64__)
#define CHAIN_NAME   "add xN,xN,xM (aarch64)"
#define CHECK_NAME   "mul xN,xN,xM (aarch64)"
/* mul's latency differs between cores (2 to 5 cycles): recorded, not judged */
#define CHECK_CYCLES 0
static uint64_t chain_add(uint64_t iters)
{
    uint64_t a = 1, d = 3;
    __asm__ volatile("1:\n\t.rept 16\n\tadd %x[a], %x[a], %x[d]\n\t.endr\n\tsubs %x[i], %x[i], #1\n\tb.ne 1b"
                     : [a] "+r"(a), [i] "+r"(iters)
                     : [d] "r"(d)
                     : "cc");
    return a;
}
static uint64_t chain_check(uint64_t iters)
{
    uint64_t a = 1, d = 3;
    __asm__ volatile("1:\n\t.rept 16\n\tmul %x[a], %x[a], %x[d]\n\t.endr\n\tsubs %x[i], %x[i], #1\n\tb.ne 1b"
                     : [a] "+r"(a), [i] "+r"(iters)
                     : [d] "r"(d)
                     : "cc");
    return a;
}
#elif defined(__arm__)
#define CHAIN_NAME   "add rN,rN,rM (armv7)"
#define CHECK_NAME   "mul rN,rN,rM (armv7)"
#define CHECK_CYCLES 0
static uint64_t chain_add(uint64_t iters)
{
    uint32_t a = 1, d = 3, i = (uint32_t)iters;
    __asm__ volatile("1:\n\t.rept 16\n\tadd %[a], %[a], %[d]\n\t.endr\n\tsubs %[i], %[i], #1\n\tbne 1b"
                     : [a] "+r"(a), [i] "+r"(i)
                     : [d] "r"(d)
                     : "cc");
    return a;
}
static uint64_t chain_check(uint64_t iters)
{
    uint32_t a = 1, d = 3, i = (uint32_t)iters;
    __asm__ volatile("1:\n\t.rept 16\n\tmul %[a], %[a], %[d]\n\t.endr\n\tsubs %[i], %[i], #1\n\tbne 1b"
                     : [a] "+r"(a), [i] "+r"(i)
                     : [d] "r"(d)
                     : "cc");
    return a;
}
#else
/* Elsewhere: the compiler's adds, each kept by an empty asm so that none is
 * folded; the loop's overhead is then part of the chain (not one cycle per op). */
#define CHAIN_NAME   "add (C, unchecked)"
#define CHECK_NAME   "multiply (C, unchecked)"
#define CHECK_CYCLES 0
static uint64_t chain_add(uint64_t iters)
{
    uint64_t a = 1, d = 3;
    for (uint64_t i = 0; i < iters * PER_ITER; i++) {
        a += d;
        __asm__ volatile("" : "+r"(a));
    }
    return a;
}
static uint64_t chain_check(uint64_t iters)
{
    uint64_t a = 1, d = 3;
    for (uint64_t i = 0; i < iters * PER_ITER; i++) {
        a *= d;
        __asm__ volatile("" : "+r"(a));
    }
    return a;
}
#endif

static volatile uint64_t sink; /* keeps the chains' results observable */

/* The walk: reference/cpu's (baseline/reference_bench.c), a data-dependent
 * branch per step over a fixed 16 KiB table. */
#define WALK_TABLE 2048
static __thread uint64_t walk_table[WALK_TABLE];
static __thread int walk_ready;

static uint64_t walk(uint64_t steps)
{
    if (!walk_ready) {
        uint64_t x = 0x9E3779B97F4A7C15ull;
        for (int i = 0; i < WALK_TABLE; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            walk_table[i] = x;
        }
        walk_ready = 1;
    }
    uint64_t x = 1;
    for (uint64_t i = 0; i < steps * PER_ITER; i++) {
        uint64_t v = walk_table[x & (WALK_TABLE - 1)];
        if (v & 1)
            x = (x >> 3) + v;
        else
            x = x * 5 + (v >> 11);
    }
    return x;
}
static char emulated[160];

void clock_probe_mark_emulated(const char *evidence)
{
    snprintf(emulated, sizeof emulated, "%s", evidence && evidence[0] ? evidence : "emulated");
}

static double once_ns(uint64_t (*chain)(uint64_t), uint64_t ops)
{
    uint64_t t0 = clock_ns();
    uint64_t x = chain(ops / PER_ITER);
    uint64_t t1 = clock_ns();
    sink += x;
    return (double)(t1 - t0);
}

static double best_ns(uint64_t (*chain)(uint64_t), uint64_t ops, int reps)
{
    double best = INFINITY;
    for (int r = 0; r < reps; r++) best = fmin(best, once_ns(chain, ops));
    return best;
}

/* The PMU's cycles event for this thread, user space only (allowed at
 * perf_event_paranoid 2), opened once per thread. */
static __thread int pmu_fd = -2; /* -2: not tried */
static char pmu_error[160];

static int pmu_open(void)
{
    if (pmu_fd != -2) return pmu_fd;
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = PERF_COUNT_HW_CPU_CYCLES;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    pmu_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (pmu_fd < 0) {
        int e = errno;
        snprintf(pmu_error, sizeof pmu_error, "the cycles event cannot be opened: %s%s", strerror(e),
                 e == ENOENT || e == EOPNOTSUPP ? " (no hardware PMU here, as in most virtual machines)"
                                                : "");
        pmu_fd = -1;
    }
    return pmu_fd;
}

const char *clock_probe_pmu_error(void)
{
    pmu_open();
    return pmu_error;
}

/* Counted cycles per add over one more repetition (the reads' own user
 * cycles, measured back to back, subtracted); NAN without a PMU. */
static double pmu_cycles_per_op(void)
{
    int fd = pmu_open();
    uint64_t c[4];
    if (fd < 0) return NAN;
    if (read(fd, &c[0], 8) != 8 || read(fd, &c[1], 8) != 8) return NAN;
    if (read(fd, &c[2], 8) != 8) return NAN;
    sink += chain_add(PROBE_OPS / PER_ITER);
    if (read(fd, &c[3], 8) != 8) return NAN;
    double own = (double)(c[1] - c[0]);
    return ((double)(c[3] - c[2]) - own) / PROBE_OPS;
}

/* Moves the calling thread to `cpu` if it is elsewhere: 1 if moved (and
 * `old` holds its affinity to restore). */
static int move_to(int cpu, cpu_set_t *old)
{
    cpu_set_t one;
    if (cpu < 0 || sched_getcpu() == cpu || pthread_getaffinity_np(pthread_self(), sizeof *old, old))
        return 0;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
}

double clock_probe_quick(int cpu)
{
    cpu_set_t old;
    int moved = move_to(cpu, &old);
    double ns = best_ns(chain_add, PROBE_OPS, PROBE_QUICK_REPS);
    if (moved) pthread_setaffinity_np(pthread_self(), sizeof old, &old);
    return ns;
}

clock_probe_t clock_probe_read(int cpu)
{
    cpu_set_t old;
    int moved = move_to(cpu, &old);
    clock_probe_t p;
    /* The chains' repetitions interleaved, so that each one's best comes
     * from the same stretch of time: a clock that climbs while the probe
     * runs (a CPU leaving idle at a group's start: the add chain 15-30%
     * slower than the imul check saw, one group in three, with no warm-up)
     * then moves all three alike. */
    p.add_ns = p.check_ns = p.walk_ns = INFINITY;
    for (int r = 0; r < PROBE_REPS; r++) {
        p.add_ns = fmin(p.add_ns, once_ns(chain_add, PROBE_OPS));
        if (r >= PROBE_REPS - PROBE_CHECK_REPS)
            p.check_ns = fmin(p.check_ns, once_ns(chain_check, PROBE_CHECK_OPS));
        p.walk_ns = fmin(p.walk_ns, once_ns(walk, PROBE_WALK_STEPS));
    }
    p.pmu_cycles_per_op = pmu_cycles_per_op();
    p.cpu = sched_getcpu();
    p.sensors = host_sensors_read(p.cpu);
    if (moved) pthread_setaffinity_np(pthread_self(), sizeof old, &old);
    return p;
}

void clock_probe_describe(json_t *j)
{
    json_kstr(j, "chain", CHAIN_NAME);
    json_kint(j, "ops", PROBE_OPS);
    json_kint(j, "reps", PROBE_REPS);
    json_kstr(j, "check_chain", CHECK_NAME);
    json_kint(j, "check_ops", PROBE_CHECK_OPS);
    json_kint(j, "check_reps", PROBE_CHECK_REPS);
    json_kint(j, "walk_steps", PROBE_WALK_STEPS);
    if (CHECK_CYCLES)
        json_kint(j, "check_latency_cycles", CHECK_CYCLES);
    else {
        json_key(j, "check_latency_cycles");
        json_null(j);
    }
    json_kstr(j, "timed_with", "CLOCK_MONOTONIC_RAW, best of the repetitions");
    if (emulated[0]) json_kstr(j, "emulated", emulated);
    host_sensors_describe(j);
    const char *why = clock_probe_pmu_error();
    if (why[0])
        json_kstr(j, "pmu", why);
    else
        json_kstr(j, "pmu", "cycles event (user space)");
}
