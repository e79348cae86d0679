/* deflate: zlib deflate (level 6) over a large generated text stream. The
 * compressed output is checksummed as it is produced (CRC-32 of every
 * output byte), so the result covers all of it. */
#include "tasks/task_stream.h"
#include "core/bench.h"
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ZLIB
#include <zlib.h>

#define DEFLATE_BYTES (3.0 * 1024 * 1024) /* at scale 1: about half a second here */
#define DEFLATE_CHUNK 32                  /* a few µs: see docs/tasks.md#what-a-chunk-is */
#define OUT_LEN       (64u * 1024u)

typedef struct {
    stream_t in;
    z_stream z;
    int z_live;
    uint8_t *out;
    uLong crc;
    uint64_t out_bytes;
    int error;
} deflate_t;

static int init(task_t *t)
{
    deflate_t *d = calloc(1, sizeof *d);
    if (!d) {
        bench_error("deflate: out of memory");
        return -1;
    }
    t->st = d;
    d->out = aligned_alloc(4096, OUT_LEN);
    if (!d->out) {
        bench_error("deflate: out of memory");
        return -1;
    }
    return stream_init(t, &d->in, DEFLATE_BYTES * t->scale, DEFLATE_CHUNK, 1, 0xdef1a7eull);
}

static void reset(task_t *t)
{
    deflate_t *d = t->st;
    if (d->z_live) deflateEnd(&d->z);
    memset(&d->z, 0, sizeof d->z);
    d->error = deflateInit(&d->z, 6) != Z_OK;
    d->z_live = !d->error;
    memset(d->out, 0, OUT_LEN);
    d->crc = crc32(0L, Z_NULL, 0);
    d->out_bytes = 0;
}

static void run(task_t *t, size_t u0, size_t u1)
{
    deflate_t *d = t->st;
    for (size_t u = u0; u < u1 && !d->error; u++) {
        int flush = u + 1 == t->units ? Z_FINISH : Z_NO_FLUSH;
        d->z.next_in = (Bytef *)stream_chunk(&d->in, u);
        d->z.avail_in = DEFLATE_CHUNK;
        for (int guard = 0; guard < 1000; guard++) {
            d->z.next_out = d->out;
            d->z.avail_out = OUT_LEN;
            int rc = deflate(&d->z, flush);
            size_t got = OUT_LEN - d->z.avail_out;
            d->crc = crc32_z(d->crc, d->out, got);
            d->out_bytes += got;
            if (rc == Z_STREAM_ERROR) {
                d->error = 1;
                break;
            }
            if (flush == Z_FINISH ? rc == Z_STREAM_END : d->z.avail_in == 0 && d->z.avail_out != 0) break;
        }
    }
}

static uint64_t result(task_t *t)
{
    deflate_t *d = t->st;
    if (d->error) return 0;
    return ((uint64_t)d->crc << 32) ^ d->out_bytes;
}

static void corrupt(task_t *t)
{
    ((deflate_t *)t->st)->in.buf[777] ^= 0x20;
}

static void fini(task_t *t)
{
    deflate_t *d = t->st;
    if (!d) return;
    if (d->z_live) deflateEnd(&d->z);
    stream_fini(&d->in);
    free(d->out);
    free(d);
    t->st = NULL;
}

const task_ops_t task_deflate = {
    "deflate", "zlib deflate (level 6) of a generated text stream", init, reset, run, result, corrupt, fini,
    1};
#else
static int na(task_t *t)
{
    (void)t;
    bench_error("task 'deflate' is not available in this build (no zlib)");
    return -1;
}
const task_ops_t task_deflate = {
    "deflate", "zlib deflate: not available in this build", na, NULL, NULL, NULL, NULL, NULL, 0};
#endif
