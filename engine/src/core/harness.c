#include "core/harness.h"
#include "core/placement.h"
#include <alloca.h>
#include "core/clock.h"
#include "core/clock_probe.h"
#include "core/reap.h"
#include "core/sched_ctl.h"
#include "core/settle.h"
#include "core/util.h"
#include "core/verify.h"
#include <math.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char last_error[512];

void bench_warn(bench_run_t *r, const char *fmt, ...)
{
    if (r->nwarnings >= MAX_WARNINGS) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->warnings[r->nwarnings], sizeof r->warnings[0], fmt, ap);
    va_end(ap);
    for (int i = 0; i < r->nwarnings; i++)
        if (!strcmp(r->warnings[i], r->warnings[r->nwarnings])) return; /* once */
    r->nwarnings++;
}

void bench_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

const char *bench_last_error(void)
{
    return last_error[0] ? last_error : "unknown error";
}

void *bench_state_new(bench_run_t *r, size_t size)
{
    r->state = calloc(1, size);
    if (!r->state) bench_error("out of memory");
    return r->state;
}

void run_opts_default(run_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->groups = 20; /* Chen et al.: 20 groups x 10 iterations */
    o->iterations = 10;
    o->min_sample_ns = 1000000; /* 1 ms: >= 1000x the resolution of every timer here */
    o->cpu = -1;
    o->cpu2 = -1;
    o->warmup_ms = 300;
    o->fifo_prio = 10;
}

void harness_warmup(const run_opts_t *opt)
{
    static int done;
    if (done || opt->warmup_ms <= 0) return;
    done = 1;
    spin_ms((unsigned)opt->warmup_ms);
}

typedef struct {
    sample_t *s;
    int *group;
    size_t n, cap;
} samples_t;

static int push(samples_t *v, const sample_t *s, int g)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 256;
        sample_t *ns = realloc(v->s, cap * sizeof *ns);
        int *ng = realloc(v->group, cap * sizeof *ng);
        if (!ns || !ng) {
            free(ns);
            free(ng);
            return -1;
        }
        v->s = ns;
        v->group = ng;
        v->cap = cap;
    }
    v->s[v->n] = *s;
    v->group[v->n] = g;
    v->n++;
    return 0;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A short engine-side summary (min, median, mean) so that a results file
 * written on a board is readable as it is, and the engine's human output;
 * the front end recomputes the full statistics from the samples. */
static engine_summary_t summarize(const samples_t *v)
{
    engine_summary_t s = {v->n, NAN, NAN, NAN};
    if (!v->n) return s;
    double *x = malloc(v->n * sizeof *x);
    if (!x) return s;
    double sum = 0;
    for (size_t i = 0; i < v->n; i++) {
        x[i] = v->s[i].value;
        sum += x[i];
    }
    qsort(x, v->n, sizeof *x, cmpd);
    s.min = x[0];
    s.median = v->n % 2 ? x[v->n / 2] : (x[v->n / 2 - 1] + x[v->n / 2]) / 2;
    s.mean = sum / (double)v->n;
    free(x);
    return s;
}

static void short_summary(json_t *j, const samples_t *v)
{
    engine_summary_t s = summarize(v);
    json_key(j, "engine_summary");
    json_obj_begin(j);
    json_kint(j, "n", (int64_t)s.n);
    json_knum(j, "min", s.min);
    json_knum(j, "median", s.median);
    json_knum(j, "mean", s.mean);
    json_obj_end(j);
}

static void verify_arrays(json_t *j, const samples_t *v)
{
    static const char *names[] = {
        "expected_voluntary", "voluntary",         "involuntary", "migrations", "single_voluntary",
        "single_involuntary", "single_migrations", "runtime_ns",  "window_ns",  "others_runnable"};
    json_key(j, "verify");
    json_obj_begin(j);
    json_kstr(j, "source", verify_source());
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        json_key(j, names[k]);
        json_arr_begin(j);
        for (size_t i = 0; i < v->n; i++) {
            const verify_counts_t *c = &v->s[i].v;
            const int64_t f[] = {c->expected_voluntary, c->voluntary,        c->involuntary,
                                 c->migrations,         c->single_voluntary, c->single_involuntary,
                                 c->single_migrations,  c->runtime_ns,       c->window_ns,
                                 c->others_runnable};
            if (f[k] < 0)
                json_null(j);
            else
                json_int(j, f[k]);
        }
        json_arr_end(j);
    }
    json_obj_end(j);
}

/* Pick n so that a sample lasts at least min_sample_ns (doubling from n0).
 * Bounded in count and time. */
static int adapt_n(bench_run_t *r, uint64_t *n_out)
{
    const bench_t *b = r->b;
    uint64_t n = b->n0 ? b->n0 : 1;
    /* With a working set one round trip can take milliseconds: start from 1. */
    if (r->opt->size && r->opt->stride) n = 1;
    if (r->opt->n || (b->flags & BENCH_FIXED_N)) {
        *n_out = r->opt->n ? r->opt->n : n;
        return 0;
    }
    uint64_t t_end = clock_ns() + 10ull * 1000000000ull;
    for (int k = 0; k < 40; k++) {
        sample_t s;
        memset(&s, 0, sizeof s);
        if (b->sample(r, n, &s)) return -1;
        if (s.duration_ns >= r->opt->min_sample_ns || clock_ns() > t_end || n >= (1ull << 32)) break;
        double f = s.duration_ns ? (double)r->opt->min_sample_ns / (double)s.duration_ns : 16;
        n = (uint64_t)ceil((double)n * (f > 16 ? 16 : f < 2 ? 2 : f * 1.1));
    }
    *n_out = n;
    return 0;
}

/* Per group: how long the CPU took to be quiet before the group began. */
static void settle_arrays(json_t *j, const settle_t *st, int groups, const run_opts_t *o)
{
    json_key(j, "settle");
    json_obj_begin(j);
    json_kint(j, "window_ns", (int64_t)o->settle_ns);
    json_kint(j, "gap_ns", (int64_t)SETTLE_GAP_NS);
    json_kint(j, "limit_ns", (int64_t)(SETTLE_LIMIT * o->settle_ns));
    static const char *names[] = {"started_ns", "waited_ns", "switches", "gaps", "quiet"};
    for (int k = 0; k < 5; k++) {
        json_key(j, names[k]);
        json_arr_begin(j);
        for (int g = 0; g < groups; g++) {
            const settle_t *x = &st[g];
            const int64_t f[] = {(int64_t)x->started_ns, (int64_t)x->waited_ns, x->switches, x->gaps,
                                 x->quiet};
            if (k == 4)
                json_bool(j, x->quiet);
            else
                json_int(j, f[k]);
        }
        json_arr_end(j);
    }
    json_obj_end(j);
}

/* Per group: the core-clock probe's readings before its setup and after
 * its teardown (core/clock_probe.h), for the front end to turn each
 * sample's ns into core cycles, and the host's sensors beside them
 * (core/host_sensors.h). */
#define PROBE_ARRAYS 19
static void probe_values(const clock_probe_t *b, const clock_probe_t *a, int g, double *f)
{
    const host_sensors_t *sb = &b->sensors, *sa = &a->sensors;
    const double v[PROBE_ARRAYS] = {g,
                                    b->add_ns,
                                    a->add_ns,
                                    b->check_ns,
                                    a->check_ns,
                                    b->walk_ns,
                                    a->walk_ns,
                                    (b->pmu_cycles_per_op + a->pmu_cycles_per_op) / 2,
                                    b->cpu, /* NAN: null */
                                    sb->syscall_ns,
                                    sa->syscall_ns,
                                    sb->steal_ms,
                                    sa->steal_ms,
                                    sb->own_total_ms,
                                    sa->own_total_ms,
                                    sb->others_busy_ms,
                                    sa->others_busy_ms,
                                    sb->others_total_ms,
                                    sa->others_total_ms};
    memcpy(f, v, sizeof v);
}

static void probe_arrays(json_t *j, const clock_probe_t *pr, int groups)
{
    json_key(j, "clock_probe");
    json_obj_begin(j);
    clock_probe_describe(j);
    static const char *names[PROBE_ARRAYS] = {"group",
                                              "before_ns",
                                              "after_ns",
                                              "check_before_ns",
                                              "check_after_ns",
                                              "walk_before_ns",
                                              "walk_after_ns",
                                              "pmu_cycles_per_op",
                                              "cpu",
                                              "syscall_before_ns",
                                              "syscall_after_ns",
                                              "steal_before_ms",
                                              "steal_after_ms",
                                              "own_total_before_ms",
                                              "own_total_after_ms",
                                              "others_busy_before_ms",
                                              "others_busy_after_ms",
                                              "others_total_before_ms",
                                              "others_total_after_ms"};
    for (int k = 0; k < PROBE_ARRAYS; k++) {
        json_key(j, names[k]);
        json_arr_begin(j);
        for (int g = 0; g < groups; g++) {
            const clock_probe_t *b = &pr[2 * g], *a = &pr[2 * g + 1];
            double f[PROBE_ARRAYS];
            if (!(b->add_ns > 0)) continue; /* a group that never ran */
            probe_values(b, a, g, f);
            if (k == 0 || k == 8)
                json_int(j, (int64_t)f[k]);
            else
                json_num(j, f[k]);
        }
        json_arr_end(j);
    }
    json_obj_end(j);
}

static void emit(json_t *j, bench_run_t *r, const samples_t *v, uint64_t n, const settle_t *st,
                 const clock_probe_t *probes)
{
    const bench_t *b = r->b;
    const run_opts_t *o = r->opt;
    json_obj_begin(j);
    json_kstr(j, "id", b->id);
    json_kstr(j, "quantity", b->quantity);
    json_kstr(j, "unit", b->unit);
    json_kstr(j, "doc", b->doc);
    json_key(j, "params");
    json_obj_begin(j);
    json_kstr(j, "policy", policy_name(r->policy_obtained));
    json_kstr(j, "policy_requested", policy_name(b->policy));
    json_kint(j, "cpu", o->cpu);
    json_kbool(j, "pinned", r->pinned);
    json_kint(j, "n", (int64_t)n);
    json_kint(j, "groups", o->groups);
    json_kint(j, "iterations", o->iterations);
    if (b->params) b->params(r, j);
    json_obj_end(j);
    json_key(j, "timing");
    json_obj_begin(j);
    json_kstr(j, "clock", "CLOCK_MONOTONIC_RAW");
    json_knum(j, "cycle_hz", cycle_hz());
    json_kstr(j, "cycle_counter", cycle_counter_name());
    json_obj_end(j);
    if (probes) probe_arrays(j, probes, o->groups);
    json_key(j, "samples");
    json_arr_begin(j);
    for (size_t i = 0; i < v->n; i++) json_num(j, v->s[i].value);
    json_arr_end(j);
    json_key(j, "group");
    json_arr_begin(j);
    for (size_t i = 0; i < v->n; i++) json_int(j, v->group[i]);
    json_arr_end(j);
    if (b->raw_names && b->raw_names[0]) {
        json_key(j, "raw");
        json_obj_begin(j);
        for (int k = 0; k < MAX_RAW && b->raw_names[k]; k++) {
            json_key(j, b->raw_names[k]);
            json_arr_begin(j);
            for (size_t i = 0; i < v->n; i++) json_num(j, v->s[i].raw[k]);
            json_arr_end(j);
        }
        json_obj_end(j);
    }
    if (v->n && v->s[0].has_verify) verify_arrays(j, v);
    short_summary(j, v);
    if (b->extra) b->extra(r, j);
    if (st) settle_arrays(j, st, o->groups, o);
    json_key(j, "warnings");
    json_arr_begin(j);
    for (int i = 0; i < r->nwarnings; i++) json_str(j, r->warnings[i]);
    json_arr_end(j);
    json_obj_end(j);
}

/* One benchmark's state across its groups: its options (CPUs resolved),
 * the run record the benchmark sees, its samples and its n per sample. */
struct harness_job {
    run_opts_t o;
    bench_run_t r;
    samples_t v;
    uint64_t n;
    int failed;
    char error[512];       /* why it failed: recorded in the results file */
    settle_t *settle;      /* per group, with --settle-ms */
    clock_probe_t *probes; /* per group: before setup, after teardown */
};

/* Every benchmark's measuring thread is pinned; a benchmark with more parties
 * pins them itself and clears r.pinned if that fails. Re-done before every
 * group, as interleaved benchmarks may measure on different CPUs. */
static void pin_measuring_thread(harness_job_t *h)
{
    char err[200];
    h->r.pinned = pin_self(h->o.cpu, err, sizeof err) == 0;
    if (!h->r.pinned) bench_warn(&h->r, "%s", err);
}

static void fail(harness_job_t *h)
{
    h->failed = 1;
    snprintf(h->error, sizeof h->error, "%s", bench_last_error());
    fprintf(stderr, "ctxbench-engine: %s: %s\n", h->r.b->id, h->error);
}

const char *harness_error(const harness_job_t *h)
{
    if (!h) return "out of memory";
    return h->failed ? h->error : "";
}

harness_job_t *harness_prepare(const bench_t *b, const run_opts_t *opt)
{
    harness_job_t *h = calloc(1, sizeof *h);
    if (!h) {
        fprintf(stderr, "ctxbench-engine: %s: out of memory\n", b->id);
        return NULL;
    }
    /* Resolve the CPUs once so that params record what was used. */
    h->o = *opt;
    if (h->o.cpu < 0) h->o.cpu = default_cpu();
    if (h->o.cpu2 < 0) h->o.cpu2 = default_cpu2(h->o.cpu);
    h->r.b = b;
    h->r.opt = &h->o;
    h->r.policy_obtained = POLICY_OTHER;
    h->r.group = -1;
    last_error[0] = 0;
    pin_measuring_thread(h);
    /* Bounded in time: no benchmark may run away (SCHED_FIFO included). */
    watchdog_arm(60, b->id);
    /* Teardown runs whether or not setup succeeded: a setup that fails
     * after switching to SCHED_FIFO or starting party B must not leave
     * either behind for the next (interleaved) job. Teardowns are written
     * to be safe after a partial setup and when called twice. */
    if (b->setup && b->setup(&h->r)) {
        fail(h);
    } else {
        harness_warmup(&h->o);
        if (adapt_n(&h->r, &h->n)) fail(h);
    }
    if (b->teardown) b->teardown(&h->r);
    watchdog_arm(0, NULL);
    return h;
}

/* Is another task runnable on the measured CPU? Yield once and see whether
 * the thread was switched out. A third task that merely waits on the run
 * queue during a sample changes the scheduler's path (on a KVM guest a busy
 * loop on the CPU made the kept same-CPU samples 25% slower though it ran
 * in none of them), and neither the parties' switch counts nor their CPU
 * time can see it. -1 when the measuring thread is not on that CPU (the
 * task pairs wait elsewhere) or the counts are unreadable. Between
 * samples, never inside the timed part. */
static int64_t others_runnable(int cpu)
{
    struct rusage a, b;
    if (sched_getcpu() != cpu || getrusage(RUSAGE_THREAD, &a)) return -1;
    sched_yield();
    if (getrusage(RUSAGE_THREAD, &b)) return -1;
    return (b.ru_nvcsw + b.ru_nivcsw) - (a.ru_nvcsw + a.ru_nivcsw) > 0;
}

static int __attribute__((noinline)) group_body(harness_job_t *h, int g);

/* The group runs on a stack shifted by a random number of cache lines
 * (core/placement.h): every frame the benchmark's sample function and its
 * callees use lands elsewhere in its page from group to group. */
int harness_group(harness_job_t *h, int g)
{
    volatile char *pad = alloca(placement_offset() + 1);
    pad[0] = 0;
    return group_body(h, g);
}

static int group_body(harness_job_t *h, int g)
{
    if (h->failed) return -1;
    const bench_t *b = h->r.b;
    last_error[0] = 0;
    pin_measuring_thread(h);
    unsigned budget = 30 + (unsigned)h->o.iterations;
    watchdog_arm(budget > 600 ? 600 : budget, b->id);
    if (h->o.settle_ns && g >= 0 && g < h->o.groups) {
        if (!h->settle) h->settle = calloc((size_t)h->o.groups, sizeof *h->settle);
        if (!h->settle) {
            bench_error("out of memory");
            watchdog_arm(0, NULL);
            fail(h);
            return -1;
        }
        h->settle[g] = settle_wait(h->o.settle_ns, SETTLE_GAP_NS, SETTLE_LIMIT * h->o.settle_ns);
    }
    int probed = g >= 0 && g < h->o.groups &&
                 (h->probes || (h->probes = calloc(2 * (size_t)h->o.groups, sizeof *h->probes)));
    if (probed) h->probes[2 * g] = clock_probe_read(h->o.cpu);
    h->r.group = g;
    int rc = b->setup ? b->setup(&h->r) : 0;
    if (!rc) {
        /* Warm-up sample per group: first touches, wake-up paths, caches. */
        sample_t s;
        memset(&s, 0, sizeof s);
        rc = b->sample(&h->r, h->n, &s);
        for (int i = 0; i < h->o.iterations && !rc; i++) {
            memset(&s, 0, sizeof s);
            if (b->sample(&h->r, h->n, &s)) {
                rc = -1;
                break;
            }
            s.v.others_runnable = s.has_verify ? others_runnable(h->o.cpu) : -1;
            if (push(&h->v, &s, g)) rc = -1;
        }
    }
    if (b->teardown) b->teardown(&h->r); /* also after a failed setup: see harness_prepare */
    /* on the measured CPU again (a benchmark may have moved its measuring
     * thread: the task pairs wait elsewhere) */
    if (probed) h->probes[2 * g + 1] = clock_probe_read(h->o.cpu);
    watchdog_arm(0, NULL);
    if (rc) fail(h);
    return rc;
}

int harness_emit(harness_job_t *h, json_t *j)
{
    if (h->failed) return -1;
    emit(j, &h->r, &h->v, h->n, h->settle, h->probes);
    return 0;
}

int harness_summary(const harness_job_t *h, engine_summary_t *out)
{
    if (!h || h->failed) return -1;
    *out = summarize(&h->v);
    return 0;
}

void harness_free(harness_job_t *h)
{
    if (!h) return;
    free(h->r.job_state);
    free(h->v.s);
    free(h->v.group);
    free(h->settle);
    free(h->probes);
    free(h);
}
