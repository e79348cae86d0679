/* The input stream shared by deflate, aes and crc: fixed-seed bytes in a
 * buffer larger than the last-level cache (when memory allows), read in
 * TASK_CHUNK units and wrapped around when the run is longer. */
#ifndef CTXBENCH_TASK_STREAM_H
#define CTXBENCH_TASK_STREAM_H
#include "tasks/task.h"

typedef struct {
    uint8_t *buf;
    size_t len; /* multiple of TASK_CHUNK */
} stream_t;

/* total = bytes one run processes (sets t->units and t->bytes). */
int stream_init(task_t *t, stream_t *s, double total, int text, uint64_t seed);
static inline const uint8_t *stream_chunk(const stream_t *s, size_t u)
{
    return s->buf + (u * (size_t)TASK_CHUNK) % s->len;
}
void stream_fini(stream_t *s);
#endif
