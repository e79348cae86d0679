#include "core/party.h"
#include "core/bench.h"
#include "core/clock.h"
#include "core/reap.h"
#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

void *party_shared_map(size_t len, const char *what)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        bench_error("mmap%s%s: %s", what ? " " : "", what ? what : "", strerror(errno));
        return NULL;
    }
    memset(p, 0, len);
    return p;
}

typedef struct party_call {
    party_fn_t fn;
    alignas(max_align_t) unsigned char arg[];
} party_call_t;

static void *party_thread(void *p)
{
    party_call_t *c = p;
    c->fn(c->arg);
    free(c);
    return NULL;
}

int party_start(int process, party_fn_t fn, const void *arg, size_t size, size_t stack, pid_t *child,
                pthread_t *thread)
{
    party_call_t *c = malloc(sizeof *c + size);
    if (!c) {
        bench_error("out of memory");
        return -1;
    }
    c->fn = fn;
    memcpy(c->arg, arg, size);
    if (process) {
        pid_t p = reap_fork();
        if (p < 0) {
            free(c);
            bench_error("fork: %s", strerror(errno));
            return -1;
        }
        if (p == 0) {
            fn(c->arg);
            _exit(0);
        }
        free(c);
        *child = p;
        return 0;
    }
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, stack);
    int rc = pthread_create(thread, &at, party_thread, c);
    pthread_attr_destroy(&at);
    if (rc) {
        free(c);
        bench_error("pthread_create: %s", strerror(rc));
        return -1;
    }
    return 0;
}

void party_ready(uint32_t *ready)
{
    atomic_fetch_add((_Atomic uint32_t *)ready, 1);
}

int party_wait_ready(const uint32_t *ready, uint32_t want, uint64_t timeout_ns)
{
    uint64_t t_end = clock_ns() + timeout_ns;
    while (atomic_load((_Atomic uint32_t *)ready) < want) {
        if (clock_ns() > t_end) return -1;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return 0;
}
