/* empty: no work at all. A pair of empty tasks measures the cost of the
 * switches alone (C), with the same runner as the real pairs. */
#include "tasks/task.h"
#include <stdio.h>

static int init(task_t *t)
{
    t->units = 1u << 16;
    snprintf(t->chunk, sizeof t->chunk, "nothing (the timer read alone)");
    return 0;
}
static void reset(task_t *t)
{
    (void)t;
}
static void run(task_t *t, size_t u0, size_t u1)
{
    (void)t;
    (void)u0;
    (void)u1;
}
static uint64_t result(task_t *t)
{
    (void)t;
    return 1;
}
static void corrupt(task_t *t)
{
    (void)t;
}

const task_ops_t task_empty = {
    "empty", "no work (measures the switches alone)", init, reset, run, result, corrupt, NULL, 1};
