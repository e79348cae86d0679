#include "core/vector_state.h"
#include <stddef.h>

#if defined(__x86_64__)
#include <cpuid.h>
/* Plain assembly, not intrinsics: a compiler may end a function that uses
 * ymm/zmm registers with vzeroupper, which puts the upper state back in its
 * init state, and then the switch has nothing more to save. xmm15, ymm15,
 * zmm31 and k7 are caller-saved in the SysV ABI. */
__asm__(".text\n"
        ".p2align 4\n"
        "ctxbench_dirty_sse:\n"
        "  pcmpeqd %xmm15, %xmm15\n"
        "  ret\n"
        ".p2align 4\n"
        "ctxbench_dirty_avx:\n"
        "  vpcmpeqd %ymm15, %ymm15, %ymm15\n"
        "  ret\n"
        ".p2align 4\n"
        "ctxbench_dirty_avx512:\n"
        "  vpternlogd $0xff, %zmm31, %zmm31, %zmm31\n"
        "  vpternlogd $0xff, %zmm15, %zmm15, %zmm15\n"
        "  kxnorw %k7, %k7, %k7\n"
        "  ret\n");
void ctxbench_dirty_sse(void);
void ctxbench_dirty_avx(void);
void ctxbench_dirty_avx512(void);

static unsigned long long xcr0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

static void pick(const char **kind, void (**fn)(void))
{
    unsigned a, b, c, d;
    *kind = "sse", *fn = ctxbench_dirty_sse; /* SSE2 is part of x86-64 */
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) return;
    unsigned long long x = xcr0();
    if ((c & bit_AVX) && (x & 0x6) == 0x6) *kind = "avx", *fn = ctxbench_dirty_avx;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F) && (x & 0xe6) == 0xe6)
        *kind = "avx512", *fn = ctxbench_dirty_avx512;
}
#elif defined(__aarch64__)
static void dirty_fpsimd(void)
{
    __asm__ volatile("movi v31.16b, #0xff" ::: "v31");
}
static void pick(const char **kind, void (**fn)(void))
{
    *kind = "fpsimd", *fn = dirty_fpsimd;
}
#elif defined(__arm__) && defined(__ARM_PCS_VFP)
static void dirty_vfp(void)
{
    __asm__ volatile("vmov.f64 d7, #1.0" ::: "d7");
}
static void pick(const char **kind, void (**fn)(void))
{
    *kind = "vfp", *fn = dirty_vfp;
}
#else
static void pick(const char **kind, void (**fn)(void))
{
    *kind = "none", *fn = NULL;
}
#endif

static const char *g_kind;
static void (*g_fn)(void);

const char *vector_state_kind(void)
{
    if (!g_kind) pick(&g_kind, &g_fn);
    return g_kind;
}

void vector_state_dirty(void)
{
    if (!g_kind) pick(&g_kind, &g_fn);
    if (g_fn) g_fn();
}
