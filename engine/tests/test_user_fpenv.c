/* Floating-point control state is per context on x86-64: a rounding mode,
 * FTZ/DAZ and x87 precision set in one context do not leak into the other,
 * and each context finds its own again after switching back. (aarch64 and
 * armv7: FPCR/FPSCR are not callee-saved in their ABIs and not switched.) */
#include "check.h"
#include "user/uctx.h"
#include <fenv.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
static uctx_t a, b;
static uint32_t b_mxcsr_seen, b_mxcsr_set;
static uint16_t b_fcw_seen, b_fcw_set;

static uint32_t get_mxcsr(void)
{
    uint32_t v;
    __asm__ __volatile__("stmxcsr %0" : "=m"(v));
    return v;
}
static void set_mxcsr(uint32_t v)
{
    __asm__ __volatile__("ldmxcsr %0" ::"m"(v));
}
static uint16_t get_fcw(void)
{
    uint16_t v;
    __asm__ __volatile__("fnstcw %0" : "=m"(v));
    return v;
}
static void set_fcw(uint16_t v)
{
    __asm__ __volatile__("fldcw %0" ::"m"(v));
}

static void b_entry(void *d, void *f)
{
    (void)d;
    (void)f;
    /* B: round toward zero, FTZ + DAZ; x87 single precision, round up. */
    b_mxcsr_set = (get_mxcsr() & ~0x6000u) | 0x6000u | 0x8040u;
    set_mxcsr(b_mxcsr_set);
    b_fcw_set = (uint16_t)((get_fcw() & ~0x0f00u) | 0x0800u);
    set_fcw(b_fcw_set);
    for (;;) {
        uctx_switch(&b, &a, NULL);
        b_mxcsr_seen = get_mxcsr() & 0xffc0u; /* control bits, not sticky flags */
        b_fcw_seen = get_fcw();
    }
}

int main(void)
{
    uctx_stack_t st;
    CHECK(uctx_stack_alloc(&st, 64 * 1024) == 0, "stack");
    CHECK(fesetround(FE_TONEAREST) == 0, "fesetround");
    uint32_t a_mxcsr = get_mxcsr() & 0xffc0u;
    uint16_t a_fcw = get_fcw();
    CHECK(uctx_make(&b, &st, b_entry, NULL) == 0, "make");
    for (int k = 0; k < 3; k++) {
        uctx_switch(&a, &b, NULL);
        CHECK((get_mxcsr() & 0xffc0u) == a_mxcsr, "A's MXCSR %#x after B set %#x", get_mxcsr(), b_mxcsr_set);
        CHECK(get_fcw() == a_fcw, "A's x87 control word %#x, expected %#x", get_fcw(), a_fcw);
        CHECK(fegetround() == FE_TONEAREST, "A's rounding mode leaked from B");
        volatile double x = 2.0, y = 3.0, q = x / y;
        uint64_t bits;
        memcpy(&bits, (const void *)&q, sizeof bits);
        CHECK(bits == 0x3fe5555555555555ull, "A rounds 2/3 to nearest: %#llx", (unsigned long long)bits);
        if (k) {
            CHECK(b_mxcsr_seen == (b_mxcsr_set & 0xffc0u), "B's MXCSR %#x, expected %#x", b_mxcsr_seen,
                  b_mxcsr_set);
            CHECK(b_fcw_seen == b_fcw_set, "B's x87 control word %#x, expected %#x", b_fcw_seen, b_fcw_set);
        }
    }
    uctx_stack_free(&st);
    CHECK_DONE("user-level switch: MXCSR and x87 control word per context");
}
#else
int main(void)
{
    CHECK_SKIP("user-level switch: fp environment", "FP control registers are not callee-saved on this ABI");
}
#endif
