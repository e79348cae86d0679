/* The input stream shared by deflate, aes and crc: fixed-seed bytes in a
 * buffer larger than the last-level cache (when memory allows), read in
 * chunks of a fixed number of bytes (one unit each) and wrapped around
 * when the run is longer. */
#ifndef CTXBENCH_TASK_STREAM_H
#define CTXBENCH_TASK_STREAM_H
#include "tasks/task.h"

typedef struct {
    uint8_t *buf;
    size_t len;   /* multiple of 64 KiB (so of every chunk size) */
    size_t chunk; /* bytes per unit: a power of two up to 64 KiB */
} stream_t;

/* total = bytes one run processes (sets t->units, t->bytes, t->chunk). */
int stream_init(task_t *t, stream_t *s, double total, size_t chunk, int text, uint64_t seed);
static inline const uint8_t *stream_chunk(const stream_t *s, size_t u)
{
    return s->buf + (u * s->chunk) % s->len;
}
void stream_fini(stream_t *s);
#endif
