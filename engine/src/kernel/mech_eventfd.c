#include "kernel/mech.h"
#include "core/bench.h"
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

typedef struct {
    int fd[CH_COUNT];
} efd_state;

static int init(void *p, int pshared)
{
    (void)pshared;
    efd_state *s = p;
    for (int c = 0; c < CH_COUNT; c++)
        if ((s->fd[c] = eventfd(0, EFD_CLOEXEC)) < 0) {
            bench_error("eventfd: %s", strerror(errno));
            return -1;
        }
    return 0;
}

static void fini(void *p)
{
    for (int c = 0; c < CH_COUNT; c++) close(((efd_state *)p)->fd[c]);
}

static void send_(void *p, int ch)
{
    uint64_t one = 1;
    while (write(((efd_state *)p)->fd[ch], &one, 8) != 8 && errno == EINTR) {
    }
}

static void recv_(void *p, int ch)
{
    uint64_t v;
    while (read(((efd_state *)p)->fd[ch], &v, 8) != 8 && errno == EINTR) {
    }
}

const mech_t mech_eventfd = {
    "eventfd", "t_single: write() and read() of an eventfd counter, without blocking", init, fini, send_,
    recv_};
