#include "tasks/task_stream.h"
#include "core/bench.h"
#include <stdlib.h>

#define STREAM_MAX (128u << 20)

int stream_init(task_t *t, stream_t *s, double total, int text, uint64_t seed)
{
    size_t units = total < TASK_CHUNK ? 1 : (size_t)(total / TASK_CHUNK + 0.5);
    size_t len = units * (size_t)TASK_CHUNK;
    if (len > STREAM_MAX) len = STREAM_MAX;
    s->len = len;
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
    t->bytes = units * (size_t)TASK_CHUNK;
    t->detail = len;
    return 0;
}

void stream_fini(stream_t *s)
{
    free(s->buf);
    s->buf = NULL;
}
