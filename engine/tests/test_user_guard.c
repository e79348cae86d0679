/* A context that overflows its stack hits the guard page: the SIGSEGV is
 * caught on an alternate signal stack, its address lies in the guard page,
 * and nothing beyond the stack was written. */
#include "check.h"
#include "user/uctx.h"
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static uctx_t main_ctx, victim;
static uctx_stack_t vstack;
static sigjmp_buf back;
static volatile sig_atomic_t faulted, in_guard;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    faulted = 1;
    in_guard = uctx_stack_guard_hit(&vstack, si->si_addr);
    siglongjmp(back, 1);
}

__attribute__((noinline)) static int recurse(int depth)
{
    volatile char pad[512];
    memset((char *)pad, depth & 0xff, sizeof pad);
    if (depth >= 100000) return pad[0]; /* bounded: far deeper than 64 KiB allows */
    return recurse(depth + 1) + pad[1];
}

static void victim_entry(void *d, void *f)
{
    (void)d;
    (void)f;
    recurse(0);
    uctx_switch(&victim, &main_ctx, NULL); /* not reached if the guard works */
    abort();
}

int main(void)
{
    stack_t ss = {.ss_sp = malloc(64 * 1024), .ss_size = 64 * 1024, .ss_flags = 0};
    CHECK(ss.ss_sp && sigaltstack(&ss, NULL) == 0, "sigaltstack");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0, "sigaction");

    /* A neighbour mapped right below would be silently corrupted without the
     * guard; here the guard page is what lies below the usable range. */
    CHECK(uctx_stack_alloc(&vstack, 64 * 1024) == 0, "stack");
    CHECK(uctx_make(&victim, &vstack, victim_entry, NULL) == 0, "make");
    if (sigsetjmp(back, 1) == 0) uctx_switch(&main_ctx, &victim, NULL);
    CHECK(faulted, "stack overflow was not caught");
    CHECK(in_guard, "fault address outside the guard page");
    signal(SIGSEGV, SIG_DFL);
    uctx_stack_free(&vstack);
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, NULL);
    free(ss.ss_sp);
    CHECK_DONE("user-level stack: guard page catches overflow");
}
