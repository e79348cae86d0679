/* The user-level ping-pong (docs/method.md#user-level-switches): the kernel
 * ping-pong's formula and sample layout, inside one kernel thread.
 *
 *     t_avg = (t_switch / 2 - t_single) / n
 *
 * t_single: context A alone does n times its unit of work (work.c, sized by
 * --size/--stride) and one message (a store and a load, or the mechanism's
 * no-switch path); t_switch: A and B exchange n round trips (2n switches),
 * each doing its work before answering. Verification: the kernel thread
 * must make no voluntary switch at all during either half. */
#ifndef CTXBENCH_USER_PP_H
#define CTXBENCH_USER_PP_H
#include "core/bench.h"
#include "core/work.h"
#include <stdint.h>

typedef struct user_state user_state_t;

typedef struct user_ops {
    const char *mechanism;         /* params.mechanism */
    const char *resume;            /* params.resume ("ret", "jmp", or how the mechanism resumes) */
    const char *t_single;          /* what the single run's "message" is */
    int (*init)(user_state_t *st); /* make context B */
    void (*fini)(user_state_t *st);
    void (*single)(user_state_t *st, uint64_t n);   /* t_single loop */
    void (*pingpong)(user_state_t *st, uint64_t n); /* n round trips */
    void (*pre)(user_state_t *st, uint64_t n);      /* optional, untimed, before pingpong */
    void (*post)(user_state_t *st);                 /* optional, untimed, after it */
} user_ops_t;

struct user_state {
    const user_ops_t *ops;
    work_t wa, wb;          /* A's and B's working sets */
    volatile uintptr_t msg; /* the message slot */
    uint64_t answered;      /* round trips B has answered (checked) */
    uint64_t bad;           /* replies that were not what A expected */
    void *impl;             /* the mechanism's own */
};

/* For ops->init: the mechanism's own state, `size` zeroed bytes, into
 * st->impl; NULL (and said why) when out of memory. */
void *user_impl_alloc(user_state_t *st, size_t size);
/* For ops->fini: free st->impl (NULL allowed) and clear it. */
void user_impl_free(user_state_t *st);
/* For ops->single where the message is a store and a load of st->msg (no
 * switch): n times A's work, then the message, checked. */
void user_single_store_load(user_state_t *st, uint64_t n);

extern const char *const user_raw_names[];
int user_setup(bench_run_t *r);
int user_sample(bench_run_t *r, uint64_t n, sample_t *out);
void user_teardown(bench_run_t *r);
void user_params(bench_run_t *r, json_t *j);

#define USER_BENCH(var, idstr, opsv, flg, ord, docstr)                                                       \
    static const bench_t var = {.id = idstr,                                                                 \
                                .quantity = "switch",                                                        \
                                .unit = "ns",                                                                \
                                .doc = docstr,                                                               \
                                .flags = flg,                                                                \
                                .order = ord,                                                                \
                                .raw_names = user_raw_names,                                                 \
                                .setup = user_setup,                                                         \
                                .sample = user_sample,                                                       \
                                .teardown = user_teardown,                                                   \
                                .params = user_params,                                                       \
                                .arg = &opsv,                                                                \
                                .n0 = 1024,                                                                  \
                                .policy = POLICY_OTHER};                                                     \
    BENCH_REGISTER(var)
#endif
