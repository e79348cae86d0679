/* sort: bubble sort over an array the size of the L1 data cache, aligned,
 * refilled from a fixed seed before every repetition (David et al. 2007,
 * section 3.2). One unit is a fixed number of comparisons (SORT_CHUNK), so
 * units are equal in work whatever the pass; a cursor (pass, index) carries
 * the sort from one unit to the next, which therefore run in order. */
#include "tasks/task.h"
#include "core/bench.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SORT_REPS  1.75 /* repetitions at scale 1: about half a second here */
#define SORT_CHUNK 1024 /* comparisons per unit: about a µs (docs/tasks.md#what-a-chunk-is) */

typedef struct {
    uint32_t *a, *input;
    size_t n;       /* elements */
    uint64_t total; /* comparisons of a run */
    uint64_t done;  /* comparisons so far */
    size_t pass, i; /* the cursor: pass, and the next comparison's index in it */
    int refill;     /* a repetition ended: refill before the next comparison */
    uint64_t acc;   /* checksum of finished repetitions */
    int unsorted;   /* a finished repetition was not sorted */
} sort_t;

static uint64_t fold(const uint32_t *a, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++) h = (h ^ a[i]) * 0x100000001b3ull;
    return h;
}

static int init(task_t *t)
{
    sort_t *s = calloc(1, sizeof *s);
    if (!s) {
        bench_error("sort: out of memory");
        return -1;
    }
    t->st = s;
    size_t l1 = cache_size_bytes(1, 1);
    if (!l1) l1 = 32 * 1024;
    s->n = l1 / sizeof(uint32_t);
    /* aligned to a page: the array maps onto every L1 set exactly once */
    s->a = aligned_alloc(4096, s->n * sizeof *s->a);
    s->input = aligned_alloc(4096, s->n * sizeof *s->input);
    if (!s->a || !s->input) {
        bench_error("sort: out of memory");
        return -1;
    }
    uint64_t r = 0x5eed5eed5eedull;
    for (size_t i = 0; i < s->n; i++) s->input[i] = (uint32_t)task_rng(&r);
    /* the comparisons of SORT_REPS x scale repetitions, pass by pass */
    double p = SORT_REPS * t->scale * (double)(s->n - 1);
    size_t passes = p < 1 ? 1 : (size_t)(p + 0.5);
    for (size_t u = 0; u < passes; u++) s->total += s->n - 1 - u % (s->n - 1);
    t->units = (size_t)((s->total + SORT_CHUNK - 1) / SORT_CHUNK);
    t->bytes = s->n * sizeof *s->a;
    t->detail = s->n;
    snprintf(t->chunk, sizeof t->chunk, "%d comparisons", SORT_CHUNK);
    return 0;
}

static void reset(task_t *t)
{
    sort_t *s = t->st;
    memcpy(s->a, s->input, s->n * sizeof *s->a);
    s->acc = 0xcbf29ce484222325ull;
    s->unsorted = 0;
    s->done = 0;
    s->pass = s->i = 0;
    s->refill = 0;
}

static void run(task_t *t, size_t u0, size_t u1)
{
    sort_t *s = t->st;
    uint32_t *a = s->a;
    uint64_t end = (uint64_t)u1 * SORT_CHUNK < s->total ? (uint64_t)u1 * SORT_CHUNK : s->total;
    (void)u0; /* units run in order: the cursor is where u0 begins */
    while (s->done < end) {
        if (s->refill) { /* the next repetition */
            memcpy(a, s->input, s->n * sizeof *a);
            s->refill = 0;
        }
        size_t last = s->n - 1 - s->pass; /* comparisons in this pass */
        uint64_t left = end - s->done;
        size_t stop = last - s->i < left ? last : s->i + (size_t)left;
        for (size_t i = s->i; i < stop; i++) {
            /* written as min/max: the compiler makes it branch-free, so the
             * time depends on the data size, not on branch prediction */
            uint32_t x = a[i], y = a[i + 1];
            a[i] = x < y ? x : y;
            a[i + 1] = x < y ? y : x;
        }
        s->done += stop - s->i;
        s->i = stop;
        if (s->i < last) break;
        s->i = 0;
        if (++s->pass < s->n - 1) continue;
        for (size_t i = 0; i + 1 < s->n; i++) /* a repetition ended */
            if (a[i] > a[i + 1]) {
                s->unsorted = 1;
                break;
            }
        s->acc = fold(a, s->n, s->acc);
        s->pass = 0;
        s->refill = 1;
    }
}

static uint64_t result(task_t *t)
{
    sort_t *s = t->st;
    if (s->unsorted) return 0; /* never a valid checksum: the sort is broken */
    return fold(s->a, s->n, s->acc);
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

const task_ops_t task_sort = {
    "sort", "bubble sort of an L1d-sized array of 32-bit integers", init, reset, run, result, corrupt, fini,
    1};
