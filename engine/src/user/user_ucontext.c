/* user/ucontext/same-thread: the same two-context ping-pong with glibc's
 * swapcontext, which saves and restores the signal mask with a
 * rt_sigprocmask system call on every switch (the building block of Chen
 * et al.'s library). */
#include "user/uctx.h"
#include "user/user_pp.h"
#include <ucontext.h>

typedef struct uc_impl {
    ucontext_t a, b;
    uctx_stack_t stack;
} uc_impl_t;

static user_state_t *uc_current; /* makecontext passes only ints: B finds its state here */

static void uc_b(void)
{
    user_state_t *st = uc_current;
    uc_impl_t *im = st->impl;
    for (;;) {
        uintptr_t m = st->msg;
        work_pass(&st->wb);
        st->msg = m + 1;
        st->answered++;
        swapcontext(&im->b, &im->a);
    }
}

static int uc_init(user_state_t *st)
{
    uc_impl_t *im = user_impl_alloc(st, sizeof *im);
    if (!im) return -1;
    if (uctx_stack_alloc(&im->stack, 256 * 1024)) {
        bench_error("cannot map a context stack");
        return -1;
    }
    if (getcontext(&im->b)) {
        bench_error("getcontext failed");
        return -1;
    }
    im->b.uc_stack.ss_sp = im->stack.lo;
    im->b.uc_stack.ss_size = (size_t)((char *)im->stack.hi - (char *)im->stack.lo);
    im->b.uc_link = NULL; /* uc_b never returns */
    makecontext(&im->b, uc_b, 0);
    uc_current = st;
    return 0;
}

static void uc_fini(user_state_t *st)
{
    uc_impl_t *im = st->impl;
    if (!im) return;
    uctx_stack_free(&im->stack);
    user_impl_free(st);
    if (uc_current == st) uc_current = NULL;
}

static void uc_pingpong(user_state_t *st, uint64_t n)
{
    uc_impl_t *im = st->impl;
    for (uint64_t i = 0; i < n; i++) {
        work_pass(&st->wa);
        st->msg = (uintptr_t)i;
        swapcontext(&im->a, &im->b);
        if (st->msg != (uintptr_t)i + 1) st->bad++;
    }
}

static const user_ops_t ops_uc = {.mechanism = "swapcontext",
                                  .resume = "swapcontext",
                                  .t_single = "a store and a load of the message slot, no switch",
                                  .init = uc_init,
                                  .fini = uc_fini,
                                  .single = user_single_store_load,
                                  .pingpong = uc_pingpong};
USER_BENCH(b_uc, "user/ucontext/same-thread", ops_uc, BENCH_DEFAULT | BENCH_QUICK, 410,
           "direct cost of one swapcontext switch (saves the signal mask: a system call), one kernel thread");
