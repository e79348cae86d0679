/* Shared between green.c and green_sync.c: queues and the two scheduler
 * entry points the synchronisation objects need. */
#ifndef CTXBENCH_GREEN_INTERNAL_H
#define CTXBENCH_GREEN_INTERNAL_H
#include "user/green.h"

static inline void q_push(green_queue_t *q, green_t *t)
{
    t->next = NULL;
    if (q->tail)
        q->tail->next = t;
    else
        q->head = t;
    q->tail = t;
}

static inline green_t *q_pop(green_queue_t *q)
{
    green_t *t = q->head;
    if (t) {
        q->head = t->next;
        if (!q->head) q->tail = NULL;
        t->next = NULL;
    }
    return t;
}

void green_ready(green_t *t); /* append to the run queue */
void green_block(void);       /* caller is parked elsewhere: run the next */
#endif
