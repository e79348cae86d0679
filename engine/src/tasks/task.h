/* The four deterministic, self-checking tasks of David et al. (sort, deflate,
 * aes, crc) plus the empty task used to measure the switch alone.
 *
 * A task's work is a sequence of units of equal work, the chunks the pairs
 * and irq time one by one (core/chunks.h): a fixed number of bytes of a
 * stream, a fixed number of bubble-sort comparisons, a fixed number of
 * dependent loads. Running units [0, N) in order, in any split into
 * consecutive ranges, gives the same output, so a run with n switches can
 * be checked against a single-run reference. */
#ifndef CTXBENCH_TASK_H
#define CTXBENCH_TASK_H
#include "core/bench.h"
#include <stddef.h>
#include <stdint.h>

typedef struct task task_t;

typedef struct task_ops {
    const char *name;
    const char *doc; /* what it computes, over what */
    /* Prepare the input (not timed); 0 ok, else message via bench_error. */
    int (*init)(task_t *t);
    /* Put the task back at unit 0 and touch every byte it will write, so a
     * forked copy takes its copy-on-write faults here, not in a timed run. */
    void (*reset)(task_t *t);
    void (*run)(task_t *t, size_t u0, size_t u1); /* units [u0, u1) */
    uint64_t (*result)(task_t *t);                /* after all units */
    void (*corrupt)(task_t *t);                   /* flip one input byte (tests) */
    void (*fini)(task_t *t);
    int available; /* 0: built without its library */
} task_ops_t;

struct task {
    const task_ops_t *ops;
    double scale;   /* work multiplier (1 = default size) */
    size_t size;    /* the task's buffer where it has one to choose (chase: --size; 0: its default) */
    size_t units;   /* set by init: chunks of equal work */
    char chunk[64]; /* set by init: what one unit (chunk) is, for params */
    size_t bytes;   /* input bytes processed per run (info) */
    size_t detail;  /* task specific (sort: elements) */
    void *st;
};

const task_ops_t *task_find(const char *name);
const char *task_names(void); /* "sort, deflate, aes, crc, empty" */
/* init/fini wrappers; task_init reports "not available in this build". */
int task_init(task_t *t, const char *name, double scale, size_t size);
void task_fini(task_t *t);
/* Run all units at once; returns the result (the single-run reference). */
uint64_t task_run_all(task_t *t);
/* Split the task's units into `nseg` ranges of (nearly) equal length:
 * bounds[0] = 0 ... bounds[nseg] = units. */
void task_split(const task_t *t, size_t nseg, size_t *bounds);

/* Helpers shared by the tasks. */
uint64_t task_rng(uint64_t *s);                             /* xorshift64*: the fixed-seed input */
void task_fill_text(uint8_t *p, size_t len, uint64_t seed); /* compressible text */
size_t cache_size_bytes(int level, int data);               /* from sysfs; 0 if unknown */
/* The "cold" start: write then read a buffer of `len` bytes (several times
 * the last-level cache), evicting the tasks' lines and TLB entries. */
void cache_flush(uint8_t *buf, size_t len);
size_t cache_flush_len(void);
/* The size of the tasks: --task-scale (default 1). */
double task_scale(const run_opts_t *o);
#endif
