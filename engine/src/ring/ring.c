/* Ring of N parties on one CPU passing a token (docs/method.md#rings; Heiser
 * 2009, lmbench lat_ctx): the ring/<kind>/<mechanism> ids.
 *
 * Party i waits for the token in its inbox, touches its own footprint of K
 * bytes, and sends the token to party i+1. Party 0 is the measuring thread:
 *
 *     t_ring   = n laps round the ring = n*N hand-offs, each a switch
 *     t_single = party 0 alone, n*N times: touch footprint, send to itself,
 *                receive (the same work and system calls, no switch)
 *     value    = (t_ring - t_single) / (n*N)       per hand-off
 *
 * With N = 2 this is exactly the ping-pong of pingpong.c (t_switch/2 -
 * t_single)/n, so ring/<kind>/<mech> at N = 2 must agree with
 * kernel/<kind>/<mech>/same-cpu. Inboxes reuse the ping-pong mechanisms
 * (mech_*.c): party i's inbox is channel CH_AB of its own mechanism state,
 * party 0's single run uses CH_SELF of its state. */
#include "core/bench.h"
#include "core/clock.h"
#include "core/party.h"
#include "kernel/mech.h"
#include "core/reap.h"
#include "core/sched_ctl.h"
#include "core/verify.h"
#include "core/work.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct ring_cfg {
    const mech_t *mech;
    int process;      /* 0: threads of one process, 1: forked processes */
    uint64_t spin_ns; /* known answer: every holder of the token spins this long (wall time) */
} ring_cfg_t;

/* The known per-hand-off cost of the hidden test/ring/ ids: spin_ns, only
 * in the ring run, never in t_single: the ring's formula must give back the
 * plain ring + spin_ns. */

static const char *const ring_raw_names[] = {"t_single_ns", "t_ring_ns", NULL};

/* One party's slot in shared memory (MAP_SHARED: forked parties see it). */
typedef struct ring_party {
    int32_t pid, tid, cpu_ok, pad;
    uint64_t laps; /* hand-offs this party has made (settling after a run) */
    char error[120];
    _Alignas(64) unsigned char mech[MECH_STATE_MAX]; /* this party's inbox */
} ring_party_t;

typedef struct ring_shared {
    uint32_t ready; /* parties 1..N-1 that are set up */
    uint32_t quit;
    int pshared;
    _Alignas(64) ring_party_t party[]; /* N of them */
} ring_shared_t;

typedef struct ring_state {
    const ring_cfg_t *cfg;
    ring_shared_t *sh;
    size_t sh_len;
    int parties, cpu, inited; /* inited: mechanism states initialised */
    work_t work0;
    pthread_t *threads;
    pid_t *children;
    int started;        /* parties 1..started have been created */
    uint64_t laps_done; /* laps party 0 has led so far in this group */
    party_counts_t *c0, *c1;
} ring_state_t;

static int parties_of(const run_opts_t *o)
{
    return o->parties >= 2 ? o->parties : 2;
}

/* Footprint as the work.c traversal: every 8-byte element incremented once
 * per hold of the token, in order (stride = one element). */
static int footprint_init(work_t *w, size_t bytes)
{
    size_t elems = bytes / sizeof(work_elem_t);
    return work_init(w, elems * sizeof(work_elem_t), elems ? sizeof(work_elem_t) : 0);
}

typedef struct {
    ring_shared_t *sh;
    const ring_cfg_t *cfg;
    int i, n, cpu;
    size_t foot;
} party_args_t;

static void party_loop(const party_args_t *a)
{
    ring_party_t *me = &a->sh->party[a->i], *next = &a->sh->party[(a->i + 1) % a->n];
    const mech_t *m = a->cfg->mech;
    char err[200] = "";
    me->pid = getpid();
    me->tid = gettid_();
    me->cpu_ok = pin_self(a->cpu, err, sizeof err) == 0;
    if (err[0]) snprintf(me->error, sizeof me->error, "%s", err);
    work_t w;
    if (footprint_init(&w, a->foot)) snprintf(me->error, sizeof me->error, "cannot map %zu bytes", a->foot);
    party_ready(&a->sh->ready);
    /* Bounded by the token: party 0 leads a finite number of laps, then
     * sends a quit token that every party forwards once before leaving. */
    for (;;) {
        m->recv(me->mech, CH_AB);
        if (atomic_load((_Atomic uint32_t *)&a->sh->quit)) {
            m->send(next->mech, CH_AB);
            break;
        }
        work_pass(&w);
        spin_ns(a->cfg->spin_ns);
        m->send(next->mech, CH_AB);
        atomic_fetch_add((_Atomic uint64_t *)&me->laps, 1);
    }
    work_fini(&w);
}

static void party_main(void *p)
{
    party_loop(p);
}

static void ring_teardown(bench_run_t *r);

static int ring_setup_parties(bench_run_t *r)
{
    const ring_cfg_t *cfg = r->b->arg;
    const run_opts_t *o = r->opt;
    ring_state_t *st = bench_state_new(r, sizeof *st);
    if (!st) return -1;
    st->cfg = cfg;
    st->parties = parties_of(o);
    int n = st->parties;
    st->cpu = o->cpu >= 0 ? o->cpu : default_cpu();
    st->c0 = calloc((size_t)n, sizeof *st->c0);
    st->c1 = calloc((size_t)n, sizeof *st->c1);
    st->threads = calloc((size_t)n, sizeof *st->threads);
    st->children = calloc((size_t)n, sizeof *st->children);
    if (!st->c0 || !st->c1 || !st->threads || !st->children) {
        bench_error("out of memory");
        return -1;
    }

    /* Pipes: three per party (mech_pipe opens all its channels). */
    struct rlimit rl;
    if (!strcmp(cfg->mech->name, "pipe") && getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
        rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)(6 * n + 64)) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= (rlim_t)(6 * n + 64)
                          ? (rlim_t)(6 * n + 64)
                          : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur < (rlim_t)(6 * n + 64)) {
            bench_error("%d pipe parties need %d file descriptors; the limit is %llu (ulimit -n)", n,
                        6 * n + 64, (unsigned long long)rl.rlim_cur);
            return -1;
        }
    }

    st->sh_len = sizeof(ring_shared_t) + (size_t)n * sizeof(ring_party_t);
    st->sh = party_shared_map(st->sh_len, NULL);
    if (!st->sh) return -1;
    st->sh->pshared = cfg->process;
    for (int i = 0; i < n; i++) {
        if (cfg->mech->init(st->sh->party[i].mech, cfg->process)) {
            for (int k = 0; k < i; k++) cfg->mech->fini(st->sh->party[k].mech);
            return -1;
        }
    }
    st->inited = 1;

    char err[200];
    r->pinned = pin_self(st->cpu, err, sizeof err) == 0;
    if (!r->pinned) bench_warn(r, "%s", err);
    r->policy_obtained = POLICY_OTHER;
    if (footprint_init(&st->work0, o->footprint)) {
        bench_error("cannot map %zu bytes", o->footprint);
        return -1;
    }
    st->sh->party[0].pid = getpid();
    st->sh->party[0].tid = gettid_();

    for (int i = 1; i < n; i++) {
        party_args_t a = {st->sh, cfg, i, n, st->cpu, o->footprint};
        if (party_start(cfg->process, party_main, &a, sizeof a, 128 * 1024, &st->children[i],
                        &st->threads[i]))
            return -1;
        st->started = i;
    }
    /* Wait (bounded: 2 s + 20 ms per party) until every party is ready. */
    if (party_wait_ready(&st->sh->ready, (uint32_t)(n - 1), 2000000000ull + 20000000ull * (uint64_t)n)) {
        bench_error("ring: only %u of %d parties started", st->sh->ready, n - 1);
        return -1;
    }
    for (int i = 1; i < n; i++) {
        if (!st->sh->party[i].cpu_ok) r->pinned = 0;
        /* A party without its footprint would measure another point: an
         * error (with its cause), not a warning beside a bogus number. */
        if (st->sh->party[i].error[0]) {
            bench_error("ring party %d: %s (memory limit? see ulimit -v)", i, st->sh->party[i].error);
            return -1;
        }
    }
    st->laps_done = 0;
    return 0;
}

/* The harness does not tear down after a failed setup: undo it here. */
static int ring_setup(bench_run_t *r)
{
    if (ring_setup_parties(r) == 0) return 0;
    ring_teardown(r);
    return -1;
}

static void read_all(ring_state_t *st, party_counts_t *c, int from)
{
    for (int i = from; i < st->parties; i++)
        party_counts_read(st->sh->party[i].pid, st->sh->party[i].tid, &c[i]);
}

/* After a run: every party has made its hand-offs and gone back to wait
 * (bounded: 2 s). Yielding lets a party that was preempted after its send
 * reach its receive, so that its count is in this sample's window. */
static int settle(ring_state_t *st)
{
    uint64_t t_end = clock_ns() + 2000000000ull;
    for (int i = 1; i < st->parties; i++) {
        while (atomic_load((_Atomic uint64_t *)&st->sh->party[i].laps) < st->laps_done) {
            if (clock_ns() > t_end) {
                bench_error("ring: party %d did not finish its laps", i);
                return -1;
            }
            sched_yield();
        }
    }
    for (int k = 0; k < 2; k++) sched_yield();
    return 0;
}

static int ring_sample(bench_run_t *r, uint64_t laps, sample_t *out)
{
    ring_state_t *st = r->state;
    const mech_t *m = st->cfg->mech;
    int n = st->parties;
    ring_party_t *p0 = &st->sh->party[0], *p1 = &st->sh->party[1];
    uint64_t hops = laps * (uint64_t)n;
    party_counts_t s0, s1, d;

    /* t_single: party 0 alone, the same work and messages, no switch. */
    party_counts_read(0, 0, &s0);
    uint64_t t0 = clock_ns();
    for (uint64_t i = 0; i < hops; i++) {
        work_pass(&st->work0);
        m->send(p0->mech, CH_SELF);
        m->recv(p0->mech, CH_SELF);
    }
    uint64_t t1 = clock_ns();
    party_counts_read(0, 0, &s1);

    /* t_ring: `laps` laps; every other party is waiting in its inbox. */
    read_all(st, st->c0, 1);
    party_counts_read(0, 0, &st->c0[0]);
    uint64_t t2 = clock_ns();
    for (uint64_t l = 0; l < laps; l++) {
        work_pass(&st->work0);
        spin_ns(st->cfg->spin_ns);
        m->send(p1->mech, CH_AB);
        m->recv(p0->mech, CH_AB);
    }
    uint64_t t3 = clock_ns();
    party_counts_read(0, 0, &st->c1[0]);
    st->laps_done += laps;
    if (settle(st)) return -1;
    read_all(st, st->c1, 1);

    double t_single = (double)(t1 - t0), t_ring = (double)(t3 - t2);
    out->raw[0] = t_single;
    out->raw[1] = t_ring;
    out->value = (t_ring - t_single) / (double)hops;
    out->duration_ns = t3 - t2;
    out->has_verify = 1;
    verify_zero(&out->v);
    /* Each party waits for the token once per lap: n*N blocks in all. */
    out->v.expected_voluntary = (int64_t)hops;
    for (int i = 0; i < n; i++) {
        d = party_counts_delta(&st->c0[i], &st->c1[i]);
        verify_add_switch(&out->v, &d);
    }
    d = party_counts_delta(&s0, &s1);
    verify_add_single(&out->v, &d);
    return 0;
}

static void ring_teardown(bench_run_t *r)
{
    ring_state_t *st = r->state;
    if (!st) return;
    if (st->sh && st->started > 0) {
        /* The quit token goes round once; every party forwards it and leaves. */
        atomic_store((_Atomic uint32_t *)&st->sh->quit, 1);
        st->cfg->mech->send(st->sh->party[1].mech, CH_AB);
    }
    if (st->cfg->process) {
        /* bounded: 1 s for all, then SIGKILL */
        uint64_t t_end = clock_ns() + 1000000000ull;
        for (int i = 1; i <= st->started; i++) {
            pid_t p = st->children[i];
            if (p <= 0) continue;
            int status;
            while (waitpid(p, &status, WNOHANG) != p) {
                if (clock_ns() > t_end) {
                    kill(p, SIGKILL);
                    waitpid(p, &status, 0);
                    break;
                }
                struct timespec ts = {0, 1000000};
                nanosleep(&ts, NULL);
            }
            reap_forget(p);
        }
    } else {
        for (int i = 1; i <= st->started; i++) pthread_join(st->threads[i], NULL);
    }
    if (st->sh) {
        if (st->inited)
            for (int i = 0; i < st->parties; i++) st->cfg->mech->fini(st->sh->party[i].mech);
        munmap(st->sh, st->sh_len);
    }
    work_fini(&st->work0);
    free(st->c0);
    free(st->c1);
    free(st->threads);
    free(st->children);
    free(st);
    r->state = NULL;
}

static void ring_params(bench_run_t *r, json_t *j)
{
    const ring_cfg_t *cfg = r->b->arg;
    size_t foot = r->opt->footprint / sizeof(work_elem_t) * sizeof(work_elem_t);
    json_kint(j, "parties", parties_of(r->opt));
    json_kint(j, "footprint", (int64_t)foot);
    json_kstr(j, "kind", cfg->process ? "process" : "thread");
    json_kstr(j, "mechanism", cfg->mech->name);
    json_kstr(j, "placement", "ring");
    if (cfg->spin_ns) json_kint(j, "spin_ns", (int64_t)cfg->spin_ns);
    json_kstr(j, "n_is", "laps; hand-offs per sample = n * parties");
    json_kstr(j, "t_single", cfg->mech->note);
    json_kstr(j, "formula", "(t_ring - t_single)/(n*parties), t_single over n*parties messages to itself");
}

#define RING_CFG(var, m, proc, spin) static const ring_cfg_t var = {&m, proc, spin}
#define RING_BENCH(var, idstr, cfgv, ord)                                                                    \
    static const bench_t var = {.id = idstr,                                                                 \
                                .quantity = "switch",                                                        \
                                .unit = "ns",                                                                \
                                .doc = "cost per token hand-off in a ring of --parties on one CPU, "         \
                                       "each touching --footprint bytes",                                    \
                                .flags = BENCH_HIDDEN | BENCH_PARTIES,                                       \
                                .order = ord,                                                                \
                                .raw_names = ring_raw_names,                                                 \
                                .setup = ring_setup,                                                         \
                                .sample = ring_sample,                                                       \
                                .teardown = ring_teardown,                                                   \
                                .params = ring_params,                                                       \
                                .arg = &cfgv,                                                                \
                                .n0 = 1,                                                                     \
                                .policy = POLICY_OTHER};                                                     \
    BENCH_REGISTER(var)

RING_CFG(r_tp, mech_pipe, 0, 0);
RING_CFG(r_tf, mech_futex, 0, 0);
RING_CFG(r_pp, mech_pipe, 1, 0);
RING_CFG(r_pf, mech_futex, 1, 0);
RING_BENCH(rb_tp, "ring/thread/pipe", r_tp, 700);
RING_BENCH(rb_tf, "ring/thread/futex", r_tf, 701);
RING_BENCH(rb_pp, "ring/process/pipe", r_pp, 710);
RING_BENCH(rb_pf, "ring/process/futex", r_pf, 711);

/* Known answer (hidden, like every ring id): the plain ring plus a 5 us
 * spin per hand-off. */
RING_CFG(r_tf_spin, mech_futex, 0, 5000);
RING_CFG(r_pp_spin, mech_pipe, 1, 5000);
RING_BENCH(rb_tf_spin, "test/ring/thread/futex/spin5us", r_tf_spin, 720);
RING_BENCH(rb_pp_spin, "test/ring/process/pipe/spin5us", r_pp_spin, 721);
