/* The sweep's test polluter (hidden ids test/polluter/<lines>): a same-CPU
 * thread futex ping-pong in which party A evicts a chosen number of cache
 * lines of its own working array from every cache level at every switch
 * back to it (pp_cfg_t.evict_lines, core/evict.h). Its indirect cost must
 * rise with the lines evicted: the sweep's known-answer test. Only
 * registrations: this file depends on the ping-pong, nothing depends on it. */
#include "core/evict.h"
#include "kernel/pingpong.h"

static int polluter_setup(bench_run_t *r)
{
    if (!evict_supported())
        bench_warn(r, "no cache-line eviction on this architecture: the polluter does nothing");
    return pp_setup(r);
}

#define POLLUTER(var, cfgv, idstr, lines, ord)                                                               \
    static const pp_cfg_t cfgv = {.mech = &mech_futex, .evict_lines = lines};                                \
    PP_BENCH_SETUP(var, idstr, "switch", cfgv, BENCH_HIDDEN, 910 + ord, POLICY_OTHER,                        \
                   "test only: futex thread ping-pong evicting " #lines                                      \
                   " lines of A's array at every switch",                                                    \
                   polluter_setup)

POLLUTER(pol0, pol0_cfg, "test/polluter/0", 0, 0);
POLLUTER(pol64, pol64_cfg, "test/polluter/64", 64, 1);
POLLUTER(pol256, pol256_cfg, "test/polluter/256", 256, 2);
POLLUTER(pol1024, pol1024_cfg, "test/polluter/1024", 1024, 3);
