/* irq/<task>: a task run with and without a timer signal at --n Hz.
 *   value  R'_task - R_task (ns)
 *   raw    r_task_ns, r_prime_ns, interrupts (handler count), overruns,
 *          expirations (due by the clock over the armed window)
 * The two runs alternate order from sample to sample so that neither
 * always comes second (warmer). Caches are warm, as in David et al.'s
 * interrupt experiment, which flushes nothing.
 *
 * Both runs are also timed chunk by chunk (core/chunks.h), with the
 * handler's count read after every chunk: the chunks of the run with the
 * timer are paired with the same chunks of the run without it, per signal
 * (from the chunk it landed in to the chunk before the next one's), and the
 * reduction is kept for the id's `chunks` record: the indirect cost of an
 * interrupt measured where it is paid (docs/irq.md).
 * irq/direct: D, the direct cost of servicing one signal (irq_direct). */
#include "core/bench.h"
#include "core/chunks.h"
#include "core/clock_probe.h"
#include "core/clock.h"
#include "irq/irq.h"
#include "core/sched_ctl.h"
#include "tasks/task.h"
#include "core/util.h"
#include "core/verify.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    task_t task;
    uint32_t *dur[2]; /* chunk durations: [0] without the timer, [1] with it */
    uint8_t *hit;     /* signals counted during each chunk of the run with the timer */
    uint64_t ref;
    irq_timer_t timer;
    int cpu;
    uint64_t k;     /* samples in this group (the warm-up one included) */
    uint64_t round; /* setups so far: rotates the rates from group to group */
} irq_state_t;

static const char *const irq_raw[] = {"rate_hz",   "r_task_ns",       "r_prime_ns", "interrupts",
                                      "overruns",  "expirations",     "d_ns",       "d_dropped",
                                      "waited_ns", "waited_prime_ns", "switches",   "switches_prime",
                                      "clock_ns",  "clock_prime_ns",  NULL};
static const char *const direct_raw[] = {"d_ns",       "median_gap_ns", "min_step_ns",
                                         "interrupts", "dropped",       NULL};

/* spin: a loop in registers that touches no memory, the workload of
 * irq/spin: interrupted, it pays the direct cost of each signal and no
 * indirect one (nothing of its own to evict or refill), so the slope of
 * its R' - R over k is D measured exactly as the tasks' slopes are. */
#define SPIN_UNITS 32000 /* x 2^10 steps (one chunk: about a µs): about 30 ms at scale 1 */
#define SPIN_CHUNK 1024
static int spin_init(task_t *t)
{
    t->units = (size_t)(SPIN_UNITS * t->scale) + 1;
    snprintf(t->chunk, sizeof t->chunk, "%d xorshift steps", SPIN_CHUNK);
    return 0;
}
static void spin_reset(task_t *t)
{
    t->detail = (size_t)0x9E3779B97F4A7C15ull; /* the state carried from chunk to chunk */
}
static void spin_run(task_t *t, size_t u0, size_t u1)
{
    uint64_t x = t->detail;
    for (size_t u = u0; u < u1; u++)
        for (int i = 0; i < SPIN_CHUNK; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
    t->detail = (size_t)x;
}
static uint64_t spin_result(task_t *t)
{
    return t->detail;
}
static void spin_corrupt(task_t *t)
{
    (void)t;
}
static const task_ops_t spin_ops = {"spin",
                                    "xorshift in registers, no memory",
                                    spin_init,
                                    spin_reset,
                                    spin_run,
                                    spin_result,
                                    spin_corrupt,
                                    NULL,
                                    1};

static int irq_setup(bench_run_t *r)
{
    /* reused over groups; the small struct outlives teardown for params */
    irq_state_t *st = r->state ? r->state : calloc(1, sizeof *st);
    if (!st) {
        bench_error("out of memory");
        return -1;
    }
    r->state = st;
    st->k = 0;
    st->round++;
    irq_set_burn(r->opt->irq_burn_ns);
    st->cpu = r->opt->cpu >= 0 ? r->opt->cpu : default_cpu();
    char err[200] = "";
    r->pinned = pin_self(st->cpu, err, sizeof err) == 0;
    if (!r->pinned) bench_warn(r, "%s", err);
    const char *name = r->b->arg;
    if (name && !strcmp(name, "spin")) {
        memset(&st->task, 0, sizeof st->task);
        st->task.ops = &spin_ops;
        st->task.scale = task_scale(r->opt);
        spin_init(&st->task);
        spin_reset(&st->task);
        spin_run(&st->task, 0, st->task.units);
        st->ref = spin_result(&st->task);
    } else if (name) {
        if (task_init(&st->task, name, task_scale(r->opt), 0)) return -1;
        if ((double)st->task.units * (2 * sizeof(uint32_t) + 1) > (double)CHUNK_MEMORY_MAX) {
            bench_error("the chunk times of %zu chunks need more than %.0f GiB: a smaller --task-scale",
                        st->task.units, (double)CHUNK_MEMORY_MAX / (1 << 30));
            return -1; /* before the reference: a size refused at once */
        }
        st->ref = task_run_all(&st->task);
    }
    if (name) {
        size_t u = st->task.units;
        st->dur[0] = calloc(u, sizeof(uint32_t));
        st->dur[1] = calloc(u, sizeof(uint32_t));
        st->hit = calloc(u, 1);
        if (!st->dur[0] || !st->dur[1] || !st->hit) {
            bench_error("out of memory (chunk times of %zu chunks)", u);
            return -1;
        }
        memset(st->dur[0], 0, u * sizeof(uint32_t)); /* their pages exist before any timed run */
        memset(st->dur[1], 0, u * sizeof(uint32_t));
        memset(st->hit, 0, u); /* written in the run with the timer: a fault there would be its cost */
    }
    return irq_timer_create(&st->timer);
}

static void irq_teardown(bench_run_t *r)
{
    irq_state_t *st = r->state;
    if (!st) return;
    irq_timer_delete(&st->timer);
    task_fini(&st->task);
    free(st->dur[0]);
    free(st->dur[1]);
    free(st->hit);
    st->dur[0] = st->dur[1] = NULL;
    st->hit = NULL;
}

/* This thread's run delay (ns spent runnable but not running, i.e. another
 * task had the CPU), from /proc/thread-self/schedstat; -1 if unreadable. */
static int64_t run_delay_ns(void)
{
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (!f) return -1;
    unsigned long long exec, delay;
    int ok = fscanf(f, "%llu %llu", &exec, &delay) == 2;
    fclose(f);
    return ok ? (int64_t)delay : -1;
}

/* One run of the task, timed. A signal switches nothing, so a switch of
 * this thread is another task taking the CPU: `pc` counts them, and the
 * time the thread waited for the CPU meanwhile (run delay) is taken out of
 * the run's time (`*waited`), which then holds the task and every
 * interrupt it took, and not the other tasks' time slices. */
static int timed_run(irq_state_t *st, uint64_t period, uint64_t *ns, uint64_t *exp, party_counts_t *pc,
                     int64_t *waited)
{
    task_t *t = &st->task;
    t->ops->reset(t);
    irq_counts_reset();
    party_counts_t before, after;
    party_counts_read(0, 0, &before);
    int64_t w0 = run_delay_ns();
    uint32_t *dur = st->dur[period != 0];
    uint8_t *hit = st->hit;
    uint64_t a = clock_ns_id(CLOCK_MONOTONIC);
    if (period) irq_timer_arm(&st->timer, period);
    /* chunk by chunk; the handler's count is read in both runs, so that
     * the two time the same code */
    uint64_t c = chunk_clock(), h = irq_handled();
    for (size_t u = 0; u < t->units; u++) {
        t->ops->run(t, u, u + 1);
        uint64_t c2 = chunk_clock(), h2 = irq_handled();
        dur[u] = chunk_ticks(c, c2);
        if (period) hit[u] = (uint8_t)(h2 - h > 255 ? 255 : h2 - h);
        c = c2;
        h = h2;
    }
    uint64_t e = clock_ns_id(CLOCK_MONOTONIC);
    if (period) irq_timer_arm(&st->timer, 0);
    int64_t w1 = run_delay_ns();
    party_counts_read(0, 0, &after);
    *pc = party_counts_delta(&before, &after);
    *waited = (w0 >= 0 && w1 >= w0 && (uint64_t)(w1 - w0) < e - a) ? w1 - w0 : (w0 < 0 ? -1 : 0);
    *ns = e - a - (uint64_t)(*waited > 0 ? *waited : 0);
    *exp = period ? (e - a) / period : 0;
    uint64_t res = t->ops->result(t);
    if (res != st->ref) {
        bench_error("task %s: output checksum %016llx differs from the single-run reference %016llx",
                    t->ops->name, (unsigned long long)res, (unsigned long long)st->ref);
        return -1;
    }
    return 0;
}

/* The rate of this sample: --n-list in turn, the list rotated by one per
 * group so that no rate always comes first after the warm-up sample
 * (the harness's warm-up sample takes the first slot of each group). */
static uint64_t sample_rate(const bench_run_t *r, irq_state_t *st, int *idx)
{
    const run_opts_t *o = r->opt;
    if (!o->n_count) {
        *idx = (int)(st->k & 1);
        return o->n ? o->n : 1;
    }
    *idx = (int)((st->k + st->round) % (uint64_t)o->n_count);
    return o->n_list[*idx];
}

/* D's loop: 100 signals, 10 kHz, or slower if the handler burns (known
 * answer), so that a signal is never due while the last is handled. */
static uint64_t direct_period(const run_opts_t *o)
{
    uint64_t p = 100000, b = 4 * o->irq_burn_ns;
    return b > p ? b : p;
}

/* One sample: the task without and with the timer at this sample's rate
 * (paired, order alternating by rate and group), then D by the gap loop
 * right after, so that D is measured as often as the runs, in the same
 * state of the machine, and resamples with them. */
/* The run with the timer paired with the run without it, chunk by chunk,
 * per signal: an event from the chunk a signal landed in to the chunk
 * before the next signal's (core/chunks.h). A chunk two signals landed in
 * starts no event (counted in multi_events). Kept in the job's log. */
static int reduce_sample(bench_run_t *r, irq_state_t *st, uint64_t rate, int64_t index)
{
    size_t units = st->task.units, m = 0, multi = 0;
    chunk_event_t *ev = malloc((units ? units : 1) * sizeof *ev);
    if (!ev) {
        bench_error("out of memory (chunk events)");
        return -1;
    }
    size_t last = units; /* the chunk of the event open, or none */
    for (size_t u = 0; u <= units; u++) {
        if (u < units && !st->hit[u]) continue;
        if (last < units) ev[m++] = (chunk_event_t){last, u - last, -1};
        last = u;
        if (u < units && st->hit[u] > 1) {
            multi++;
            last = units; /* not an event of one signal */
        }
    }
    chunk_rec_t rec;
    memset(&rec, 0, sizeof rec);
    rec.group = r->group;
    rec.key = (int64_t)rate;
    rec.aux = index;
    rec.roles = 1;
    int rc = chunk_reduce(st->dur[1], st->dur[0], units, ev, m, chunk_window_of(r->opt), &rec.s[0]);
    free(ev);
    rec.s[0].multi_events = multi;
    if (!rc) rc = chunk_log_add(&r->job_state, &rec);
    return rc;
}

static int irq_sample(bench_run_t *r, uint64_t n, sample_t *out)
{
    (void)n;
    irq_state_t *st = r->state;
    int idx;
    uint64_t rate = sample_rate(r, st, &idx);
    uint64_t period = 1000000000ull / rate;
    uint64_t plain = 0, forced = 0, e0, e1, h, o;
    party_counts_t c0, c1;
    int64_t w0, w1;
    int forced_first = (int)((st->round ^ (uint64_t)idx) & 1);
    int64_t index = (int64_t)st->k; /* 0: the group's warm-up sample, not kept */
    st->k++;
    /* the core clock beside each run (core/clock_probe.h): a reading before,
     * between and after, so that a clock that moves between the plain and
     * the forced run is taken out of R' - R in cycles */
    double p0 = clock_probe_quick(st->cpu), p1, p2;
    if (forced_first) {
        if (timed_run(st, period, &forced, &e1, &c1, &w1)) return -1;
        h = irq_handled();
        o = irq_overruns();
        p1 = clock_probe_quick(st->cpu);
        if (timed_run(st, 0, &plain, &e0, &c0, &w0)) return -1;
    } else {
        if (timed_run(st, 0, &plain, &e0, &c0, &w0)) return -1;
        p1 = clock_probe_quick(st->cpu);
        if (timed_run(st, period, &forced, &e1, &c1, &w1)) return -1;
        h = irq_handled();
        o = irq_overruns();
    }
    p2 = clock_probe_quick(st->cpu);
    if (index > 0 && r->group >= 0 && reduce_sample(r, st, rate, index - 1)) return -1;
    irq_direct_t d;
    if (irq_direct(100, direct_period(r->opt), &d)) return -1;
    out->value = (double)forced - (double)plain;
    out->raw[0] = (double)rate;
    out->raw[1] = (double)plain;
    out->raw[2] = (double)forced;
    out->raw[3] = (double)h;
    out->raw[4] = (double)o;
    out->raw[5] = (double)e1;
    out->raw[6] = d.d_ns;
    out->raw[7] = (double)d.dropped;
    out->raw[8] = (double)w0; /* -1: run delay unreadable, times not corrected */
    out->raw[9] = (double)w1;
    out->raw[10] = (double)(c0.involuntary + c0.voluntary);
    out->raw[11] = (double)(c1.involuntary + c1.voluntary);
    out->raw[12] =
        forced_first ? (p1 + p2) / 2 : (p0 + p1) / 2; /* ns for PROBE_OPS adds, beside the plain run */
    out->raw[13] = forced_first ? (p0 + p1) / 2 : (p1 + p2) / 2; /* ... beside the forced run */
    out->duration_ns = plain + forced;
    return 0;
}

static int direct_sample(bench_run_t *r, uint64_t n, sample_t *out)
{
    (void)n;
    irq_direct_t d;
    if (irq_direct(100, direct_period(r->opt), &d)) return -1; /* 100 signals, 10 kHz */
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
        /* rate_hz: the first rate (each sample's own is raw.rate_hz) */
        json_kint(j, "rate_hz", (int64_t)(r->opt->n_count ? r->opt->n_list[0] : r->opt->n));
        if (r->opt->n_count) {
            json_key(j, "rates_hz");
            json_arr_begin(j);
            for (int i = 0; i < r->opt->n_count; i++) json_int(j, (int64_t)r->opt->n_list[i]);
            json_arr_end(j);
        }
        json_knum(j, "scale", task_scale(r->opt));
        if (st && st->task.chunk[0]) json_kstr(j, "chunk", st->task.chunk);
        if (st) json_kint(j, "units", (int64_t)st->task.units);
    } else {
        json_kint(j, "signals", 100);
        json_kint(j, "rate_hz", (int64_t)(1000000000ull / direct_period(r->opt)));
    }
    json_kint(j, "burn_ns", (int64_t)r->opt->irq_burn_ns);
    json_kint(j, "irq_cpu", st ? st->cpu : -1);
    json_kstr(j, "interrupt",
              "POSIX timer (CLOCK_MONOTONIC) -> real-time signal to this thread; "
              "the handler increments a counter");
    json_kint(j, "signal", irq_signal());
}

static void irq_extra(bench_run_t *r, json_t *j)
{
    const char *name = r->b->arg;
    static const char *const roles[2] = {"task", ""};
    const char *const tasks[2] = {name, ""};
    chunk_log_json(j, r->job_state, "rate_hz", roles, tasks, chunk_window_of(r->opt));
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
                                .extra = irq_extra,                                                          \
                                .arg = name,                                                                 \
                                .n0 = 1000,                                                                  \
                                .policy = POLICY_OTHER};                                                     \
    BENCH_REGISTER(var)
IRQ(irq_sort, "sort", 950);
IRQ(irq_deflate, "deflate", 951);
IRQ(irq_aes, "aes", 952);
IRQ(irq_crc, "crc", 953);
IRQ(irq_spin, "spin", 954);

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
