/* chase: a dependent walk over a buffer of --size bytes (default: half the
 * L1 data cache), one load per 64-byte line in a random cyclic order, so
 * that neither the prefetchers nor out-of-order execution can hide a miss:
 * each load's latency is paid in full. The victim of the polluter pair
 * (tasks/chase+sweep): its chunks after a switch-in pay the refill of the
 * lines the polluter evicted, line by line. One unit is CHASE_CHUNK loads. */
#include "tasks/task.h"
#include "core/bench.h"
#include <stdio.h>
#include <stdlib.h>

#define CHASE_CHUNK 256             /* loads per unit */
#define CHASE_LOADS (1u << 20)      /* loads at scale 1 */
#define CHASE_MAX   (1024ull << 20) /* bounded: memory */
#define LINE        64

typedef struct {
    uint64_t *buf; /* line l's first word holds the next line's index */
    size_t lines;
    uint64_t at, sum;
} chase_t;

static int init(task_t *t)
{
    chase_t *c = calloc(1, sizeof *c);
    if (!c) {
        bench_error("chase: out of memory");
        return -1;
    }
    t->st = c;
    size_t size = t->size;
    if (!size) {
        size_t l1 = cache_size_bytes(1, 1);
        size = (l1 ? l1 : 32 * 1024) / 2;
    }
    if (size < 2 * LINE || size > CHASE_MAX) {
        bench_error("chase: --size %zu bytes: between %d bytes and %llu MiB", size, 2 * LINE,
                    CHASE_MAX >> 20);
        return -1;
    }
    c->lines = size / LINE;
    c->buf = aligned_alloc(4096, (c->lines * LINE + 4095) / 4096 * 4096);
    size_t *perm = malloc(c->lines * sizeof *perm);
    if (!c->buf || !perm) {
        free(perm);
        bench_error("chase: out of memory (%zu bytes)", size);
        return -1;
    }
    /* Sattolo's shuffle: one cycle through every line, from a fixed seed */
    for (size_t i = 0; i < c->lines; i++) perm[i] = i;
    uint64_t r = 0xc4a5eull;
    for (size_t i = c->lines - 1; i > 0; i--) {
        size_t j = (size_t)(task_rng(&r) % i);
        size_t x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    for (size_t i = 0; i < c->lines; i++) c->buf[i * (LINE / 8)] = perm[i];
    free(perm);
    double loads = CHASE_LOADS * t->scale;
    t->units = loads < CHASE_CHUNK ? 1 : (size_t)(loads / CHASE_CHUNK + 0.5);
    t->bytes = c->lines * LINE;
    t->detail = c->lines;
    snprintf(t->chunk, sizeof t->chunk, "%d dependent loads", CHASE_CHUNK);
    return 0;
}

static void reset(task_t *t)
{
    chase_t *c = t->st;
    c->at = 0;
    c->sum = 0;
}

static void run(task_t *t, size_t u0, size_t u1)
{
    chase_t *c = t->st;
    uint64_t at = c->at, sum = c->sum;
    for (size_t u = u0; u < u1; u++)
        for (int k = 0; k < CHASE_CHUNK; k++) {
            at = c->buf[at * (LINE / 8)];
            sum += at;
        }
    c->at = at;
    c->sum = sum;
}

static uint64_t result(task_t *t)
{
    chase_t *c = t->st;
    return (c->sum ^ (c->at << 40)) | 1;
}

static void corrupt(task_t *t)
{
    chase_t *c = t->st;
    uint64_t x = c->buf[0];
    c->buf[0] = c->buf[LINE / 8];
    c->buf[LINE / 8] = x; /* two lines swap successors: another cycle */
}

static void fini(task_t *t)
{
    chase_t *c = t->st;
    if (!c) return;
    free(c->buf);
    free(c);
    t->st = NULL;
}

const task_ops_t task_chase = {
    "chase", "a dependent walk over the lines of a buffer in a random cyclic order",
    init,    reset,
    run,     result,
    corrupt, fini,
    1};
