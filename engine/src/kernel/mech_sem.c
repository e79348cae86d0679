#include "kernel/mech.h"
#include "core/bench.h"
#include <errno.h>
#include <semaphore.h>
#include <string.h>

typedef struct {
    sem_t s[CH_COUNT];
} sem_state;
_Static_assert(sizeof(sem_state) <= MECH_STATE_MAX, "sem state too large");

static int init(void *p, int pshared)
{
    sem_state *s = p;
    for (int c = 0; c < CH_COUNT; c++)
        if (sem_init(&s->s[c], pshared, 0)) {
            bench_error("sem_init: %s", strerror(errno));
            return -1;
        }
    return 0;
}

static void fini(void *p)
{
    for (int c = 0; c < CH_COUNT; c++) sem_destroy(&((sem_state *)p)->s[c]);
}

static void send_(void *p, int ch)
{
    sem_post(&((sem_state *)p)->s[ch]);
}

static void recv_(void *p, int ch)
{
    while (sem_wait(&((sem_state *)p)->s[ch]) && errno == EINTR) {
    }
}

/* glibc's semaphores stay in user space when uncontended, so the single run
 * makes no system call; the futex calls of the contended path are part of
 * what this mechanism's switch costs. */
const mech_t mech_sem = {
    "sem", "t_single: uncontended sem_post/sem_wait, no system call; the switch includes the futex calls",
    init,  fini,
    send_, recv_};
