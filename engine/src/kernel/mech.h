/* A kernel-level message mechanism used by the ping-pong: one message on one
 * of three channels wakes whoever waits on it. Every mechanism performs the
 * same system calls in the single-party run as in the switching run, except
 * where its design avoids them (documented per mechanism). */
#ifndef CTXBENCH_MECH_H
#define CTXBENCH_MECH_H
#include <stddef.h>

enum { CH_AB = 0, CH_BA = 1, CH_SELF = 2, CH_COUNT = 3 };
#define MECH_STATE_MAX 256

typedef struct mech {
    const char *name; /* pipe | futex | eventfd | sem */
    const char *note; /* what t_single contains for this mechanism */
    /* state lives in shared memory (MECH_STATE_MAX bytes) so that forked
     * parties see it; pshared: parties are separate processes */
    int (*init)(void *st, int pshared);
    void (*fini)(void *st);
    void (*send)(void *st, int ch);
    void (*recv)(void *st, int ch);
} mech_t;

extern const mech_t mech_pipe, mech_futex, mech_eventfd, mech_sem;

/* futex helpers shared by mechanisms and the ping-pong control block */
#include <stdint.h>
int futex_wait_u32(uint32_t *addr, uint32_t expected, int pshared);
int futex_wake_u32(uint32_t *addr, int count, int pshared);
#endif
