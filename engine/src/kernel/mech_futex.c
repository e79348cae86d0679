#include "kernel/mech.h"
#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

int futex_wait_u32(uint32_t *addr, uint32_t expected, int pshared)
{
    return (int)syscall(SYS_futex, addr, pshared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

int futex_wake_u32(uint32_t *addr, int count, int pshared)
{
    return (int)syscall(SYS_futex, addr, pshared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

typedef struct {
    uint32_t w[CH_COUNT];
    int pshared;
} futex_state;

static int init(void *p, int pshared)
{
    futex_state *s = p;
    for (int c = 0; c < CH_COUNT; c++) s->w[c] = 0;
    s->pshared = pshared;
    return 0;
}

static void fini(void *p)
{
    (void)p;
}

/* Always one FUTEX_WAKE per message and at least one FUTEX_WAIT per receive
 * (it returns EAGAIN at once when the word is already set), so that the
 * single-party run makes the same two system calls as the switching run and
 * the difference is the switch alone. */
static void send_(void *p, int ch)
{
    futex_state *s = p;
    atomic_store_explicit((_Atomic uint32_t *)&s->w[ch], 1, memory_order_release);
    futex_wake_u32(&s->w[ch], 1, s->pshared);
}

static void recv_(void *p, int ch)
{
    futex_state *s = p;
    for (;;) {
        futex_wait_u32(&s->w[ch], 0, s->pshared);
        if (atomic_exchange_explicit((_Atomic uint32_t *)&s->w[ch], 0, memory_order_acquire)) return;
    }
}

const mech_t mech_futex = {
    "futex", "t_single: FUTEX_WAKE with no waiter and FUTEX_WAIT returning EAGAIN (same two system calls)",
    init,    fini,
    send_,   recv_};
