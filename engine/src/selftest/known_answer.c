/* test/busywait/<d>: a known-answer mechanism for the harness. Its
 * "message" is a busy wait of M ns and its "switch" one of d ns, so that
 *   t_single = n*(2M)   and   t_switch = n*2*(2M + d)
 * and the harness's formula must give back d.
 *
 * The waits are calibrated against the sample clock by chaining deadlines:
 * each wait ends at the previous deadline plus its length, so the cost of
 * reading the clock and of calling the wait is absorbed instead of added,
 * and a run lasts its intended time plus one overshoot. What the test then
 * checks is the harness: adaptive n, the formula, the statistics and the
 * output path. Hidden from the suites. */
#include "core/bench.h"
#include "core/clock.h"
#include "core/pp_formula.h"
#include "core/verify.h"
#include <math.h>
#include <stdlib.h>

#define MSG_NS 100.0

static double deadline;

static inline void wait_ns(double ns)
{
    deadline += ns;
    while ((double)clock_ns() < deadline) {
    }
}

static int sample(bench_run_t *r, uint64_t n, sample_t *out)
{
    double d = (double)(uintptr_t)r->b->arg;
    party_counts_t c0, c1, c2, x;
    party_counts_read(0, 0, &c0);
    uint64_t t0 = clock_ns();
    deadline = (double)t0;
    for (uint64_t i = 0; i < n; i++) {
        wait_ns(MSG_NS);
        wait_ns(MSG_NS);
    }
    uint64_t t1 = clock_ns();
    party_counts_read(0, 0, &c1);
    uint64_t t1b = clock_ns();
    deadline = (double)t1b;
    for (uint64_t i = 0; i < n; i++) {
        wait_ns(MSG_NS);
        wait_ns(d); /* A sends, switch to B */
        wait_ns(MSG_NS);
        wait_ns(MSG_NS); /* B receives and sends */
        wait_ns(d);
        wait_ns(MSG_NS); /* switch to A, A receives */
    }
    uint64_t t2 = clock_ns();
    party_counts_read(0, 0, &c2);
    /* Nothing here enters the scheduler: a switch means somebody else ran. */
    party_counts_t sw = party_counts_delta(&c1, &c2);
    x = party_counts_delta(&c0, &c1);
    pp_formula_sample(out, n, t1 - t0, t2 - t1b, 0, &sw, 1, &x);
    return 0;
}

static void params(bench_run_t *r, json_t *j)
{
    json_knum(j, "injected_ns", (double)(uintptr_t)r->b->arg);
    json_knum(j, "message_ns", MSG_NS);
}

static const char *const raw_names[] = {"t_single_ns", "t_switch_ns", NULL};

#define BUSY(var, idstr, d)                                                                                  \
    static const bench_t var = {.id = idstr,                                                                 \
                                .quantity = "switch",                                                        \
                                .unit = "ns",                                                                \
                                .doc = "test only: injected busy wait of " #d " ns per switch",              \
                                .flags = BENCH_HIDDEN,                                                       \
                                .order = 900,                                                                \
                                .raw_names = raw_names,                                                      \
                                .sample = sample,                                                            \
                                .params = params,                                                            \
                                .arg = (const void *)(uintptr_t)d,                                           \
                                .n0 = 16};                                                                   \
    BENCH_REGISTER(var)

BUSY(busy200, "test/busywait/200", 200);
BUSY(busy2000, "test/busywait/2000", 2000);
BUSY(busy20000, "test/busywait/20000", 20000);
