#include "user/user_pp.h"
#include "core/clock.h"
#include "core/pp_formula.h"
#include "core/sched_ctl.h"
#include "user/uctx.h"
#include "core/verify.h"
#include <stdlib.h>
#include <string.h>

const char *const user_raw_names[] = {"t_single_ns", "t_switch_ns", NULL};

static const user_ops_t *ops_of(bench_run_t *r)
{
    return (const user_ops_t *)r->b->arg;
}

void *user_impl_alloc(user_state_t *st, size_t size)
{
    st->impl = calloc(1, size);
    if (!st->impl) bench_error("out of memory");
    return st->impl;
}

void user_impl_free(user_state_t *st)
{
    free(st->impl);
    st->impl = NULL;
}

void user_single_store_load(user_state_t *st, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        work_pass(&st->wa);
        st->msg = (uintptr_t)i;
        if (st->msg != (uintptr_t)i) st->bad++;
    }
}

int user_setup(bench_run_t *r)
{
    const run_opts_t *o = r->opt;
    user_state_t *st = bench_state_new(r, sizeof *st);
    if (!st) return -1;
    st->ops = ops_of(r);
    /* one kernel thread, pinned by the harness */
    r->policy_obtained = POLICY_OTHER;
    if (work_init(&st->wa, o->size, o->stride) || work_init(&st->wb, o->size, o->stride)) {
        bench_error("cannot map %zu bytes", o->size);
        return -1;
    }
    return st->ops->init(st);
}

int user_sample(bench_run_t *r, uint64_t n, sample_t *out)
{
    user_state_t *st = r->state;
    party_counts_t s0, s1, a0, a1, d;

    work_pass(&st->wa); /* untimed: the single run starts warm (see kernel/pingpong.c) */
    party_counts_read(0, 0, &s0);
    uint64_t t0 = clock_ns();
    st->ops->single(st, n);
    uint64_t t1 = clock_ns();
    party_counts_read(0, 0, &s1);

    uint64_t before = st->answered;
    if (st->ops->pre) st->ops->pre(st, n);
    party_counts_read(0, 0, &a0);
    uint64_t t2 = clock_ns();
    st->ops->pingpong(st, n);
    uint64_t t3 = clock_ns();
    party_counts_read(0, 0, &a1);
    if (st->ops->post) st->ops->post(st);
    if (st->answered - before != n || st->bad) {
        bench_error("context B answered %llu of %llu round trips (%llu wrong replies)",
                    (unsigned long long)(st->answered - before), (unsigned long long)n,
                    (unsigned long long)st->bad);
        return -1;
    }

    /* a user-level switch never enters the kernel scheduler: 0 expected */
    party_counts_t sw = party_counts_delta(&a0, &a1);
    d = party_counts_delta(&s0, &s1);
    pp_formula_sample(out, n, t1 - t0, t3 - t2, 0, &sw, 1, &d);
    return 0;
}

void user_teardown(bench_run_t *r)
{
    user_state_t *st = r->state;
    if (!st) return;
    if (st->ops->fini) st->ops->fini(st);
    work_fini(&st->wa);
    work_fini(&st->wb);
    free(st);
    r->state = NULL;
}

void user_params(bench_run_t *r, json_t *j)
{
    const user_ops_t *ops = ops_of(r);
    json_kstr(j, "mechanism", ops->mechanism);
    json_kstr(j, "kind", "user");
    json_kstr(j, "placement", "same-thread");
    json_kint(j, "cpu_b", r->opt->cpu); /* B: the same thread */
    json_kstr(j, "resume", ops->resume);
    json_kstr(j, "abi", uctx_abi());
    json_kint(j, "size", (int64_t)r->opt->size);
    json_kint(j, "stride", (int64_t)r->opt->stride);
    json_kstr(j, "t_single", ops->t_single);
    json_kstr(j, "formula", "(t_switch/2 - t_single)/n");
}
