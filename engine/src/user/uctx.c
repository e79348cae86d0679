/* Stacks and initial frames for the assembly switches (uctx.h). The frame
 * layouts below must match engine/arch/<arch>/switch_*.S. */
#include "user/uctx.h"
#include "core/placement.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void uctx_trampoline(void);

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

int uctx_stack_alloc(uctx_stack_t *st, size_t size)
{
    size_t pg = page_size();
    size = (size + pg - 1) & ~(pg - 1);
    memset(st, 0, sizeof *st);
    void *m = mmap(NULL, size + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) return -1;
    if (mprotect(m, pg, PROT_NONE)) {
        int e = errno;
        munmap(m, size + pg);
        errno = e;
        return -1;
    }
    st->map = m;
    st->map_len = size + pg;
    st->lo = (char *)m + pg;
    st->hi = (char *)m + pg + size;
    return 0;
}

void uctx_stack_free(uctx_stack_t *st)
{
    if (st->map) munmap(st->map, st->map_len);
    memset(st, 0, sizeof *st);
}

int uctx_stack_guard_hit(const uctx_stack_t *st, const void *addr)
{
    const char *a = addr, *g = st->map;
    return st->map && a >= g && a < (const char *)st->lo;
}

void uctx_entry_returned(void *data)
{
    fprintf(stderr, "ctxbench-engine: a user-level context's entry returned (data %p); aborting\n", data);
    abort();
}

int uctx_make(uctx_t *c, const uctx_stack_t *st, uctx_entry_t entry, void *data)
{
    /* the top at a random line of its page (core/placement.h): two stacks
     * at one page offset alias in the store buffer's 4K check */
    uintptr_t top = ((uintptr_t)st->hi - placement_offset()) & ~(uintptr_t)15;
    if (top - (uintptr_t)st->lo < 512) return -1;
#if defined(__x86_64__)
    /* mxcsr|fcw, r15 r14 r13 r12 rbx rbp, return address = trampoline. The
     * return slot sits at 8 (mod 16), so after `ret` rsp is 16-aligned. */
    uint64_t *ret = (uint64_t *)(top - 24);
    uint64_t *f = ret - 7;
    uint32_t mxcsr;
    uint16_t fcw;
    __asm__ __volatile__("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(fcw));
    memset(f, 0, 8 * sizeof *f);
    f[0] = (uint64_t)mxcsr | ((uint64_t)fcw << 32); /* the creator's control words */
    f[3] = (uint64_t)(uintptr_t)data;               /* r13 */
    f[4] = (uint64_t)(uintptr_t)entry;              /* r12 */
    *ret = (uint64_t)(uintptr_t)uctx_trampoline;
    c->sp = f;
#elif defined(__aarch64__)
    /* x19..x30 (x29 = 0 ends the frame chain, x30 = trampoline), d8..d15. */
    uint64_t *f = (uint64_t *)(top - 176);
    memset(f, 0, 176);
    f[0] = (uint64_t)(uintptr_t)entry;            /* x19 */
    f[1] = (uint64_t)(uintptr_t)data;             /* x20 */
    f[11] = (uint64_t)(uintptr_t)uctx_trampoline; /* x30 */
    c->sp = f;
#elif defined(__arm__)
        /* d8..d15 (when VFP is there), then r3(pad) r4..r11 lr = trampoline.
         * The frame is a multiple of 8 bytes: the AAPCS stack alignment. */
#if defined(__ARM_FP)
    const size_t vfp = 64;
#else
    const size_t vfp = 0;
#endif
    uint8_t *base = (uint8_t *)(top - 8 - vfp - 40);
    memset(base, 0, vfp + 40);
    uint32_t *r = (uint32_t *)(base + vfp);      /* r3 r4 r5 ... r11 lr */
    r[1] = (uint32_t)(uintptr_t)entry;           /* r4 */
    r[2] = (uint32_t)(uintptr_t)data;            /* r5 */
    r[9] = (uint32_t)(uintptr_t)uctx_trampoline; /* lr */
    c->sp = base;
#else
#error "no user-level switch for this architecture"
#endif
    return 0;
}

const char *uctx_abi(void)
{
#if defined(__x86_64__)
    return "x86_64-sysv";
#elif defined(__aarch64__)
    return "aarch64-aapcs64";
#elif defined(__arm__) && defined(__ARM_FP)
    return "armv7-aapcs-vfp";
#else
    return "arm-aapcs";
#endif
}
