#include "kernel/mech.h"
#include "core/bench.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int fd[CH_COUNT][2];
} pipe_state;

static int init(void *p, int pshared)
{
    (void)pshared;
    pipe_state *s = p;
    for (int c = 0; c < CH_COUNT; c++)
        if (pipe2(s->fd[c], O_CLOEXEC)) {
            bench_error("pipe2: %s", strerror(errno));
            return -1;
        }
    return 0;
}

static void fini(void *p)
{
    pipe_state *s = p;
    for (int c = 0; c < CH_COUNT; c++) {
        close(s->fd[c][0]);
        close(s->fd[c][1]);
    }
}

static void send_(void *p, int ch)
{
    char b = 1;
    while (write(((pipe_state *)p)->fd[ch][1], &b, 1) != 1 && errno == EINTR) {
    }
}

static void recv_(void *p, int ch)
{
    char b;
    while (read(((pipe_state *)p)->fd[ch][0], &b, 1) != 1 && errno == EINTR) {
    }
}

const mech_t mech_pipe = {
    "pipe", "t_single: write() and read() of one byte on a pipe, without blocking", init, fini, send_, recv_};
