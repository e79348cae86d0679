#include "core/verify.h"
#include "core/clock.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

pid_t gettid_(void)
{
    return (pid_t)syscall(SYS_gettid);
}

static int use_status = -1; /* 1 when /proc/<pid>/sched is missing (no CONFIG_SCHED_DEBUG) */

const char *verify_source(void)
{
    return use_status == 1 ? "status" : "sched";
}

static int read_all(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n, tot = 0;
    while ((n = read(fd, buf + tot, len - 1 - (size_t)tot)) > 0) tot += n;
    close(fd);
    buf[tot] = 0;
    return 0;
}

static int64_t field(const char *buf, const char *key)
{
    const char *p = buf;
    size_t kl = strlen(key);
    while ((p = strstr(p, key))) {
        if ((p == buf || p[-1] == '\n') && (p[kl] == ' ' || p[kl] == ':' || p[kl] == '\t')) {
            p += kl;
            while (*p == ' ' || *p == ':' || *p == '\t') p++;
            return strtoll(p, NULL, 10);
        }
        p += kl;
    }
    return -1;
}

/* A thread's CPU time through its CPU clock (the kernel's dynamic clock
 * ids: ~id << 3 | per-thread 4 | sched 2). Not schedstat: for a running
 * task that is only updated at the last tick or switch, off by up to a
 * tick; the clock brings it up to date (task_sched_runtime). The kernel
 * lets a thread read thread clocks of its own process only; a party in
 * another process is single-threaded here (forked, one thread), so its
 * process clock is its thread's time. */
static int64_t runtime_of(pid_t pid, pid_t tid)
{
    clockid_t id;
    if (tid == gettid_())
        id = CLOCK_THREAD_CPUTIME_ID;
    else if (pid == getpid())
        id = (clockid_t)((~(unsigned)tid << 3) | 6u);
    else
        id = (clockid_t)((~(unsigned)pid << 3) | 2u);
    struct timespec ts;
    if (clock_gettime(id, &ts)) return -1;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int party_counts_read(pid_t pid, pid_t tid, party_counts_t *c)
{
    char path[96], buf[8192];
    if (!pid) pid = getpid();
    if (!tid) tid = gettid_();
    c->voluntary = c->involuntary = c->migrations = -1;
    c->runtime_ns = runtime_of(pid, tid);
    c->at_ns = (int64_t)clock_ns();
    if (use_status != 1) {
        snprintf(path, sizeof path, "/proc/%d/task/%d/sched", (int)pid, (int)tid);
        if (read_all(path, buf, sizeof buf) == 0) {
            use_status = 0;
            c->voluntary = field(buf, "nr_voluntary_switches");
            c->involuntary = field(buf, "nr_involuntary_switches");
            c->migrations = field(buf, "se.nr_migrations");
            return 0;
        }
        if (use_status == 0) return -1; /* the thread is gone */
        use_status = 1;
    }
    snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid, (int)tid);
    if (read_all(path, buf, sizeof buf)) return -1;
    c->voluntary = field(buf, "voluntary_ctxt_switches");
    c->involuntary = field(buf, "nonvoluntary_ctxt_switches");
    return 0;
}

static int64_t d(int64_t a, int64_t b)
{
    return a < 0 || b < 0 ? -1 : b - a;
}

party_counts_t party_counts_delta(const party_counts_t *b, const party_counts_t *a)
{
    party_counts_t r = {d(b->voluntary, a->voluntary), d(b->involuntary, a->involuntary),
                        d(b->migrations, a->migrations), d(b->runtime_ns, a->runtime_ns),
                        d(b->at_ns, a->at_ns)};
    return r;
}

static void add(int64_t *acc, int64_t v)
{
    *acc = (*acc < 0 || v < 0) ? -1 : *acc + v;
}

void verify_add_switch(verify_counts_t *v, const party_counts_t *x)
{
    add(&v->voluntary, x->voluntary);
    add(&v->involuntary, x->involuntary);
    add(&v->migrations, x->migrations);
    add(&v->runtime_ns, x->runtime_ns);
    /* the window: the first party's (the measuring one, read first and last) */
    if (!v->window_ns) v->window_ns = x->at_ns;
}

void verify_add_single(verify_counts_t *v, const party_counts_t *x)
{
    add(&v->single_voluntary, x->voluntary);
    add(&v->single_involuntary, x->involuntary);
    add(&v->single_migrations, x->migrations);
}

void verify_zero(verify_counts_t *v)
{
    memset(v, 0, sizeof *v);
}
