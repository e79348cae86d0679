#include "kernel/pingpong.h"
#include "core/cgroup.h"
#include "core/clock.h"
#include "core/kprofile.h"
#include "core/party.h"
#include "core/placement.h"
#include "core/pp_formula.h"
#include "core/vector_state.h"
#include "core/reap.h"
#include "core/sched_ctl.h"
#include "kernel/pp_counters.h"
#include "core/evict.h"
#include "core/verify.h"
#include "core/work.h"
#include <alloca.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *const pp_raw_names[] = {"t_single_ns", "t_switch_ns", NULL};

/* Shared between the parties (MAP_SHARED, so forked children see it too). */
typedef struct pp_shared {
    uint32_t cmd_seq;    /* A bumps it to start a run of `cmd_n` round trips */
    uint32_t parked_seq; /* B: finished run `seq` and is about to wait */
    uint32_t ready;      /* B: set up (pinned, policy, work array) */
    uint32_t quit;
    uint64_t cmd_n;
    int32_t b_pid, b_tid;
    int32_t b_cpu_ok, b_policy;
    int32_t b_mit_ok;    /* B switched the mitigation on */
    int64_t b_mit_state; /* and what the kernel says it is (PR_GET_SPECULATION_CTRL) */
    char b_error[200];
    int pshared;
    _Alignas(64) unsigned char mech[MECH_STATE_MAX];
} pp_shared_t;

typedef struct pp_state {
    pp_shared_t *sh;
    void *sh_map; /* the mapping sh lies in, at a random line (core/placement.h) */
    const pp_cfg_t *cfg;
    int cpu_a, cpu_b;
    work_t work_a;
    pthread_t thread;
    pid_t child;
    uint32_t seq;
    int mech_inited; /* the mechanism's fds/words exist: fini may run */
    int mit_applied; /* A switched cfg->mitigation on: restored in teardown */
    long mit_before; /* A's state before (mitigation_state) */
    cg_pair_t cg;    /* cfg->cgroups: the pair's cgroups, removed in teardown */
    kp_events_t kp;  /* cfg->profile: this group's sampling events */
} pp_state_t;

/* What the anatomy's properties read back, per id, for params (which are
 * written after the last teardown): the last group's values. Only a
 * configuration with such a property takes a slot (the other kernel ids,
 * however many one run has, never use one up); one that finds no slot
 * fails its setup rather than write params without what it obtained. */
typedef struct {
    const pp_cfg_t *cfg;
    long a_state, b_state;
    int cg_version, cg_cpu;
    char cg_a[CG_PATH], cg_b[CG_PATH];
    kp_profile_t prof; /* cfg->profile: every group's samples */
    int prof_warned;
} pp_readback_t;
static pp_readback_t readback[16];

static int reads_back(const pp_cfg_t *cfg)
{
    return cfg->mitigation || cfg->cgroups || cfg->profile;
}

static pp_readback_t *readback_of(const pp_cfg_t *cfg)
{
    if (!reads_back(cfg)) return NULL;
    for (size_t i = 0; i < sizeof readback / sizeof *readback; i++) {
        if (readback[i].cfg == cfg) return &readback[i];
        if (!readback[i].cfg) {
            readback[i].cfg = cfg;
            return &readback[i];
        }
    }
    return NULL;
}

/* Before every send: the rung's property (vector state) and, in the
 * switching run only, the known-answer busy work. */
static inline void before_send(const pp_cfg_t *cfg, int switching)
{
    if (cfg->vector_dirty) vector_state_dirty();
    if (switching && cfg->busy_ns) spin_ns(cfg->busy_ns);
}

static const pp_cfg_t *cfg_of(bench_run_t *r)
{
    return (const pp_cfg_t *)r->b->arg;
}

/* Party B: pin, set policy, then answer runs until told to quit. */
static void party_b(pp_shared_t *sh, const pp_cfg_t *cfg, int cpu, policy_t pol, int prio, size_t size,
                    size_t stride)
{
    /* B's frames at their own random line of the page (core/placement.h) */
    volatile char *pad = alloca(placement_offset() + 1);
    pad[0] = 0;
    char err[200] = "";
    sh->b_pid = getpid();
    sh->b_tid = gettid_();
    sh->b_cpu_ok = pin_self(cpu, err, sizeof err) == 0;
    if (pol == POLICY_FIFO && set_policy_self(POLICY_FIFO, prio, err, sizeof err)) pol = POLICY_OTHER;
    sh->b_policy = pol;
    if (err[0]) snprintf(sh->b_error, sizeof sh->b_error, "%s", err);
    if (cfg->mitigation) {
        char merr[200];
        sh->b_mit_ok = mitigation_apply(cfg->mitigation, merr, sizeof merr) == 0;
        sh->b_mit_state = mitigation_state(cfg->mitigation);
        if (!sh->b_mit_ok) snprintf(sh->b_error, sizeof sh->b_error, "party B: %.180s", merr);
    }
    work_t w;
    if (work_init(&w, size, stride))
        snprintf(sh->b_error, sizeof sh->b_error, "party B: cannot map %zu bytes", size);
    uint32_t seen = 0;
    party_ready(&sh->ready);
    void *m = sh->mech;
    for (;;) {
        uint32_t s;
        while ((s = atomic_load((_Atomic uint32_t *)&sh->cmd_seq)) == seen && !sh->quit)
            futex_wait_u32(&sh->cmd_seq, seen, sh->pshared);
        if (sh->quit) break;
        seen = s;
        uint64_t n = sh->cmd_n;
        for (uint64_t i = 0; i < n; i++) {
            cfg->mech->recv(m, CH_AB);
            work_pass(&w);
            before_send(cfg, 1);
            cfg->mech->send(m, CH_BA);
        }
        atomic_store((_Atomic uint32_t *)&sh->parked_seq, seen);
    }
    work_fini(&w);
}

typedef struct {
    pp_shared_t *sh;
    const pp_cfg_t *cfg;
    int cpu;
    policy_t pol;
    int prio;
    size_t size, stride;
} b_args_t;

static void b_main(void *p)
{
    b_args_t *a = p;
    party_b(a->sh, a->cfg, a->cpu, a->pol, a->prio, a->size, a->stride);
}

int pp_setup(bench_run_t *r)
{
    const pp_cfg_t *cfg = cfg_of(r);
    const run_opts_t *o = r->opt;
    pp_state_t *st = bench_state_new(r, sizeof *st);
    if (!st) return -1;
    st->cfg = cfg;
    st->cpu_a = o->cpu;
    st->cpu_b = st->cpu_a;
    if (cfg->cross) {
        st->cpu_b = o->cpu2;
        if (st->cpu_b < 0 || st->cpu_b == st->cpu_a) {
            bench_error("cross-cpu needs two CPUs (have only CPU %d)", st->cpu_a);
            return -1;
        }
    }
    void *m = party_shared_map(sizeof(pp_shared_t) + PLACEMENT_SPAN, NULL);
    if (!m) return -1;
    st->sh_map = m;
    st->sh = (pp_shared_t *)((char *)m + placement_offset());
    st->sh->pshared = cfg->process;
    if (cfg->mech->init(st->sh->mech, cfg->process)) return -1;
    st->mech_inited = 1;

    /* Party A is the calling thread, pinned by the harness. */
    char err[200];
    r->policy_obtained = POLICY_OTHER;
    if (r->b->policy == POLICY_FIFO) {
        if (set_policy_self(POLICY_FIFO, o->fifo_prio, err, sizeof err) == 0)
            r->policy_obtained = POLICY_FIFO;
        else
            bench_warn(r, "%s; measured under SCHED_OTHER instead", err);
    }
    if (work_init(&st->work_a, o->size, o->stride)) {
        bench_error("cannot map %zu bytes", o->size);
        return -1;
    }
    pp_readback_t *rb = readback_of(cfg);
    if (reads_back(cfg) && !rb) {
        bench_error("too many ids that read their setting back in one run (at most %zu)",
                    sizeof readback / sizeof *readback);
        return -1;
    }
    if (cfg->mitigation) {
        st->mit_before = mitigation_state(cfg->mitigation);
        if (mitigation_apply(cfg->mitigation, err, sizeof err)) {
            bench_error("%s", err);
            return -1;
        }
        st->mit_applied = 1;
        rb->a_state = mitigation_state(cfg->mitigation);
    }
    if (cfg->cgroups) { /* A (this process) into a first: a forked B starts there */
        if (cg_pair_create(&st->cg, err, sizeof err) || cg_pair_enter(&st->cg, 0, 0, err, sizeof err)) {
            bench_error("%s", err);
            return -1;
        }
        rb->cg_version = st->cg.version, rb->cg_cpu = st->cg.cpu_controller;
        snprintf(rb->cg_a, sizeof rb->cg_a, "%s", st->cg.dir[0]);
        snprintf(rb->cg_b, sizeof rb->cg_b, "%s", st->cg.dir[cfg->cgroups == 2]);
    }

    b_args_t a = {st->sh, cfg, st->cpu_b, r->policy_obtained, o->fifo_prio, o->size, o->stride};
    if (party_start(cfg->process, b_main, &a, sizeof a, 256 * 1024, &st->child, &st->thread)) return -1;
    /* Wait (bounded: 2 s) until B is ready. */
    if (party_wait_ready(&st->sh->ready, 1, 2000000000ull)) {
        bench_error("party B did not start");
        return -1;
    }
    if (!st->sh->b_cpu_ok) r->pinned = 0;
    if (cfg->mitigation && !st->sh->b_mit_ok) {
        bench_error("%s", st->sh->b_error);
        return -1;
    }
    if (cfg->mitigation) rb->b_state = st->sh->b_mit_state;
    if (cfg->cgroups == 2 && cg_pair_enter(&st->cg, 1, st->sh->b_pid, err, sizeof err)) {
        bench_error("%s", err);
        return -1;
    }
    if (st->sh->b_error[0]) bench_warn(r, "party B: %s", st->sh->b_error);
    if (cfg->profile) {
        pid_t tids[2] = {gettid_(), st->sh->b_tid};
        if (kp_open(&st->kp, &rb->prof, st->cpu_a, tids, 2) && !rb->prof_warned) {
            bench_warn(r, "%s; measured without the in-kernel attribution", rb->prof.error);
            rb->prof_warned = 1;
        }
    }
    if (r->policy_obtained == POLICY_FIFO && st->sh->b_policy != POLICY_FIFO)
        r->policy_obtained = POLICY_OTHER;
    sc_open(r, st->sh->b_tid);
    return 0;
}

/* Wait until B has finished run `seq` (bounded: 2 s). */
static int wait_parked(pp_state_t *st, uint32_t seq)
{
    uint64_t t_end = clock_ns() + 2000000000ull;
    while (atomic_load((_Atomic uint32_t *)&st->sh->parked_seq) != seq) {
        if (clock_ns() > t_end) {
            bench_error("party B did not finish its run");
            return -1;
        }
        sched_yield();
    }
    return 0;
}

int pp_sample(bench_run_t *r, uint64_t n, sample_t *out)
{
    pp_state_t *st = r->state;
    const mech_t *m = st->cfg->mech;
    void *ms = st->sh->mech;
    party_counts_t s0, s1, a0, a1, b0, b1, d;

    /* An untimed pass first: the single run measures A's traversal in its
     * steady state alone (its array as warm as A alone leaves it), not
     * after the previous sample's switching run left B's array in cache. */
    work_pass(&st->work_a);

    /* t_single: A alone, same work and messages, no switch. */
    sc_begin(r, SC_SINGLE);
    party_counts_read(0, 0, &s0);
    uint64_t t0 = clock_ns();
    for (uint64_t i = 0; i < n; i++) {
        work_pass(&st->work_a);
        before_send(st->cfg, 0);
        m->send(ms, CH_SELF);
        m->recv(ms, CH_SELF);
    }
    uint64_t t1 = clock_ns();
    party_counts_read(0, 0, &s1);
    sc_end(r, SC_SINGLE);

    /* t_switch: n round trips between A and B. B's counts cover its whole
     * run (wake-up by the command, n receives, parking again). */
    sc_begin(r, SC_SWITCH);
    party_counts_read(st->sh->b_pid, st->sh->b_tid, &b0);
    party_counts_read(0, 0, &a0);
    st->sh->cmd_n = n;
    kp_enable(&st->kp); /* no-op without events; before the clock: its ioctls are not timed */
    uint32_t seq = ++st->seq;
    atomic_store((_Atomic uint32_t *)&st->sh->cmd_seq, seq);
    futex_wake_u32(&st->sh->cmd_seq, 1, st->cfg->process);
    uint64_t t2 = clock_ns();
    /* A traverses after each reply, so every pass of either party follows
     * the other's: with A's pass first, A's first pass would follow its
     * own single run (warm), and at n = 1 half of the passes would miss
     * the switch's effect. */
    for (uint64_t i = 0; i < n; i++) {
        before_send(st->cfg, 1);
        m->send(ms, CH_AB);
        m->recv(ms, CH_BA);
        if (st->cfg->evict_lines) evict_lines(&st->work_a, st->cfg->evict_lines);
        work_pass(&st->work_a);
    }
    uint64_t t3 = clock_ns();
    kp_disable(&st->kp);
    party_counts_read(0, 0, &a1);
    if (wait_parked(st, seq)) return -1;
    party_counts_read(st->sh->b_pid, st->sh->b_tid, &b1);
    sc_end(r, SC_SWITCH);
    sc_sample_done(r);
    if (st->kp.n) {
        pp_readback_t *rb = readback_of(st->cfg);
        kp_drain(&st->kp, &rb->prof);
        rb->prof.handoffs += 2 * n, rb->prof.window_ns += t3 - t2;
    }

    /* Each party blocks once per message it waits for: 2n in all. */
    party_counts_t sw[2] = {party_counts_delta(&a0, &a1), party_counts_delta(&b0, &b1)};
    d = party_counts_delta(&s0, &s1);
    pp_formula_sample(out, n, t1 - t0, t3 - t2, 2 * (int64_t)n, sw, 2, &d);
    return 0;
}

void pp_teardown(bench_run_t *r)
{
    pp_state_t *st = r->state;
    if (!st) return;
    char err[200];
    if (st->sh) {
        atomic_store((_Atomic uint32_t *)&st->sh->quit, 1);
        atomic_fetch_add((_Atomic uint32_t *)&st->sh->cmd_seq, 1);
        futex_wake_u32(&st->sh->cmd_seq, 1, st->cfg->process);
    }
    if (st->child > 0) {
        /* bounded: 1 s, then SIGKILL */
        int status;
        for (int i = 0; i < 100; i++) {
            if (waitpid(st->child, &status, WNOHANG) == st->child) {
                reap_forget(st->child);
                st->child = 0;
                break;
            }
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
        if (st->child > 0) {
            kill(st->child, SIGKILL);
            waitpid(st->child, &status, 0);
            reap_forget(st->child);
        }
    } else if (st->thread) {
        pthread_join(st->thread, NULL);
    }
    sc_close(r);
    kp_close(&st->kp);
    cg_pair_remove(&st->cg); /* B is gone: A back home, then the directories */
    if (st->mit_applied) mitigation_restore(st->cfg->mitigation, st->mit_before);
    if (st->sh) {
        /* after a setup that failed early the mechanism is all zeros: its
         * fini would close fd 0 */
        if (st->mech_inited) st->cfg->mech->fini(st->sh->mech);
        munmap(st->sh_map, sizeof *st->sh + PLACEMENT_SPAN);
    }
    work_fini(&st->work_a);
    if (r->policy_obtained == POLICY_FIFO) set_policy_self(POLICY_OTHER, 0, err, sizeof err);
    free(st);
    r->state = NULL;
}

void pp_params(bench_run_t *r, json_t *j)
{
    const pp_cfg_t *cfg = cfg_of(r);
    int cpu_b = cfg->cross ? r->opt->cpu2 : r->opt->cpu;
    json_kstr(j, "mechanism", cfg->mech->name);
    json_kstr(j, "kind", cfg->process ? "process" : "thread");
    json_kstr(j, "placement", cfg->cross ? "cross-cpu" : "same-cpu");
    json_kint(j, "cpu_b", cpu_b);
    json_kint(j, "size", (int64_t)r->opt->size);
    json_kint(j, "stride", (int64_t)r->opt->stride);
    json_kstr(j, "t_single", cfg->mech->note);
    json_kstr(j, "formula", "(t_switch/2 - t_single)/n");
    if (cfg->evict_lines) json_kint(j, "evict_lines", cfg->evict_lines);
    if (cfg->vector_dirty) json_kstr(j, "vector_state", vector_state_kind());
    if (cfg->busy_ns) json_kint(j, "busy_ns", cfg->busy_ns);
    const pp_readback_t *rb = readback_of(cfg); /* set by a successful setup when it reads back */
    if (cfg->mitigation && rb) {
        json_kstr(j, "prctl", mitigation_name(cfg->mitigation));
        json_kint(j, "prctl_state_a", rb->a_state); /* PR_GET_SPECULATION_CTRL bits, as read back */
        json_kint(j, "prctl_state_b", rb->b_state);
    }
    if (cfg->cgroups && rb) {
        json_kstr(j, "cgroups", cfg->cgroups == 2 ? "split" : "same");
        json_kint(j, "cgroup_version", rb->cg_version);
        json_kbool(j, "cgroup_cpu_controller", rb->cg_cpu);
        json_kstr(j, "cgroup_a", rb->cg_a);
        json_kstr(j, "cgroup_b", rb->cg_b);
    }
}

void pp_extra(bench_run_t *r, json_t *j)
{
    if (r->opt->counters) sc_write(r, j);
    const pp_readback_t *rb = cfg_of(r)->profile ? readback_of(cfg_of(r)) : NULL;
    if (rb) kp_write(&rb->prof, j);
}
