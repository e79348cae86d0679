/* Green mutex and channel (green.h). Cooperative scheduling means a lock is
 * only contended when its owner blocks or yields while holding it; it is
 * still taken on every channel operation, as in Chen et al.'s library. */
#include "user/green_internal.h"
#include <stdlib.h>

void green_mutex_init(green_mutex_t *m)
{
    m->owner = NULL;
    m->waiters.head = m->waiters.tail = NULL;
}

void green_mutex_lock(green_mutex_t *m)
{
    green_t *me = green_self();
    if (!m->owner) {
        m->owner = me;
        return;
    }
    q_push(&m->waiters, me);
    green_block(); /* resumed as the owner: unlock hands the mutex over */
}

void green_mutex_unlock(green_mutex_t *m)
{
    green_t *w = q_pop(&m->waiters);
    m->owner = w; /* direct hand-off: FIFO, no barging */
    if (w) green_ready(w);
}

int green_chan_init(green_chan_t *c, size_t capacity)
{
    if (!capacity) return -1;
    c->buf = calloc(capacity, sizeof *c->buf);
    if (!c->buf) return -1;
    green_mutex_init(&c->mu);
    c->senders.head = c->senders.tail = NULL;
    c->receivers.head = c->receivers.tail = NULL;
    c->cap = capacity;
    c->head = c->count = 0;
    return 0;
}

void green_chan_fini(green_chan_t *c)
{
    free(c->buf);
    c->buf = NULL;
}

/* Wait on `q` with the mutex released; retake it when woken. */
static void wait_on(green_chan_t *c, green_queue_t *q)
{
    green_t *me = green_self();
    green_mutex_unlock(&c->mu);
    q_push(q, me);
    green_block();
    green_mutex_lock(&c->mu);
}

static void wake_one(green_queue_t *q)
{
    green_t *t = q_pop(q);
    if (t) green_ready(t);
}

void green_chan_send(green_chan_t *c, uintptr_t msg)
{
    green_mutex_lock(&c->mu);
    while (c->count == c->cap) wait_on(c, &c->senders);
    c->buf[(c->head + c->count) % c->cap] = msg;
    c->count++;
    wake_one(&c->receivers);
    green_mutex_unlock(&c->mu);
}

uintptr_t green_chan_recv(green_chan_t *c)
{
    green_mutex_lock(&c->mu);
    while (!c->count) wait_on(c, &c->receivers);
    uintptr_t m = c->buf[c->head];
    c->head = (c->head + 1) % c->cap;
    c->count--;
    wake_one(&c->senders);
    green_mutex_unlock(&c->mu);
    return m;
}
