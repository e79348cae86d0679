/* Green threads: round robin over 1000 threads (each round visits every
 * thread once, in creation order), join frees them; channel messages from
 * several producers through a small channel arrive in order per producer,
 * none lost or duplicated; the mutex hands over in FIFO order. */
#include "check.h"
#include "user/green.h"
#include <stdlib.h>

#define NTHREADS 1000
#define ROUNDS   20
static int *log_ids;
static size_t log_len;

static void rr_fn(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        log_ids[log_len++] = id;
        green_yield();
    }
}

#define PRODUCERS 4
#define MSGS      50000
static green_chan_t ch;
static void producer(void *arg)
{
    uintptr_t p = (uintptr_t)arg;
    for (uintptr_t i = 0; i < MSGS; i++) green_chan_send(&ch, (p << 24) | i);
}

static green_mutex_t mu;
static int in_section, section_bad, order[8], norder;
static void locker(void *arg)
{
    green_mutex_lock(&mu);
    if (in_section++) section_bad++;
    order[norder++] = (int)(intptr_t)arg;
    green_yield(); /* others try to lock meanwhile and must wait */
    in_section--;
    green_mutex_unlock(&mu);
}

int main(void)
{
    green_init();
    /* round robin */
    log_ids = calloc(NTHREADS * ROUNDS, sizeof *log_ids);
    green_t **t = calloc(NTHREADS, sizeof *t);
    for (int i = 0; i < NTHREADS; i++) {
        t[i] = green_create(rr_fn, (void *)(intptr_t)i, 16 * 1024);
        CHECK(t[i] != NULL, "create %d", i);
    }
    for (int i = 0; i < NTHREADS; i++) CHECK(green_join(t[i]) == 0, "join %d", i);
    CHECK(log_len == NTHREADS * ROUNDS, "log length %zu", log_len);
    size_t wrong = 0;
    for (size_t k = 0; k < log_len; k++)
        if (log_ids[k] != (int)(k % NTHREADS)) wrong++;
    CHECK(wrong == 0, "%zu entries out of round-robin order", wrong);
    CHECK(green_runnable() == 0, "run queue empty after joins");

    /* channel */
    CHECK(green_chan_init(&ch, 3) == 0, "chan");
    green_t *p[PRODUCERS];
    for (uintptr_t i = 0; i < PRODUCERS; i++) p[i] = green_create(producer, (void *)i, 16 * 1024);
    uint64_t next[PRODUCERS] = {0}, bad = 0, got = 0;
    for (uint64_t k = 0; k < (uint64_t)PRODUCERS * MSGS; k++) {
        uintptr_t m = green_chan_recv(&ch);
        uintptr_t who = m >> 24, seq = m & 0xffffffu;
        if (who >= PRODUCERS || seq != next[who])
            bad++;
        else
            next[who]++;
        got++;
    }
    for (int i = 0; i < PRODUCERS; i++) CHECK(green_join(p[i]) == 0, "join producer");
    CHECK(bad == 0, "%llu messages out of order or unknown", (unsigned long long)bad);
    CHECK(got == (uint64_t)PRODUCERS * MSGS && ch.count == 0, "all messages received, none left");
    green_chan_fini(&ch);

    /* mutex */
    green_mutex_init(&mu);
    green_t *l[5];
    for (intptr_t i = 0; i < 5; i++) l[i] = green_create(locker, (void *)i, 16 * 1024);
    for (int i = 0; i < 5; i++) green_join(l[i]);
    CHECK(section_bad == 0, "mutual exclusion violated %d times", section_bad);
    CHECK(norder == 5 && order[0] == 0 && order[1] == 1 && order[4] == 4, "FIFO hand-off");
    CHECK(green_join(green_self()) == -1, "joining yourself is refused");
    free(log_ids);
    free(t);
    green_fini();
    CHECK_DONE("green threads: round robin, channel, mutex, join");
}
