#include "harness.h"
#include "clock.h"
#include "reap.h"
#include "sched_ctl.h"
#include "util.h"
#include "verify.h"
#include <math.h>
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

const char *bench_last_error(void) { return last_error[0] ? last_error : "unknown error"; }

void run_opts_default(run_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->groups = 20;       /* seed 001: 20 groups x 10 iterations */
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
        if (!ns || !ng) { free(ns); free(ng); return -1; }
        v->s = ns; v->group = ng; v->cap = cap;
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
 * written on a board is readable as it is; the front end recomputes the full
 * statistics from the samples. */
static void short_summary(json_t *j, const samples_t *v)
{
    double *x = malloc((v->n ? v->n : 1) * sizeof *x);
    if (!x) return;
    double sum = 0;
    for (size_t i = 0; i < v->n; i++) { x[i] = v->s[i].value; sum += x[i]; }
    qsort(x, v->n, sizeof *x, cmpd);
    json_key(j, "engine_summary");
    json_obj_begin(j);
    json_kint(j, "n", (int64_t)v->n);
    json_knum(j, "min", v->n ? x[0] : NAN);
    json_knum(j, "median", v->n ? (v->n % 2 ? x[v->n / 2] : (x[v->n / 2 - 1] + x[v->n / 2]) / 2) : NAN);
    json_knum(j, "mean", v->n ? sum / (double)v->n : NAN);
    json_obj_end(j);
    free(x);
}

static void verify_arrays(json_t *j, const samples_t *v)
{
    static const char *names[] = {"expected_voluntary", "voluntary", "involuntary", "migrations",
                                  "single_voluntary", "single_involuntary", "single_migrations"};
    json_key(j, "verify");
    json_obj_begin(j);
    json_kstr(j, "source", verify_source());
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        json_key(j, names[k]);
        json_arr_begin(j);
        for (size_t i = 0; i < v->n; i++) {
            const verify_counts_t *c = &v->s[i].v;
            const int64_t f[] = {c->expected_voluntary, c->voluntary, c->involuntary, c->migrations,
                                 c->single_voluntary, c->single_involuntary, c->single_migrations};
            if (f[k] < 0) json_null(j);
            else json_int(j, f[k]);
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

static void emit(json_t *j, bench_run_t *r, const samples_t *v, uint64_t n)
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
    json_key(j, "warnings");
    json_arr_begin(j);
    for (int i = 0; i < r->nwarnings; i++) json_str(j, r->warnings[i]);
    json_arr_end(j);
    json_obj_end(j);
}

int harness_run(const bench_t *b, const run_opts_t *opt_in, json_t *j)
{
    /* Resolve the CPUs once so that params record what was used. */
    run_opts_t o = *opt_in;
    const run_opts_t *opt = &o;
    if (o.cpu < 0) o.cpu = default_cpu();
    if (o.cpu2 < 0) o.cpu2 = default_cpu2(o.cpu);
    bench_run_t r;
    memset(&r, 0, sizeof r);
    r.b = b;
    r.opt = opt;
    r.policy_obtained = POLICY_OTHER;
    last_error[0] = 0;
    /* Every benchmark's measuring thread is pinned; a benchmark with more
     * parties pins them itself and clears r.pinned if that fails. */
    char err[200];
    r.pinned = pin_self(o.cpu, err, sizeof err) == 0;
    if (!r.pinned) bench_warn(&r, "%s", err);

    /* Bounded in time: no benchmark may run away (SCHED_FIFO included). */
    unsigned budget = 60 + (unsigned)((uint64_t)opt->groups * (uint64_t)opt->iterations / 10);
    watchdog_arm(budget > 600 ? 600 : budget, b->id);

    samples_t v = {0};
    uint64_t n = 0;
    int rc = 0;
    for (int g = 0; g < opt->groups && !rc; g++) {
        if (b->setup && b->setup(&r)) { rc = -1; break; }
        if (g == 0) {
            harness_warmup(opt);
            if (adapt_n(&r, &n)) rc = -1;
        }
        /* Warm-up sample per group: first touches, wake-up paths, caches. */
        sample_t s;
        memset(&s, 0, sizeof s);
        if (!rc && b->sample(&r, n, &s)) rc = -1;
        for (int i = 0; i < opt->iterations && !rc; i++) {
            memset(&s, 0, sizeof s);
            if (b->sample(&r, n, &s) || push(&v, &s, g)) rc = -1;
        }
        if (b->teardown) b->teardown(&r);
    }
    watchdog_arm(0, NULL);
    if (rc) {
        fprintf(stderr, "ctxbench-engine: %s: %s\n", b->id, bench_last_error());
    } else {
        emit(j, &r, &v, n);
    }
    free(v.s);
    free(v.group);
    return rc;
}
