/* Kernel-level ping-pong between two parties (threads or forked processes),
 * the driver behind every kernel/<...> id
 * (docs/method.md#the-ping-pong-formula):
 *
 *     t_avg = (t_switch / 2 - t_single) / n
 *
 * t_single: party A sends n messages to itself (with its unit of work
 * before each); t_switch: A and B exchange n round trips, each doing its
 * work before sending. Both are measured in every sample. */
#ifndef CTXBENCH_PINGPONG_H
#define CTXBENCH_PINGPONG_H
#include "core/bench.h"
#include "core/mitigation.h"
#include "kernel/mech.h"

typedef struct pp_cfg {
    const mech_t *mech;
    int process;          /* 0: threads of one process, 1: forked processes */
    int cross;            /* 0: both parties on one CPU, 1: on two CPUs (wake-up) */
    unsigned evict_lines; /* test polluter: lines of A's array evicted at every switch back to A */
    /* the anatomy's rungs (kernel/anatomy_benches.c), each one property: */
    int vector_dirty;        /* both parties dirty the widest vector state before every send (t_single too) */
    mitigation_t mitigation; /* both parties switch this mitigation on for themselves (prctl) */
    int cgroups;             /* 1: both parties in one new cgroup, 2: each in its own */
    unsigned busy_ns;        /* test: busy work before every send of the switching run only */
    int profile; /* sample both parties' kernel call chains in the switching run (core/kprofile.h) */
} pp_cfg_t;

extern const char *const pp_raw_names[];
int pp_setup(bench_run_t *r);
int pp_sample(bench_run_t *r, uint64_t n, sample_t *out);
void pp_teardown(bench_run_t *r);
void pp_params(bench_run_t *r, json_t *j);
void pp_extra(bench_run_t *r, json_t *j); /* counters (pp_counters.h) */

/* One registered ping-pong id over the configuration `cfgv` (the kernel/
 * ids, the anatomy's rungs, the polluter); `setupfn` is pp_setup or a
 * wrapper of it. */
#define PP_BENCH_SETUP(var, idstr, qty, cfgv, flg, ord, pol, docstr, setupfn)                                \
    static const bench_t var = {.id = idstr,                                                                 \
                                .quantity = qty,                                                             \
                                .unit = "ns",                                                                \
                                .doc = docstr,                                                               \
                                .flags = flg,                                                                \
                                .order = ord,                                                                \
                                .raw_names = pp_raw_names,                                                   \
                                .setup = setupfn,                                                            \
                                .sample = pp_sample,                                                         \
                                .teardown = pp_teardown,                                                     \
                                .params = pp_params,                                                         \
                                .extra = pp_extra,                                                           \
                                .arg = &cfgv,                                                                \
                                .n0 = 64,                                                                    \
                                .policy = pol};                                                              \
    BENCH_REGISTER(var)
#define PP_BENCH(var, idstr, qty, cfgv, flg, ord, pol, docstr)                                               \
    PP_BENCH_SETUP(var, idstr, qty, cfgv, flg, ord, pol, docstr, pp_setup)
#endif
