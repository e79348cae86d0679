#include "kernel/polluter.h"
#include "kernel/pingpong.h"

#define LINE 64

int polluter_supported(void)
{
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    return 1;
#else
    return 0;
#endif
}

void polluter_evict(work_t *w, unsigned lines)
{
    if (!w->a) return;
    size_t max = w->size / LINE;
    size_t k = lines < max ? lines : max;
    char *p = (char *)w->a;
    for (size_t i = 0; i < k; i++) {
#if defined(__x86_64__) || defined(__i386__)
        __asm__ __volatile__("clflush (%0)" ::"r"(p + i * LINE) : "memory");
#elif defined(__aarch64__)
        __asm__ __volatile__("dc civac, %0" ::"r"(p + i * LINE) : "memory");
#else
        (void)p; /* no eviction here (polluter_supported() says 0) */
#endif
    }
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("mfence" ::: "memory");
#elif defined(__aarch64__)
    __asm__ __volatile__("dsb ish" ::: "memory");
#endif
}

static int polluter_setup(bench_run_t *r)
{
    if (!polluter_supported())
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
