/* crc: CRC-32 (zlib) over a large stream. */
#include "tasks/task_stream.h"
#include "core/bench.h"
#include <stdlib.h>
#ifdef HAVE_ZLIB
#include <zlib.h>

#define CRC_BYTES (450.0 * 1024 * 1024) /* at scale 1: about half a second here */
#define CRC_CHUNK 4096                  /* a few µs: see docs/tasks.md#what-a-chunk-is */

typedef struct {
    stream_t in;
    uLong crc;
} crc_t;

static int init(task_t *t)
{
    crc_t *c = calloc(1, sizeof *c);
    if (!c) {
        bench_error("crc: out of memory");
        return -1;
    }
    t->st = c;
    return stream_init(t, &c->in, CRC_BYTES * t->scale, CRC_CHUNK, 0, 0xc2c32ull);
}

static void reset(task_t *t)
{
    ((crc_t *)t->st)->crc = crc32(0L, Z_NULL, 0);
}

static void run(task_t *t, size_t u0, size_t u1)
{
    crc_t *c = t->st;
    for (size_t u = u0; u < u1; u++) c->crc = crc32_z(c->crc, stream_chunk(&c->in, u), CRC_CHUNK);
}

static uint64_t result(task_t *t)
{
    return ((crc_t *)t->st)->crc | (1ull << 32);
}

static void corrupt(task_t *t)
{
    ((crc_t *)t->st)->in.buf[12345] ^= 1;
}

static void fini(task_t *t)
{
    crc_t *c = t->st;
    if (!c) return;
    stream_fini(&c->in);
    free(c);
    t->st = NULL;
}

const task_ops_t task_crc = {
    "crc", "CRC-32 (zlib crc32_z) over a generated stream", init, reset, run, result, corrupt, fini, 1};
#else
static int na(task_t *t)
{
    (void)t;
    bench_error("task 'crc' is not available in this build (no zlib)");
    return -1;
}
const task_ops_t task_crc = {
    "crc", "CRC-32 (zlib): not available in this build", na, NULL, NULL, NULL, NULL, NULL, 0};
#endif
