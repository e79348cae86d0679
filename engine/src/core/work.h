/* The unit of work a party does between two messages
 * (docs/method.md#working-set-sweep): traverse its own array of `size`
 * bytes at `stride` bytes, incrementing each element it touches. Every
 * element is touched exactly once per pass, whatever the stride; the
 * stride only changes the order. stride 0: no work (the direct cost). */
#ifndef CTXBENCH_WORK_H
#define CTXBENCH_WORK_H
#include <stddef.h>
#include <stdint.h>

typedef double work_elem_t; /* Chen et al. use double elements */

typedef struct work {
    size_t size, stride; /* bytes */
    work_elem_t *a;      /* mmap'd by the party that uses it */
    size_t mapped;
} work_t;

/* Allocate (mmap, page-aligned, touched) in the calling party. 0 on success. */
int work_init(work_t *w, size_t size, size_t stride);
void work_fini(work_t *w);
/* One pass. Returns the number of elements touched (the compiler cannot
 * drop the stores: the array is written through a volatile-qualified view
 * only at the end; see work.c). */
uint64_t work_pass(work_t *w);
#endif
