/* Green-thread scheduler: run queue, create, yield, exit/join (green.h). */
#include "user/green_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static green_t main_thread;
static green_t *current;
static green_queue_t runq;
static size_t nrunnable;
static int next_id = 1;

void green_ready(green_t *t)
{
    q_push(&runq, t);
    nrunnable++;
}

static green_t *take_next(void)
{
    green_t *t = q_pop(&runq);
    if (t) nrunnable--;
    return t;
}

/* Switch from the current thread to `t` (already off every queue). */
static void switch_to(green_t *t)
{
    green_t *me = current;
    current = t;
    uctx_switch(&me->ctx, &t->ctx, NULL);
}

/* The caller has parked itself on some wait queue: run someone else. With
 * nobody runnable the program would hang forever: say so and abort. */
void green_block(void)
{
    green_t *t = take_next();
    if (!t) {
        fprintf(stderr, "ctxbench-engine: green threads deadlocked (thread %d blocked, nothing runnable)\n",
                current->id);
        abort();
    }
    switch_to(t);
}

int green_init(void)
{
    memset(&main_thread, 0, sizeof main_thread);
    runq.head = runq.tail = NULL;
    nrunnable = 0;
    next_id = 1;
    current = &main_thread;
    return 0;
}

void green_fini(void)
{
    current = NULL;
}

green_t *green_self(void)
{
    return current;
}
size_t green_runnable(void)
{
    return nrunnable;
}

static void entry(void *data, void *first)
{
    (void)first;
    green_t *t = data;
    t->fn(t->arg);
    green_exit();
}

green_t *green_create(green_fn_t fn, void *arg, size_t stack_size)
{
    green_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    if (uctx_stack_alloc(&t->stack, stack_size ? stack_size : 64 * 1024)) {
        free(t);
        return NULL;
    }
    t->fn = fn;
    t->arg = arg;
    t->id = next_id++;
    if (uctx_make(&t->ctx, &t->stack, entry, t)) {
        uctx_stack_free(&t->stack);
        free(t);
        return NULL;
    }
    green_ready(t);
    return t;
}

void green_yield(void)
{
    if (!nrunnable) return; /* nobody else: no switch */
    green_t *t = take_next();
    green_ready(current);
    switch_to(t);
}

void green_exit(void)
{
    green_t *me = current, *j;
    me->done = 1;
    while ((j = q_pop(&me->joiners))) green_ready(j);
    green_block(); /* never resumed: a done thread is on no queue */
    abort();
}

int green_join(green_t *t)
{
    if (t == current || t == &main_thread) return -1;
    if (!t->done) {
        if (!nrunnable) return -1; /* nothing could ever finish it */
        q_push(&t->joiners, current);
        green_block();
    }
    /* t is done and not running: its stack is free to go. */
    uctx_stack_free(&t->stack);
    free(t);
    return 0;
}

void green_discard(green_t *t)
{
    if (!t || t == current || t == &main_thread) return;
    uctx_stack_free(&t->stack);
    free(t);
}
