#include "tasks/task_stream.h"
#include "core/bench.h"
#include <stdio.h>
#include <stdlib.h>

#define STREAM_MAX  (128u << 20)
#define STREAM_WRAP (64u << 10) /* the buffer is a whole number of these */

int stream_init(task_t *t, stream_t *s, double total, size_t chunk, int text, uint64_t seed)
{
    size_t units = total < (double)chunk ? 1 : (size_t)(total / (double)chunk + 0.5);
    size_t len = (units * chunk + STREAM_WRAP - 1) / STREAM_WRAP * STREAM_WRAP;
    if (len > STREAM_MAX) len = STREAM_MAX;
    s->len = len;
    s->chunk = chunk;
    s->buf = aligned_alloc(4096, len);
    if (!s->buf) {
        bench_error("%s: out of memory (%zu bytes)", t->ops->name, len);
        return -1;
    }
    if (text) {
        task_fill_text(s->buf, len, seed);
    } else {
        uint64_t r = seed;
        for (size_t i = 0; i < len; i += 8) {
            uint64_t x = task_rng(&r);
            for (int k = 0; k < 8; k++) s->buf[i + k] = (uint8_t)(x >> (8 * k));
        }
    }
    t->units = units;
    t->bytes = units * chunk;
    t->detail = len;
    snprintf(t->chunk, sizeof t->chunk, "%zu bytes of the stream", chunk);
    return 0;
}

void stream_fini(stream_t *s)
{
    free(s->buf);
    s->buf = NULL;
}
