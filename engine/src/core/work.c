#include "core/work.h"
#include <string.h>
#include <sys/mman.h>

int work_init(work_t *w, size_t size, size_t stride)
{
    memset(w, 0, sizeof *w);
    w->size = size;
    w->stride = stride;
    if (!size || !stride) return 0;
    size_t len = (size + 4095) & ~(size_t)4095;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return -1;
    memset(p, 0, len); /* fault every page in now, not in the timed loop */
    w->a = p;
    w->mapped = len;
    return 0;
}

void work_fini(work_t *w)
{
    if (w->a) munmap(w->a, w->mapped);
    w->a = NULL;
}

/* noinline + the array escaping through w->a keep the loop real: the
 * increments are visible to later passes and to other code reading the
 * array, so the compiler must perform every load and store. */
__attribute__((noinline)) uint64_t work_pass(work_t *w)
{
    if (!w->a || !w->stride) return 0;
    size_t step = w->stride / sizeof(work_elem_t);
    size_t len = w->size / sizeof(work_elem_t);
    if (!step) step = 1;
    work_elem_t *volatile av = w->a; /* reload base: no hoisting across calls */
    work_elem_t *a = av;
    for (size_t i = 0; i < step; i++)
        for (size_t j = i; j < len; j += step) a[j] += 1;
    __asm__ __volatile__("" ::"r"(a) : "memory");
    return len;
}
