/* The ping-pong formula's sample (docs/method.md#the-ping-pong-formula),
 * shared by the kernel ping-pong (kernel/pingpong.c), the user-level one
 * (user/user_pp.c) and the harness's known answer (selftest/):
 *
 *     t_avg = (t_switch / 2 - t_single) / n
 *
 * once the single run and the switching run have been timed and their
 * parties' counts read. */
#ifndef CTXBENCH_PP_FORMULA_H
#define CTXBENCH_PP_FORMULA_H
#include "core/bench.h"
#include "core/verify.h"
#include <stdint.h>

/* Fill `out`: raw = {t_single, t_switch}, value = t_avg, duration = the
 * switching run, and the verification counts: `expected_voluntary`, the
 * switching run's deltas of its `nswitch` parties (`sw`, the measuring
 * party first: its window is the sample's) and the single run's delta
 * (`single`). */
void pp_formula_sample(sample_t *out, uint64_t n, uint64_t t_single_ns, uint64_t t_switch_ns,
                       int64_t expected_voluntary, const party_counts_t *sw, int nswitch,
                       const party_counts_t *single);
#endif
