/* sort: bubble sort over an array the size of the L1 data cache, aligned,
 * refilled from a fixed seed before every repetition (David et al. 2007,
 * section 3.2). One unit is one pass; a pass's cost is its number of
 * comparisons, so the split into segments is even in work, not in
 * passes. */
#include "tasks/task.h"
#include "core/bench.h"
#include <stdlib.h>
#include <string.h>

#define SORT_REPS 1.75 /* repetitions at scale 1: about half a second here */

typedef struct {
    uint32_t *a, *input;
    size_t n;     /* elements */
    uint64_t acc; /* checksum of finished repetitions */
    int unsorted; /* a finished repetition was not sorted */
} sort_t;

static uint64_t fold(const uint32_t *a, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++) h = (h ^ a[i]) * 0x100000001b3ull;
    return h;
}

static int init(task_t *t)
{
    sort_t *s = calloc(1, sizeof *s);
    size_t l1 = cache_size_bytes(1, 1);
    if (!l1) l1 = 32 * 1024;
    s->n = l1 / sizeof(uint32_t);
    /* aligned to a page: the array maps onto every L1 set exactly once */
    s->a = aligned_alloc(4096, s->n * sizeof *s->a);
    s->input = aligned_alloc(4096, s->n * sizeof *s->input);
    if (!s || !s->a || !s->input) {
        bench_error("sort: out of memory");
        return -1;
    }
    uint64_t r = 0x5eed5eed5eedull;
    for (size_t i = 0; i < s->n; i++) s->input[i] = (uint32_t)task_rng(&r);
    t->st = s;
    double u = SORT_REPS * t->scale * (double)(s->n - 1);
    t->units = u < 1 ? 1 : (size_t)(u + 0.5);
    t->bytes = s->n * sizeof *s->a;
    t->detail = s->n;
    return 0;
}

static void reset(task_t *t)
{
    sort_t *s = t->st;
    memcpy(s->a, s->input, s->n * sizeof *s->a);
    s->acc = 0xcbf29ce484222325ull;
    s->unsorted = 0;
}

static void run(task_t *t, size_t u0, size_t u1)
{
    sort_t *s = t->st;
    uint32_t *a = s->a;
    const size_t passes = s->n - 1;
    for (size_t u = u0; u < u1; u++) {
        size_t pass = u % passes;
        if (pass == 0 && u) memcpy(a, s->input, s->n * sizeof *a); /* next repetition */
        size_t end = s->n - 1 - pass;
        for (size_t i = 0; i < end; i++) {
            /* written as min/max: the compiler makes it branch-free, so the
             * time depends on the data size, not on branch prediction */
            uint32_t x = a[i], y = a[i + 1];
            a[i] = x < y ? x : y;
            a[i + 1] = x < y ? y : x;
        }
        if (pass == passes - 1) {
            for (size_t i = 0; i + 1 < s->n; i++)
                if (a[i] > a[i + 1]) {
                    s->unsorted = 1;
                    break;
                }
            s->acc = fold(a, s->n, s->acc);
        }
    }
}

static uint64_t result(task_t *t)
{
    sort_t *s = t->st;
    if (s->unsorted) return 0; /* never a valid checksum: the sort is broken */
    return fold(s->a, s->n, s->acc);
}

static double cost(const task_t *t, size_t u)
{
    const sort_t *s = t->st;
    return (double)(s->n - 1 - u % (s->n - 1)) + 8; /* comparisons, plus the pass's fixed part */
}

static void corrupt(task_t *t)
{
    sort_t *s = t->st;
    s->input[s->n / 3] ^= 0x40000u;
}

static void fini(task_t *t)
{
    sort_t *s = t->st;
    if (!s) return;
    free(s->a);
    free(s->input);
    free(s);
    t->st = NULL;
}

const task_ops_t task_sort = {"sort", "bubble sort of an L1d-sized array of 32-bit integers",
                              init,   reset,
                              run,    result,
                              cost,   corrupt,
                              fini,   1};
