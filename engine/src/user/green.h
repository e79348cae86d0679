/* Green threads on the assembly switch (the shape of Chen et al.'s
 * gtthread): a FIFO run queue, create, yield, exit/join, a mutex and a
 * message channel, all inside one kernel thread. Cooperative: a thread runs
 * until it yields, blocks or exits; switches go directly from thread to
 * thread, and none of them makes a system call (stacks are mmap'd at
 * create, freed at join).
 *
 * Not thread-safe: one scheduler per kernel thread, used by that thread. */
#ifndef CTXBENCH_GREEN_H
#define CTXBENCH_GREEN_H
#include <stddef.h>
#include <stdint.h>
#include "user/uctx.h"

typedef struct green green_t;
typedef void (*green_fn_t)(void *arg);

typedef struct green_queue {
    green_t *head, *tail;
} green_queue_t;

struct green {
    uctx_t ctx;
    uctx_stack_t stack; /* none for the main thread */
    green_fn_t fn;
    void *arg;
    green_t *next;         /* run queue or wait queue link */
    green_queue_t joiners; /* threads blocked in green_join on this one */
    int id;
    int done;
};

/* Make the calling context the main green thread. 0 on success. */
int green_init(void);
/* Tear down (every created thread must have been joined). */
void green_fini(void);
/* Create a runnable thread (appended to the run queue); NULL on error. */
green_t *green_create(green_fn_t fn, void *arg, size_t stack_size);
/* Run the next runnable thread, if any; the caller goes to the back. */
void green_yield(void);
/* End the calling (non-main) thread; its joiners become runnable. */
void green_exit(void) __attribute__((noreturn));
/* Wait for `t` to finish, then free it. 0, or -1 if that would deadlock. */
int green_join(green_t *t);
/* Free a thread that will never run again: blocked on an object the caller
 * is destroying (a benchmark's parked partner). Not for the running one. */
void green_discard(green_t *t);
green_t *green_self(void);
size_t green_runnable(void); /* length of the run queue (excluding self) */

typedef struct green_mutex {
    green_t *owner;
    green_queue_t waiters;
} green_mutex_t;
void green_mutex_init(green_mutex_t *m);
void green_mutex_lock(green_mutex_t *m);
void green_mutex_unlock(green_mutex_t *m);

/* A bounded FIFO of pointer-sized messages, guarded by a green mutex. */
typedef struct green_chan {
    green_mutex_t mu;
    green_queue_t senders, receivers; /* blocked on full / empty */
    uintptr_t *buf;
    size_t cap, head, count;
} green_chan_t;
int green_chan_init(green_chan_t *c, size_t capacity);
void green_chan_fini(green_chan_t *c);
void green_chan_send(green_chan_t *c, uintptr_t msg);
uintptr_t green_chan_recv(green_chan_t *c);
#endif
