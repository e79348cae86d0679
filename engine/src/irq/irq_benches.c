/* irq/<task>: a task run with and without a timer signal at --n Hz.
 *   value  R'_task - R_task (ns)
 *   raw    r_task_ns, r_prime_ns, interrupts (handler count), overruns,
 *          expirations (due by the clock over the armed window)
 * The two runs alternate order from sample to sample so that neither
 * always comes second (warmer). Caches are warm, as in seed 000's
 * interrupt experiment, which flushes nothing.
 * irq/direct: D, the direct cost of servicing one signal (irq_direct). */
#include "core/bench.h"
#include "core/clock.h"
#include "irq/irq.h"
#include "core/sched_ctl.h"
#include "tasks/task.h"
#include "core/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    task_t task;
    uint64_t ref;
    irq_timer_t timer;
    int cpu;
    uint64_t k;
} irq_state_t;

static const char *const irq_raw[] = {"r_task_ns", "r_prime_ns",  "interrupts",
                                      "overruns",  "expirations", NULL};
static const char *const direct_raw[] = {"d_ns",       "median_gap_ns", "min_step_ns",
                                         "interrupts", "dropped",       NULL};

static int irq_setup(bench_run_t *r)
{
    /* reused over groups; the small struct outlives teardown for params */
    irq_state_t *st = r->state ? r->state : calloc(1, sizeof *st);
    if (!st) {
        bench_error("out of memory");
        return -1;
    }
    r->state = st;
    st->cpu = r->opt->cpu >= 0 ? r->opt->cpu : default_cpu();
    char err[200] = "";
    r->pinned = pin_self(st->cpu, err, sizeof err) == 0;
    if (!r->pinned) bench_warn(r, "%s", err);
    const char *name = r->b->arg;
    if (name) {
        if (task_init(&st->task, name, task_scale(r->opt))) return -1;
        st->ref = task_run_all(&st->task);
    }
    return irq_timer_create(&st->timer);
}

static void irq_teardown(bench_run_t *r)
{
    irq_state_t *st = r->state;
    if (!st) return;
    irq_timer_delete(&st->timer);
    task_fini(&st->task);
}

static int timed_run(irq_state_t *st, uint64_t period, uint64_t *ns, uint64_t *exp)
{
    task_t *t = &st->task;
    t->ops->reset(t);
    irq_counts_reset();
    uint64_t a = clock_ns_id(CLOCK_MONOTONIC);
    if (period) irq_timer_arm(&st->timer, period);
    t->ops->run(t, 0, t->units);
    uint64_t e = clock_ns_id(CLOCK_MONOTONIC);
    if (period) irq_timer_arm(&st->timer, 0);
    *ns = e - a;
    *exp = period ? (e - a) / period : 0;
    uint64_t res = t->ops->result(t);
    if (res != st->ref) {
        bench_error("task %s: output checksum %016llx differs from the single-run reference %016llx",
                    t->ops->name, (unsigned long long)res, (unsigned long long)st->ref);
        return -1;
    }
    return 0;
}

static int irq_sample(bench_run_t *r, uint64_t rate, sample_t *out)
{
    irq_state_t *st = r->state;
    uint64_t period = 1000000000ull / (rate ? rate : 1);
    uint64_t plain = 0, forced = 0, e0, e1, h, o;
    int forced_first = (int)(st->k++ & 1);
    if (forced_first) {
        if (timed_run(st, period, &forced, &e1)) return -1;
        h = irq_handled();
        o = irq_overruns();
        if (timed_run(st, 0, &plain, &e0)) return -1;
    } else {
        if (timed_run(st, 0, &plain, &e0)) return -1;
        if (timed_run(st, period, &forced, &e1)) return -1;
        h = irq_handled();
        o = irq_overruns();
    }
    out->value = (double)forced - (double)plain;
    out->raw[0] = (double)plain;
    out->raw[1] = (double)forced;
    out->raw[2] = (double)h;
    out->raw[3] = (double)o;
    out->raw[4] = (double)e1;
    out->duration_ns = plain + forced;
    return 0;
}

static int direct_sample(bench_run_t *r, uint64_t n, sample_t *out)
{
    (void)r;
    (void)n;
    irq_direct_t d;
    if (irq_direct(100, 100000, &d)) return -1; /* 100 signals, 10 kHz */
    out->value = d.d_ns;
    out->raw[0] = d.d_ns;
    out->raw[1] = d.median_gap_ns;
    out->raw[2] = d.min_step_ns;
    out->raw[3] = (double)d.n;
    out->raw[4] = (double)d.dropped;
    out->duration_ns = 10000000;
    return 0;
}

static void irq_params(bench_run_t *r, json_t *j)
{
    irq_state_t *st = r->state;
    const char *name = r->b->arg;
    if (name) {
        json_kstr(j, "task", name);
        json_kint(j, "rate_hz", (int64_t)r->opt->n);
        json_knum(j, "scale", task_scale(r->opt));
    } else {
        json_kint(j, "signals", 100);
        json_kint(j, "rate_hz", 10000);
    }
    json_kint(j, "irq_cpu", st ? st->cpu : -1);
    json_kstr(j, "interrupt",
              "POSIX timer (CLOCK_MONOTONIC) -> real-time signal to this thread; "
              "the handler increments a counter");
    json_kint(j, "signal", irq_signal());
}

#define IRQ(var, name, ord)                                                                                  \
    static const bench_t var = {.id = "irq/" name,                                                           \
                                .quantity = "overhead",                                                      \
                                .unit = "ns",                                                                \
                                .doc = "R'_task - R_task with a timer signal at --n Hz (David et al. 2007)", \
                                .flags = BENCH_HIDDEN | BENCH_FIXED_N,                                       \
                                .order = ord,                                                                \
                                .raw_names = irq_raw,                                                        \
                                .setup = irq_setup,                                                          \
                                .sample = irq_sample,                                                        \
                                .teardown = irq_teardown,                                                    \
                                .params = irq_params,                                                        \
                                .arg = name,                                                                 \
                                .n0 = 1000,                                                                  \
                                .policy = POLICY_OTHER};                                                     \
    BENCH_REGISTER(var)
IRQ(irq_sort, "sort", 950);
IRQ(irq_deflate, "deflate", 951);
IRQ(irq_aes, "aes", 952);
IRQ(irq_crc, "crc", 953);

static const bench_t irq_direct_b = {.id = "irq/direct",
                                     .quantity = "cost",
                                     .unit = "ns",
                                     .doc = "D: direct cost of servicing one timer signal, mean of 100, warm",
                                     .flags = BENCH_HIDDEN | BENCH_FIXED_N,
                                     .order = 949,
                                     .raw_names = direct_raw,
                                     .setup = irq_setup,
                                     .sample = direct_sample,
                                     .teardown = irq_teardown,
                                     .params = irq_params,
                                     .arg = NULL,
                                     .n0 = 1,
                                     .policy = POLICY_OTHER};
BENCH_REGISTER(irq_direct_b);
