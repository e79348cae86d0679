/* baseline/<nop|call|syscall>: the cost of a NOP, an empty function call
 * and a real system call, each timed as single events between two reads of
 * the event timer (Lopes and Maity), with the timer's own back-to-back cost
 * measured in the same sample and subtracted; plus the same events timed as
 * one batch, where the timer's cost vanishes in the division. Hidden:
 * baseline/syscall-enosys, the rejected call ctx-clock times (peers). */
#include "core/bench.h"
#include "core/clock.h"
#include "core/host_sensors.h"
#include <math.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EVENTS 1000

static const char *const raw_names[] = {"mean_raw_ns",  "min_raw_ns", "min_ns", "timer_mean_ns",
                                        "timer_min_ns", "batch_ns",   NULL};

__attribute__((noinline)) static void empty_fn(void)
{
    __asm__ __volatile__("");
}
static void (*volatile empty_ptr)(void) = empty_fn; /* volatile: the call cannot be inlined away */
static void ev_call(void)
{
    empty_ptr();
}
static void ev_syscall(void)
{
    syscall(SYS_getpid);
} /* never libc's cached getpid */
static void ev_enosys(void)
{
    syscall(REJECTED_SYSCALL);
} /* rejected before the kernel's syscall table: ctx-clock's call (peers); 32-bit ARM's SIGILL'd -1 */

/* The event is expanded inline between the two timer reads, so the NOP is
 * one instruction there, not a call. */
#define TIME_EVENTS(EV)                                                                                      \
    for (int i = 0; i < EVENTS; i++) {                                                                       \
        uint64_t a = t->read();                                                                              \
        uint64_t b = t->read();                                                                              \
        uint64_t c = t->read();                                                                              \
        EV;                                                                                                  \
        uint64_t d = t->read();                                                                              \
        uint64_t e = b - a, x = d - c;                                                                       \
        te += e;                                                                                             \
        tx += x;                                                                                             \
        if (e < emin) emin = e;                                                                              \
        if (x < xmin) xmin = x;                                                                              \
    }                                                                                                        \
    uint64_t b0 = t->read();                                                                                 \
    for (int i = 0; i < EVENTS; i++) {                                                                       \
        EV;                                                                                                  \
    }                                                                                                        \
    uint64_t b1 = t->read();

static int sample_common(bench_run_t *r, sample_t *out, int which)
{
    const timer_source_t *t = event_timer();
    uint64_t te = 0, tx = 0, emin = UINT64_MAX, xmin = UINT64_MAX;
    uint64_t s0 = clock_ns();
    (void)r;
    if (which == 0) {
        TIME_EVENTS(__asm__ __volatile__("nop"))
        out->raw[5] = event_ticks_to_ns(b1 - b0) / EVENTS;
    } else if (which == 1) {
        TIME_EVENTS(ev_call())
        out->raw[5] = event_ticks_to_ns(b1 - b0) / EVENTS;
    } else if (which == 2) {
        TIME_EVENTS(ev_syscall())
        out->raw[5] = event_ticks_to_ns(b1 - b0) / EVENTS;
    } else {
        TIME_EVENTS(ev_enosys())
        out->raw[5] = event_ticks_to_ns(b1 - b0) / EVENTS;
    }
    out->duration_ns = clock_ns() - s0;
    double mean_raw = event_ticks_to_ns(tx) / EVENTS, timer_mean = event_ticks_to_ns(te) / EVENTS;
    out->raw[0] = mean_raw;
    out->raw[1] = event_ticks_to_ns(xmin);
    out->raw[2] = event_ticks_to_ns(xmin) - event_ticks_to_ns(emin);
    out->raw[3] = timer_mean;
    out->raw[4] = event_ticks_to_ns(emin);
    out->value = mean_raw - timer_mean; /* may be negative: reported as it is */
    return 0;
}

static int s_nop(bench_run_t *r, uint64_t n, sample_t *o)
{
    (void)n;
    return sample_common(r, o, 0);
}
static int s_call(bench_run_t *r, uint64_t n, sample_t *o)
{
    (void)n;
    return sample_common(r, o, 1);
}
static int s_sys(bench_run_t *r, uint64_t n, sample_t *o)
{
    (void)n;
    return sample_common(r, o, 2);
}

static int s_enosys(bench_run_t *r, uint64_t n, sample_t *o)
{
    (void)n;
    return sample_common(r, o, 3);
}

static void params(bench_run_t *r, json_t *j)
{
    (void)r;
    json_kstr(j, "timer", event_timer()->name);
    json_kint(j, "events_per_sample", EVENTS);
    json_kstr(j, "value", "mean per event, timer overhead subtracted (raw.mean_raw_ns without)");
}

#define BASE_BENCH(var, idstr, fn, ord, docstr, fl)                                                          \
    static const bench_t var = {.id = idstr,                                                                 \
                                .quantity = "cost",                                                          \
                                .unit = "ns",                                                                \
                                .doc = docstr,                                                               \
                                .flags = (fl) | BENCH_FIXED_N,                                               \
                                .order = ord,                                                                \
                                .raw_names = raw_names,                                                      \
                                .sample = fn,                                                                \
                                .params = params,                                                            \
                                .n0 = EVENTS};                                                               \
    BENCH_REGISTER(var)

#define SUITES (BENCH_DEFAULT | BENCH_QUICK)
BASE_BENCH(b_nop, "baseline/nop", s_nop, 200, "one NOP instruction", SUITES);
BASE_BENCH(b_call, "baseline/call", s_call, 201, "an empty function call (not inlined)", SUITES);
BASE_BENCH(b_sys, "baseline/syscall", s_sys, 202, "a real system call: syscall(SYS_getpid)", SUITES);
/* Hidden (`list --all`): what `ctxbench peers` needs to explain ctx-clock's
 * number, which times syscall(-1); getpid minus this is the dispatch of a
 * real call (the syscall table, and the mitigations around its indirect call). */
BASE_BENCH(b_enosys, "baseline/syscall-enosys", s_enosys, 203,
           "a rejected system call: syscall(-1), ENOSYS before the syscall table", BENCH_HIDDEN);
