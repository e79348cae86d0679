#include "core/bench.h"
#include <stdlib.h>
#include <string.h>

extern const bench_t *const __start_ctxbench_benches[];
extern const bench_t *const __stop_ctxbench_benches[];

static const bench_t **sorted;
static size_t nsorted;

static int cmp(const void *a, const void *b)
{
    const bench_t *x = *(const bench_t *const *)a, *y = *(const bench_t *const *)b;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    return strcmp(x->id, y->id);
}

static void init(void)
{
    if (sorted) return;
    nsorted = (size_t)(__stop_ctxbench_benches - __start_ctxbench_benches);
    sorted = malloc((nsorted ? nsorted : 1) * sizeof *sorted);
    if (!sorted) abort();
    size_t k = 0;
    for (size_t i = 0; i < nsorted; i++) {
        const bench_t *b = __start_ctxbench_benches[i];
        if (!b->available || b->available(b)) sorted[k++] = b; /* probed at run time (e.g. PMU access) */
    }
    nsorted = k;
    qsort(sorted, nsorted, sizeof *sorted, cmp);
}

size_t bench_count(void)
{
    init();
    return nsorted;
}
const bench_t *bench_at(size_t i)
{
    init();
    return i < nsorted ? sorted[i] : NULL;
}
const bench_t *bench_find(const char *id)
{
    init();
    for (size_t i = 0; i < nsorted; i++)
        if (!strcmp(sorted[i]->id, id)) return sorted[i];
    return NULL;
}
