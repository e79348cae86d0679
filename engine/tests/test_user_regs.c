/* The assembly switch preserves every callee-saved integer and FP register
 * (canaries in, the other context clobbers them all, canaries out), for
 * every resume variant; a new context starts with the ABI's stack alignment
 * (an aligned SIMD-width local and a varargs call with doubles inside it);
 * the transfer value and the entry's arguments arrive. Runs natively and,
 * cross-compiled, under qemu-aarch64 / qemu-arm. */
#include "check.h"
#include "user/uctx.h"
#include "user_probe.h"
#include <stdio.h>
#include <string.h>

static uctx_t ctx_a, ctx_b;
static switch_fn_t cur_sw;

static void clobber_entry(void *data, void *first)
{
    (void)data;
    (void)first;
    for (;;) probe_clobber(&ctx_b, &ctx_a, cur_sw);
}

static int check_variant(const char *name, switch_fn_t sw)
{
    uctx_stack_t st;
    int bad = 0;
    cur_sw = sw;
    CHECK(uctx_stack_alloc(&st, 64 * 1024) == 0, "stack");
    CHECK(uctx_make(&ctx_b, &st, clobber_entry, NULL) == 0, "make");
    for (int k = 0; k < 1000; k++) {
        probe_regs_t in, out;
        memset(&out, 0, sizeof out);
        for (int i = 0; i < PROBE_NINT; i++)
            in.i[i] = (uintptr_t)(0x5a5a0000u + (unsigned)k * 64u + (unsigned)i) ^
                      ((uintptr_t)i << (sizeof(uintptr_t) * 4));
        for (int i = 0; i < PROBE_NFP; i++)
            in.f[i] = 0x3ff0c0de00000000ull + ((uint64_t)k << 8) + (uint64_t)i;
        probe_run(&ctx_a, &ctx_b, &in, &out, sw);
        for (int i = 0; i < PROBE_NINT; i++)
            if (in.i[i] != out.i[i]) {
                bad++;
                if (bad < 5)
                    fprintf(stderr, "%s: int reg %d: %#llx != %#llx\n", name, i, (unsigned long long)out.i[i],
                            (unsigned long long)in.i[i]);
            }
        for (int i = 0; i < PROBE_NFP; i++)
            if (in.f[i] != out.f[i]) {
                bad++;
                if (bad < 5)
                    fprintf(stderr, "%s: fp reg %d: %#llx != %#llx\n", name, i, (unsigned long long)out.f[i],
                            (unsigned long long)in.f[i]);
            }
    }
    CHECK(bad == 0, "%s: %d callee-saved registers not preserved", name, bad);
    uctx_stack_free(&st);
    return bad;
}

/* ---- alignment at entry, varargs, arguments, transfer values ---- */
#if defined(__arm__)
#define ABI_STACK_ALIGN 8
#else
#define ABI_STACK_ALIGN 16
#endif
typedef double v2d __attribute__((vector_size(16)));

static int align_ok = -1, varargs_ok = -1, data_ok = -1, first_ok = -1;

__attribute__((noinline)) static int aligned_local_ok(void)
{
    /* Aligned to the ABI's stack alignment: the compiler trusts the incoming
     * sp and does not realign, so a bad entry alignment shows here. */
    _Alignas(ABI_STACK_ALIGN) volatile v2d x = {1.5, 2.5};
    x = x + x;
    return ((uintptr_t)&x % ABI_STACK_ALIGN) == 0 && x[0] == 3.0 && x[1] == 5.0;
}

static void align_entry(void *data, void *first)
{
    char buf[64];
    data_ok = data == (void *)&ctx_a;
    first_ok = first == (void *)0x1234;
    align_ok = aligned_local_ok();
    snprintf(buf, sizeof buf, "%.2f %d %.1f %s", 3.25, 7, -0.5, "z");
    varargs_ok = strcmp(buf, "3.25 7 -0.5 z") == 0;
    void *v = uctx_switch(&ctx_b, &ctx_a, (void *)0x42);
    for (;;) v = uctx_switch(&ctx_b, &ctx_a, (void *)((uintptr_t)v + 1));
}

int main(void)
{
    check_variant("uctx_switch", uctx_switch);
    check_variant("uctx_switch_ret", uctx_switch_ret);
#ifdef UCTX_HAVE_JMP
    check_variant("uctx_switch_jmp", uctx_switch_jmp);
#endif
    check_variant("uctx_switch_min", (switch_fn_t)(void (*)(void))uctx_switch_min);

    uctx_stack_t st;
    CHECK(uctx_stack_alloc(&st, 64 * 1024) == 0, "stack");
    CHECK(uctx_make(&ctx_b, &st, align_entry, &ctx_a) == 0, "make");
    void *r = uctx_switch(&ctx_a, &ctx_b, (void *)0x1234);
    CHECK(r == (void *)0x42, "first transfer value back: %p", r);
    CHECK(data_ok == 1 && first_ok == 1, "entry arguments (data %d, first %d)", data_ok, first_ok);
    CHECK(align_ok == 1, "stack aligned to %d at entry", ABI_STACK_ALIGN);
    CHECK(varargs_ok == 1, "varargs call with doubles inside a context");
    r = uctx_switch(&ctx_a, &ctx_b, (void *)100);
    CHECK(r == (void *)101, "transfer value round trip: %p", r);
    uctx_stack_free(&st);
    printf("abi %s, default resume %s\n", uctx_abi(), uctx_default_resume);
    CHECK_DONE("user-level switch: registers, alignment, transfer");
}
