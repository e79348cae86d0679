/* user/green/yield and user/green/channel: two green threads (green.h) in
 * one kernel thread. A is the main green thread, B a created one.
 *  - yield: each does its work and message, then green_yield() through the
 *    run queue. t_single: A alone, green_yield() with nobody else runnable
 *    (the scheduler's no-switch path).
 *  - channel: the message goes A->B and back through two mutex-guarded
 *    channels (Chen et al.'s setup). t_single: A sends to and receives from its
 *    own channel (the same locking and queueing, no switch). */
#include "user/green.h"
#include "user/user_pp.h"

typedef struct green_impl {
    green_t *b;
    green_chan_t cmd;          /* yield: A tells B how many round trips */
    green_chan_t ab, ba, self; /* channel */
} green_impl_t;

static void yield_b(void *p)
{
    user_state_t *st = p;
    green_impl_t *im = st->impl;
    for (;;) {
        uint64_t n = green_chan_recv(&im->cmd); /* parked off the run queue between runs */
        green_yield();                          /* back to A, which starts its clock */
        for (uint64_t i = 0; i < n; i++) {
            uintptr_t m = st->msg;
            work_pass(&st->wb);
            st->msg = m + 1;
            st->answered++;
            green_yield();
        }
    }
}

static void chan_b(void *p)
{
    user_state_t *st = p;
    green_impl_t *im = st->impl;
    for (;;) {
        uintptr_t m = green_chan_recv(&im->ab);
        work_pass(&st->wb);
        st->answered++;
        green_chan_send(&im->ba, m + 1);
    }
}

static int green_setup(user_state_t *st, green_fn_t fn)
{
    green_impl_t *im = user_impl_alloc(st, sizeof *im);
    if (!im) return -1;
    green_init();
    if (green_chan_init(&im->cmd, 1) || green_chan_init(&im->ab, 1) || green_chan_init(&im->ba, 1) ||
        green_chan_init(&im->self, 1)) {
        bench_error("out of memory");
        return -1;
    }
    im->b = green_create(fn, st, 256 * 1024);
    if (!im->b) {
        bench_error("cannot create a green thread");
        return -1;
    }
    green_yield(); /* let B start and block (on cmd or ab) */
    return 0;
}

static int yield_init(user_state_t *st)
{
    return green_setup(st, yield_b);
}
static int chan_init(user_state_t *st)
{
    return green_setup(st, chan_b);
}

static void green_impl_fini(user_state_t *st)
{
    green_impl_t *im = st->impl;
    if (!im) return;
    green_discard(im->b); /* blocked on a channel we are destroying */
    green_chan_fini(&im->cmd);
    green_chan_fini(&im->ab);
    green_chan_fini(&im->ba);
    green_chan_fini(&im->self);
    green_fini();
    user_impl_free(st);
}

static void yield_single(user_state_t *st, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        work_pass(&st->wa);
        st->msg = (uintptr_t)i;
        green_yield(); /* nobody else runnable: returns at once */
        if (st->msg != (uintptr_t)i) st->bad++;
    }
}

/* Outside the timed part: wake B for n round trips, and park it again. */
static void yield_pre(user_state_t *st, uint64_t n)
{
    green_impl_t *im = st->impl;
    green_chan_send(&im->cmd, n);
    green_yield(); /* B takes the command and yields back */
}

static void yield_post(user_state_t *st)
{
    (void)st;
    green_yield(); /* B parks on cmd again: A alone for the next t_single */
}

static void yield_pingpong(user_state_t *st, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        work_pass(&st->wa);
        st->msg = (uintptr_t)i;
        green_yield();
        if (st->msg != (uintptr_t)i + 1) st->bad++;
    }
}

static void chan_single(user_state_t *st, uint64_t n)
{
    green_impl_t *im = st->impl;
    for (uint64_t i = 0; i < n; i++) {
        work_pass(&st->wa);
        green_chan_send(&im->self, i);
        if (green_chan_recv(&im->self) != (uintptr_t)i) st->bad++;
    }
}

static void chan_pingpong(user_state_t *st, uint64_t n)
{
    green_impl_t *im = st->impl;
    for (uint64_t i = 0; i < n; i++) {
        work_pass(&st->wa);
        green_chan_send(&im->ab, i);
        if (green_chan_recv(&im->ba) != (uintptr_t)i + 1) st->bad++;
    }
}

static const user_ops_t ops_yield = {.mechanism = "green-yield",
                                     .resume = "ret",
                                     .t_single = "green_yield() with nobody else runnable (no switch)",
                                     .init = yield_init,
                                     .fini = green_impl_fini,
                                     .single = yield_single,
                                     .pingpong = yield_pingpong,
                                     .pre = yield_pre,
                                     .post = yield_post};
static const user_ops_t ops_chan = {.mechanism = "green-channel",
                                    .resume = "ret",
                                    .t_single =
                                        "send to and receive from its own channel (mutex, queue; no switch)",
                                    .init = chan_init,
                                    .fini = green_impl_fini,
                                    .single = chan_single,
                                    .pingpong = chan_pingpong};

USER_BENCH(b_yield, "user/green/yield", ops_yield, BENCH_DEFAULT | BENCH_QUICK, 420,
           "direct cost of one green-thread switch through the run queue (yield), one kernel thread");
USER_BENCH(b_chan, "user/green/channel", ops_chan, BENCH_DEFAULT, 421,
           "direct cost of one green-thread switch handing a message through a mutex-guarded channel");
