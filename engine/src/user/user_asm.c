/* user/asm/same-thread: two contexts switching directly with the assembly
 * switch (uctx.h), plus hidden variants for the comparison in `ctxbench
 * userbench`: each resume (ret, jmp where built) and the simplest correct
 * switch (uctx_switch_min). Each variant's loops call its switch directly,
 * so no variant pays for an indirect call the others do not. */
#include "user/uctx.h"
#include "user/user_pp.h"

typedef struct asm_impl {
    uctx_t a, b;
    uctx_stack_t stack;
} asm_impl_t;

/* A traverses after B's reply, so that every pass follows the other
 * party's (see kernel/pingpong.c). */
#define ASM_VARIANT(name, SWITCH)                                                                            \
    static void name##_b(void *data, void *first)                                                            \
    {                                                                                                        \
        (void)first;                                                                                         \
        user_state_t *st = data;                                                                             \
        asm_impl_t *im = st->impl;                                                                           \
        for (;;) {                                                                                           \
            uintptr_t m = st->msg;                                                                           \
            work_pass(&st->wb);                                                                              \
            st->msg = m + 1;                                                                                 \
            st->answered++;                                                                                  \
            SWITCH(&im->b, &im->a);                                                                          \
        }                                                                                                    \
    }                                                                                                        \
    static void name##_pingpong(user_state_t *st, uint64_t n)                                                \
    {                                                                                                        \
        asm_impl_t *im = st->impl;                                                                           \
        for (uint64_t i = 0; i < n; i++) {                                                                   \
            st->msg = (uintptr_t)i;                                                                          \
            SWITCH(&im->a, &im->b);                                                                          \
            if (st->msg != (uintptr_t)i + 1) st->bad++;                                                      \
            work_pass(&st->wa);                                                                              \
        }                                                                                                    \
    }                                                                                                        \
    static int name##_init(user_state_t *st)                                                                 \
    {                                                                                                        \
        return asm_init(st, name##_b);                                                                       \
    }

static int asm_init(user_state_t *st, uctx_entry_t entry)
{
    asm_impl_t *im = user_impl_alloc(st, sizeof *im);
    if (!im) return -1;
    if (uctx_stack_alloc(&im->stack, 256 * 1024)) {
        bench_error("cannot map a context stack");
        return -1;
    }
    if (uctx_make(&im->b, &im->stack, entry, st)) {
        bench_error("context stack too small");
        return -1;
    }
    return 0;
}

static void asm_fini(user_state_t *st)
{
    asm_impl_t *im = st->impl;
    if (!im) return;
    uctx_stack_free(&im->stack); /* B is suspended for good */
    user_impl_free(st);
}

#define SW_DEFAULT(f, t) uctx_switch(f, t, NULL)
#define SW_RET(f, t)     uctx_switch_ret(f, t, NULL)
#define SW_MIN(f, t)     uctx_switch_min(f, t)
ASM_VARIANT(dflt, SW_DEFAULT)
ASM_VARIANT(ret, SW_RET)
ASM_VARIANT(min, SW_MIN)

#define T1 "a store and a load of the message slot, no switch"
#define ASM_OPS(var, mech, res, pfx)                                                                         \
    static const user_ops_t var = {.mechanism = mech,                                                        \
                                   .resume = res,                                                            \
                                   .t_single = T1,                                                           \
                                   .init = pfx##_init,                                                       \
                                   .fini = asm_fini,                                                         \
                                   .single = user_single_store_load,                                         \
                                   .pingpong = pfx##_pingpong}
ASM_OPS(ops_default, "asm-switch", uctx_default_resume, dflt);
ASM_OPS(ops_ret, "asm-switch", "ret", ret);
ASM_OPS(ops_min, "asm-minimal", "ret", min);

#define Q (BENCH_DEFAULT | BENCH_QUICK)
USER_BENCH(b_asm, "user/asm/same-thread", ops_default, Q, 400,
           "direct cost of one user-level switch (assembly, callee-saved registers only), one kernel thread");
USER_BENCH(b_ret, "user/asm-ret/same-thread", ops_ret, BENCH_HIDDEN, 480,
           "the assembly switch resumed with ret (comparison)");
USER_BENCH(b_min, "user/asm-minimal/same-thread", ops_min, BENCH_HIDDEN, 482,
           "the simplest correct switch: same registers, no landing pad, no transfer value (comparison)");

#ifdef UCTX_HAVE_JMP
#define SW_JMP(f, t) uctx_switch_jmp(f, t, NULL)
ASM_VARIANT(jmp, SW_JMP)
ASM_OPS(ops_jmp, "asm-switch", "jmp", jmp);
USER_BENCH(b_jmp, "user/asm-jmp/same-thread", ops_jmp, BENCH_HIDDEN, 481,
           "the assembly switch resumed with pop + indirect jmp (comparison)");
#endif
