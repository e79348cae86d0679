/* test/busywait/<d>: a known-answer mechanism for the harness. Its "message"
 * is a calibrated busy wait of M ns and its "switch" one of d ns, so that
 *   t_single = n*(2M)   and   t_switch = n*2*(2M + d)
 * and the harness's formula must give back d. Hidden from the suites. */
#include "bench.h"
#include "clock.h"
#include <math.h>
#include <stdlib.h>

#define MSG_NS 100.0

static double loops_per_ns;

__attribute__((noinline)) static void spin_loops(uint64_t k)
{
    for (uint64_t i = 0; i < k; i++) __asm__ __volatile__("" ::: "memory");
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Loops per ns: median of 9 rounds of 2^22 loops. */
static int setup(bench_run_t *r)
{
    (void)r;
    if (loops_per_ns > 0) return 0;
    double v[9];
    const uint64_t k = 1ull << 22;
    spin_loops(k);
    for (int i = 0; i < 9; i++) {
        uint64_t t0 = clock_ns();
        spin_loops(k);
        v[i] = (double)k / (double)(clock_ns() - t0);
    }
    qsort(v, 9, sizeof *v, cmpd);
    loops_per_ns = v[4];
    return 0;
}

static void wait_ns(double ns) { spin_loops((uint64_t)llround(ns * loops_per_ns)); }

static int sample(bench_run_t *r, uint64_t n, sample_t *out)
{
    double d = (double)(uintptr_t)r->b->arg;
    uint64_t t0 = clock_ns();
    for (uint64_t i = 0; i < n; i++) { wait_ns(MSG_NS); wait_ns(MSG_NS); }
    uint64_t t1 = clock_ns();
    for (uint64_t i = 0; i < n; i++) {
        wait_ns(MSG_NS); wait_ns(d);          /* A sends, switch to B */
        wait_ns(MSG_NS); wait_ns(MSG_NS);     /* B receives and sends */
        wait_ns(d); wait_ns(MSG_NS);          /* switch to A, A receives */
    }
    uint64_t t2 = clock_ns();
    out->raw[0] = (double)(t1 - t0);
    out->raw[1] = (double)(t2 - t1);
    out->value = (out->raw[1] / 2.0 - out->raw[0]) / (double)n;
    out->duration_ns = t2 - t1;
    return 0;
}

static void params(bench_run_t *r, json_t *j)
{
    json_knum(j, "injected_ns", (double)(uintptr_t)r->b->arg);
    json_knum(j, "loops_per_ns", loops_per_ns);
}

static const char *const raw_names[] = {"t_single_ns", "t_switch_ns", NULL};

#define BUSY(var, idstr, d)                                                                              \
    static const bench_t var = {.id = idstr, .quantity = "switch", .unit = "ns",                        \
                                .doc = "test only: injected busy wait of " #d " ns per switch",          \
                                .flags = BENCH_HIDDEN, .order = 900, .raw_names = raw_names,            \
                                .setup = setup, .sample = sample, .params = params,                     \
                                .arg = (const void *)(uintptr_t)d, .n0 = 16};                           \
    BENCH_REGISTER(var)

BUSY(busy200, "test/busywait/200", 200);
BUSY(busy2000, "test/busywait/2000", 2000);
BUSY(busy20000, "test/busywait/20000", 20000);
