/* peer/ctx-clock: the method of Phoronix's ctx-clock test (Matteo Croce's
 * ctx_time), measured here so that `ctxbench peers` can set its number
 * beside ctxbench's own: the minimum, over many tries, of a timestamp
 * delta around one rejected system call, syscall(-1):
 *
 *     t0 = rdtscp; syscall(-1); t1 = rdtscp; min(t1 - t0)
 *
 * What it contains is one user-kernel round trip and one read of the
 * timestamp counter, not a switch between tasks: nothing is subtracted,
 * as the original subtracts nothing. Hidden (`list --all`): it is a peer's
 * quantity, not one of ctxbench's. Where there is no TSC (ARM) the event
 * timer stands in for rdtscp. Each sample is the minimum of n tries, in ns
 * (raw.min_ticks in the timer's own ticks, as ctx-clock prints them). */
#include "core/bench.h"
#include "core/clock.h"
#include <math.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TRIES 20000 /* per sample: the minimum settles within a few thousand */

static const char *const raw_names[] = {"min_ticks", "ticks_per_ns", NULL};

static inline uint64_t stamp(const timer_source_t *t)
{
#ifdef CTXBENCH_HAVE_TSC
    (void)t;
    return rdtscp_();
#else
    return t->read();
#endif
}

static int sample(bench_run_t *r, uint64_t n, sample_t *out)
{
    const timer_source_t *t = event_timer();
    uint64_t mn = UINT64_MAX;
    (void)r;
    uint64_t s0 = clock_ns();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = stamp(t);
        syscall(-1L);
        uint64_t b = stamp(t);
        if (b - a < mn) mn = b - a;
    }
    out->duration_ns = clock_ns() - s0;
#ifdef CTXBENCH_HAVE_TSC
    double hz = cycle_hz();
    double per_ns = hz > 0 ? hz / 1e9 : NAN;
#else
    double per_ns = t->ticks ? cycle_hz() / 1e9 : 1.0;
#endif
    out->raw[0] = (double)mn;
    out->raw[1] = per_ns;
    out->value = per_ns > 0 ? (double)mn / per_ns : NAN;
    return 0;
}

static void params(bench_run_t *r, json_t *j)
{
    (void)r;
#ifdef CTXBENCH_HAVE_TSC
    json_kstr(j, "timer", "rdtscp");
#else
    json_kstr(j, "timer", event_timer()->name);
#endif
    json_kstr(j, "syscall", "syscall(-1): rejected with ENOSYS");
    json_kstr(j, "value",
              "minimum over n tries of a timestamp delta around one system call, nothing subtracted");
}

static const bench_t b_ctx_clock = {.id = "peer/ctx-clock",
                                    .quantity = "cost",
                                    .unit = "ns",
                                    .doc = "ctx-clock's method: min of rdtscp deltas around syscall(-1)",
                                    .flags = BENCH_HIDDEN | BENCH_FIXED_N,
                                    .order = 900,
                                    .raw_names = raw_names,
                                    .sample = sample,
                                    .params = params,
                                    .n0 = TRIES};
BENCH_REGISTER(b_ctx_clock);
