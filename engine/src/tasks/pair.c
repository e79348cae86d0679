/* tasks/<a>+<b>[/warm]: David et al.'s task pairs (docs/method.md#task-pairs).
 * Two processes (each its own address space) pinned to one CPU run two
 * tasks and hand the CPU to each other cooperatively exactly n times (--n),
 * at points evenly spaced in each task's work. One sample = one complete
 * run of both tasks:
 *
 *   value  R'_total: from the first task's start to the last task's end
 *   raw    t_task_a_ns, t_task_b_ns: each task's own segments, summed
 *
 * With n = 1 this is R_total.
 *
 * Each task's work is also timed chunk by chunk (core/chunks.h): every
 * unit of the task, one fixed piece of work, between two reads of the
 * serialised TSC. At the end of a group (a round: one run at each n of
 * --n-list) every switched run's chunks are paired with the same chunks of
 * the round's n = 1 run, per switch-in of each task (its first segment
 * left out: it follows the cold start, not a switch), and the reduction is
 * kept for the id's `chunks` record: the indirect cost measured where it is
 * paid (docs/tasks.md#the-indirect-cost-where-it-is-paid).
 *
 * Segment j (0..n) belongs to task a when j is
 * even, to b when odd; after segment j < n its owner wakes the other and
 * blocks, which is the switch. Every hand-off is a blocking read on a pipe,
 * so the switch is the kernel's (schedule(), context_switch()), reached from
 * user space, not called directly as by David et al.
 *
 * Cold (the default, as David et al.): before its first segment, task a writes
 * then reads a buffer three times the last-level cache (cache_flush), so
 * both tasks start with caches and TLB holding none of their lines. /warm
 * skips that.
 *
 * Verification: each process reads its own switch counts at its first
 * wake-up; the one that ends the run reads both again at that moment;
 * together they must show n switches. Under
 * SCHED_OTHER the woken task often preempts the waker at once (an
 * involuntary switch of the waker, which then finds its token without
 * blocking), so it is voluntary + involuntary that equals n; anything above
 * n is another task taking the CPU (a disturbed sample). Each task's
 * output is checked against the single-run reference: a mismatch fails the
 * run. */
#include "core/bench.h"
#include "core/chunks.h"
#include "core/clock.h"
#include "core/clock_probe.h"
#include "core/party.h"
#include "kernel/mech.h"
#include "core/reap.h"
#include "core/sched_ctl.h"
#include "tasks/task.h"
#include "core/util.h"
#include "core/verify.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    const char *a, *b;
    int cold;
    uint64_t burn_ns; /* known answer: extra busy time after every switch-in */
    int sweep;        /* polluter: task b sweeps --footprint bytes after every switch-in */
} pair_cfg_t;

typedef struct {
    uint64_t t0, t_end;
    uint64_t seg_ns[2];
    uint64_t result[2];
    pid_t pid[2];
    party_counts_t c0[2];     /* each party's counts at its first wake-up */
    party_counts_t counts[2]; /* deltas up to the end of the run */
    int pinned[2], niced[2];
    char err[2][160];
} pair_shared_t;

typedef struct {
    const char *doc;
    size_t units, bytes, detail;
    char chunk[64];
} task_info_t;

/* One n's run of the round, chunk by chunk (shared with the parties): each
 * role's chunk durations (ticks) and its segments' first and last reads. */
typedef struct {
    uint64_t n;
    size_t segs[2];
    uint32_t *dur[2];
    uint64_t *s0[2], *s1[2];
    void *map;
    size_t map_len;
    int have; /* a run at this n finished in this round */
} pair_slot_t;

typedef struct {
    task_t task[2];
    task_info_t info[2];
    uint64_t ref[2];
    uint8_t *flush;
    size_t flush_len;
    uint8_t *sweep; /* the polluter's buffer (cfg->sweep) */
    size_t sweep_len;
    pair_slot_t slot[RUN_MAX_N_LIST];
    int nslots;
    pair_shared_t *sh;
    int cpu;
    int ref_done;       /* ref[] computed (once: the tasks are deterministic) */
    uint64_t k, rounds; /* sample in this group; groups so far (the rotation) */
} pair_state_t;

static const char *const pair_raw[] = {"t_total_ns", "t_task_a_ns", "t_task_b_ns", "n", "clock_ns", NULL};

/* A slot for runs at n: the chunk arrays its run's parties fill, in memory
 * shared with them. */
static int slot_map(pair_state_t *st, pair_slot_t *sl, uint64_t n)
{
    memset(sl, 0, sizeof *sl);
    sl->n = n;
    sl->segs[0] = (size_t)(n + 2) / 2; /* segments 0, 2, 4, ... of n + 1 */
    sl->segs[1] = (size_t)(n + 1) / 2;
    size_t len = 0;
    for (int role = 0; role < 2; role++)
        len += st->task[role].units * sizeof(uint32_t) + 2 * sl->segs[role] * sizeof(uint64_t) + 8;
    sl->map = party_shared_map(len, "chunk times");
    if (!sl->map) return -1;
    sl->map_len = len;
    uint8_t *p = sl->map;
    for (int role = 0; role < 2; role++) {
        sl->s0[role] = (uint64_t *)p;
        sl->s1[role] = sl->s0[role] + sl->segs[role];
        p = (uint8_t *)(sl->s1[role] + sl->segs[role]);
    }
    for (int role = 0; role < 2; role++) {
        sl->dur[role] = (uint32_t *)p;
        p += st->task[role].units * sizeof(uint32_t);
    }
    return 0;
}

/* One slot per n of --n-list (or one for the n of the samples). */
static int slots_map(pair_state_t *st, const run_opts_t *o)
{
    st->nslots = o->n_count ? o->n_count : 1;
    double need = (double)st->nslots * (double)(st->task[0].units + st->task[1].units) * sizeof(uint32_t);
    if (need > (double)CHUNK_MEMORY_MAX) {
        bench_error(
            "the chunk times of %d runs of %zu + %zu chunks need %.1f GiB, more than %.0f GiB: a smaller "
            "--task-scale or fewer values of --n-list",
            st->nslots, st->task[0].units, st->task[1].units, need / (1 << 30),
            (double)CHUNK_MEMORY_MAX / (1 << 30));
        return -1;
    }
    for (int k = 0; k < st->nslots; k++)
        if (slot_map(st, &st->slot[k], o->n_count ? o->n_list[k] : (o->n ? o->n : 1))) return -1;
    return 0;
}

static void slots_unmap(pair_state_t *st)
{
    for (int k = 0; k < st->nslots; k++)
        if (st->slot[k].map) munmap(st->slot[k].map, st->slot[k].map_len);
    memset(st->slot, 0, sizeof st->slot);
    st->nslots = 0;
}

/* The round's switched runs paired with its n = 1 run, chunk by chunk, per
 * switch-in of each task (core/chunks.h), kept in the job's log. */
static void reduce_round(bench_run_t *r, pair_state_t *st)
{
    const pair_slot_t *ref = NULL;
    int listed = 0;
    for (int k = 0; k < st->nslots; k++) {
        listed |= st->slot[k].n == 1;
        if (st->slot[k].n == 1 && st->slot[k].have) ref = &st->slot[k];
    }
    if (r->group < 0) return;
    if (!listed && st->nslots > 1) /* said once (bench_warn keeps one of each) */
        bench_warn(r, "no n = 1 in --n-list: no reference run, so no chunk results");
    if (!ref) return;
    for (int k = 0; k < st->nslots; k++) {
        const pair_slot_t *sl = &st->slot[k];
        if (!sl->have || sl->n < 2) continue;
        chunk_rec_t rec;
        memset(&rec, 0, sizeof rec);
        rec.group = r->group;
        rec.key = (int64_t)sl->n;
        rec.aux = -1;
        rec.roles = 2;
        for (int role = 0; role < 2; role++) {
            size_t ns = sl->segs[role], units = st->task[role].units;
            size_t *b = malloc((ns + 1) * sizeof *b);
            chunk_event_t *ev = malloc((ns ? ns : 1) * sizeof *ev);
            if (!b || !ev) {
                free(b);
                free(ev);
                bench_warn(r, "out of memory: no chunk statistics for a round");
                return;
            }
            task_split(&st->task[role], ns, b);
            size_t m = 0;
            for (size_t s = 1; s < ns; s++) { /* segment 0 follows the start, not a switch */
                /* the segment before this one is the other role's: j - 1 */
                size_t j = 2 * s + (size_t)role, o = (j - 1) / 2;
                uint64_t end = sl->s1[1 - role][o], start = sl->s0[role][s];
                ev[m++] = (chunk_event_t){b[s], b[s + 1] - b[s], start > end ? (double)(start - end) : -1};
            }
            int rc = chunk_reduce(sl->dur[role], ref->dur[role], units, ev, m, chunk_window_of(r->opt),
                                  &rec.s[role]);
            free(b);
            free(ev);
            if (rc) {
                bench_warn(r, "%s", bench_last_error());
                return;
            }
            if (!rec.s[role].events && rec.s[role].short_events)
                bench_warn(
                    r,
                    "n = %llu splits task %s's %zu chunks into intervals of fewer than 2: no chunk result "
                    "at this n (a smaller n or a larger --task-scale)",
                    (unsigned long long)sl->n, st->task[role].ops->name, units);
        }
        if (chunk_log_add(&r->job_state, &rec)) {
            bench_warn(r, "%s", bench_last_error());
            return;
        }
    }
}

static int pair_setup(bench_run_t *r)
{
    const pair_cfg_t *cfg = r->b->arg;
    /* reused over groups; the small struct outlives teardown for params */
    pair_state_t *st = r->state ? r->state : calloc(1, sizeof *st);
    if (!st) {
        bench_error("out of memory");
        return -1;
    }
    r->state = st;
    double scale = task_scale(r->opt);
    size_t size = r->opt->size;
    if (task_init(&st->task[0], cfg->a, scale, size) || task_init(&st->task[1], cfg->b, scale, size))
        return -1;
    if (slots_map(st, r->opt)) return -1; /* before the reference: a size refused at once */
    /* The single-run reference every segmented run must reproduce (the
     * tasks are deterministic: computed in the first group only). */
    if (!st->ref_done) {
        st->ref[0] = task_run_all(&st->task[0]);
        st->ref[1] = task_run_all(&st->task[1]);
        st->ref_done = 1;
    }
    st->k = 0;
    st->rounds++;
    for (int k = 0; k < 2; k++) {
        st->info[k] =
            (task_info_t){st->task[k].ops->doc, st->task[k].units, st->task[k].bytes, st->task[k].detail, ""};
        memcpy(st->info[k].chunk, st->task[k].chunk, sizeof st->info[k].chunk);
    }
    if (cfg->sweep && r->opt->footprint) {
        st->sweep_len = r->opt->footprint;
        st->sweep = party_shared_map(st->sweep_len, "polluter buffer");
        if (!st->sweep) return -1;
        memset(st->sweep, 1, st->sweep_len); /* its pages exist before any run */
    }
    st->sh = party_shared_map(sizeof *st->sh, NULL);
    if (!st->sh) return -1;
    if (cfg->cold) {
        /* shared, not copy-on-write: task a writes it in the child */
        st->flush_len = cache_flush_len();
        st->flush = party_shared_map(st->flush_len, "flush buffer");
        if (!st->flush) return -1;
        memset(st->flush, 1, st->flush_len);
    }
    st->cpu = r->opt->cpu >= 0 ? r->opt->cpu : default_cpu();
    /* The engine itself waits elsewhere, so that only the pair runs here. */
    int other = default_cpu2(st->cpu);
    char err[200] = "";
    if (other >= 0) pin_self(other, err, sizeof err);
    r->pinned = 1;
    r->policy_obtained = POLICY_OTHER;
    return 0;
}

static void pair_teardown(bench_run_t *r)
{
    pair_state_t *st = r->state;
    if (!st) return;
    reduce_round(r, st);
    slots_unmap(st);
    if (st->sweep) munmap(st->sweep, st->sweep_len);
    st->sweep = NULL;
    task_fini(&st->task[0]);
    task_fini(&st->task[1]);
    if (st->sh) munmap(st->sh, sizeof *st->sh);
    if (st->flush) munmap(st->flush, st->flush_len);
    st->sh = NULL;
    st->flush = NULL;
}

static void put_byte(int fd)
{
    char c = 1;
    while (write(fd, &c, 1) != 1 && errno == EINTR) {
    }
}
static int get_byte(int fd)
{
    char c;
    ssize_t k;
    while ((k = read(fd, &c, 1)) < 0 && errno == EINTR) {
    }
    return k == 1 ? 0 : -1;
}

/* Write every page of [p, p + len) once, keeping its bytes. */
static void touch_pages(void *p, size_t len)
{
    volatile uint8_t *c = p;
    for (size_t i = 0; i < len; i += 4096) c[i] = c[i];
    if (len) c[len - 1] = c[len - 1];
}

/* The polluter's work after a switch-in: one write to every line of its
 * buffer, which evicts from every cache level what it displaces. */
static void sweep_lines(uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i += 64) buf[i]++;
}

/* One party: role 0 = task a, 1 = task b. tok[role] wakes this party; its
 * chunks go to slot `sl`. */
static void party(pair_state_t *st, const pair_cfg_t *cfg, int role, uint64_t n, const pair_slot_t *sl,
                  int tok[2][2], int ready_w, int done_w)
{
    pair_shared_t *sh = st->sh;
    char err[200] = "";
    sh->pinned[role] = pin_self(st->cpu, err, sizeof err) == 0;
    if (!sh->pinned[role]) snprintf(sh->err[role], sizeof sh->err[role], "%s", err);
    /* fewer preemptions by the rest of a busy machine (needs root) */
    sh->niced[role] = setpriority(PRIO_PROCESS, 0, -20) == 0;
    task_t *t = &st->task[role];
    size_t mine = sl->segs[role];
    size_t *b = malloc((mine + 1) * sizeof *b);
    if (!b) _exit(1);
    task_split(t, mine, b);
    uint32_t *dur = sl->dur[role];
    uint64_t *s0 = sl->s0[role], *s1 = sl->s1[role];
    uint8_t *sweep = role == 1 ? st->sweep : NULL;
    t->ops->reset(t); /* copy-on-write faults here, before the clock */
    /* and in what the timed loop writes of shared memory (a forked child
     * faults on each page of a shared mapping again): the chunk times, the
     * segments' reads (s0[s] is written inside a segment's first chunk)
     * and the polluter's buffer */
    touch_pages(dur, t->units * sizeof *dur);
    touch_pages(s0, mine * sizeof *s0);
    touch_pages(s1, mine * sizeof *s1);
    if (sweep) touch_pages(sweep, st->sweep_len);
    put_byte(ready_w);
    if (get_byte(tok[role][0])) _exit(1);
    if (role == 0 && cfg->cold) cache_flush(st->flush, st->flush_len);
    /* the counting window is the timed window: after the flush */
    party_counts_read(0, 0, &sh->c0[role]);
    if (role == 0) sh->t0 = clock_ns();
    uint64_t seg = 0;
    int final = 0;
    for (size_t s = 0; s < mine; s++) {
        size_t j = 2 * s + (size_t)role; /* global segment index */
        uint64_t a = clock_ns();
        uint64_t c = chunk_clock();
        s0[s] = c;
        if (j > 0) { /* after a switch-in: the known extra costs, in the first chunk */
            spin_ns(cfg->burn_ns);
            if (sweep) sweep_lines(sweep, st->sweep_len);
        }
        for (size_t u = b[s]; u < b[s + 1]; u++) {
            t->ops->run(t, u, u + 1);
            uint64_t c2 = chunk_clock();
            dur[u] = chunk_ticks(c, c2);
            c = c2;
        }
        s1[s] = c;
        uint64_t e = clock_ns();
        seg += e - a;
        if (j == n) { /* the last segment of the run */
            sh->t_end = e;
            final = 1;
            /* Both parties' counts, now: the other one is off this CPU
             * (blocked, or preempted by our wake-up), so its count is
             * exactly its switches during the run; its parking switch
             * after the run is not counted. */
            party_counts_t c1[2];
            party_counts_read(0, 0, &c1[role]);
            pid_t o = sh->pid[1 - role];
            party_counts_read(o, o, &c1[1 - role]);
            for (int k = 0; k < 2; k++) sh->counts[k] = party_counts_delta(&sh->c0[k], &c1[k]);
            break;
        }
        put_byte(tok[1 - role][1]);           /* the switch: wake the other ... */
        if (get_byte(tok[role][0])) _exit(1); /* ... and block */
    }
    /* The party that did not finish the run was woken by the engine. */
    sh->seg_ns[role] = seg;
    sh->result[role] = t->ops->result(t);
    if (final) {
        put_byte(done_w);
        get_byte(tok[role][0]); /* released by the engine */
    }
    free(b);
    _exit(0);
}

static int pair_sample(bench_run_t *r, uint64_t n, sample_t *out)
{
    const pair_cfg_t *cfg = r->b->arg;
    pair_state_t *st = r->state;
    pair_shared_t *sh = st->sh;
    memset(sh, 0, sizeof *sh);
    /* --n-list: one of each per group (round), rotated from group to group
     * so that no n always comes first (sample 0 of a group is the warm-up) */
    const run_opts_t *o = r->opt;
    int slot = o->n_count ? (int)((st->k + st->rounds) % (uint64_t)o->n_count) : 0;
    if (o->n_count) n = o->n_list[slot];
    pair_slot_t *sl = &st->slot[slot];
    if (sl->n != n) { /* no --n-list: the samples' own n (tests call with several) */
        if (sl->map) munmap(sl->map, sl->map_len);
        if (slot_map(st, sl, n)) return -1;
    }
    sl->have = 0;
    st->k++;
    /* the core clock beside this run (core/clock_probe.h), on the pair's CPU
     * with no task alive: a reading before the forks and after the reaping */
    double clock0 = clock_probe_quick(st->cpu);
    int tok[2][2], ready[2], done[2];
    if (pipe2(tok[0], O_CLOEXEC) || pipe2(tok[1], O_CLOEXEC) || pipe2(ready, O_CLOEXEC) ||
        pipe2(done, O_CLOEXEC)) {
        bench_error("pipe2: %s", strerror(errno));
        return -1;
    }
    pid_t pid[2] = {0, 0};
    for (int role = 0; role < 2; role++) {
        pid[role] = reap_fork();
        if (pid[role] < 0) {
            bench_error("fork: %s", strerror(errno));
            reap_kill_all();
            return -1;
        }
        if (pid[role] == 0) party(st, cfg, role, n, sl, tok, ready[1], done[1]);
        sh->pid[role] = pid[role];
    }
    int rc = 0;
    if (get_byte(ready[0]) || get_byte(ready[0])) rc = -1;
    if (!rc) {
        put_byte(tok[0][1]);            /* go: task a starts */
        if (get_byte(done[0])) rc = -1; /* the last segment is over */
        put_byte(tok[0][1]);            /* release both */
        put_byte(tok[1][1]);
    }
    int failed = rc;
    for (int role = 0; role < 2; role++) {
        int status = 0;
        while (waitpid(pid[role], &status, 0) < 0 && errno == EINTR) {
        }
        reap_forget(pid[role]);
        if (!WIFEXITED(status) || WEXITSTATUS(status)) failed = -1;
    }
    for (int k = 0; k < 2; k++) {
        close(tok[k][0]);
        close(tok[k][1]);
    }
    close(ready[0]);
    close(ready[1]);
    close(done[0]);
    close(done[1]);
    if (failed) {
        bench_error("a task process failed");
        return -1;
    }
    for (int role = 0; role < 2; role++) {
        if (sh->result[role] != st->ref[role]) {
            bench_error("task %s: output checksum %016llx differs from the single-run reference %016llx "
                        "(broken run: no timing reported)",
                        st->task[role].ops->name, (unsigned long long)sh->result[role],
                        (unsigned long long)st->ref[role]);
            return -1;
        }
        if (!sh->pinned[role]) {
            r->pinned = 0;
            bench_warn(r, "task process not pinned: %s", sh->err[role]);
        }
        if (!sh->niced[role]) bench_warn(r, "nice -20 refused: the tasks may be preempted more often");
    }
    out->value = (double)(sh->t_end - sh->t0);
    out->raw[0] = out->value;
    out->raw[1] = (double)sh->seg_ns[0];
    out->raw[2] = (double)sh->seg_ns[1];
    out->raw[3] = (double)n;
    out->raw[4] = (clock0 + clock_probe_quick(st->cpu)) / 2; /* ns for PROBE_OPS adds */
    out->duration_ns = sh->t_end - sh->t0;
    sl->have = 1;
    out->has_verify = 1;
    verify_zero(&out->v);
    out->v.expected_voluntary = (int64_t)n;
    verify_add_switch(&out->v, &sh->counts[0]);
    verify_add_switch(&out->v, &sh->counts[1]);
    return 0;
}

static void pair_params(bench_run_t *r, json_t *j)
{
    const pair_cfg_t *cfg = r->b->arg;
    pair_state_t *st = r->state;
    char pair[64];
    snprintf(pair, sizeof pair, "%s+%s", cfg->a, cfg->b);
    json_kstr(j, "pair", pair);
    json_kstr(j, "task_a", cfg->a);
    json_kstr(j, "task_b", cfg->b);
    json_kstr(j, "placement", "same-cpu");
    json_kint(j, "pair_cpu", st ? st->cpu : -1);
    json_kstr(j, "switch", "blocking pipe hand-off between two processes");
    json_knum(j, "scale", task_scale(r->opt));
    json_kbool(j, "cold", cfg->cold);
    if (cfg->cold)
        json_kstr(j, "cold_method",
                  "task a writes then reads (one byte per 64-byte line) a buffer of "
                  "3x the last-level cache before its first segment; user space cannot "
                  "flush the TLB or drain the write buffer directly");
    json_kint(j, "cold_flush_bytes", cfg->cold && st ? (int64_t)st->flush_len : 0);
    if (cfg->burn_ns) json_kint(j, "burn_ns", (int64_t)cfg->burn_ns);
    if (cfg->sweep) {
        json_kint(j, "sweep_bytes", (int64_t)(st ? st->sweep_len : r->opt->footprint));
        json_kstr(j, "sweep",
                  "task b writes one byte of every 64-byte line of a buffer of sweep_bytes after "
                  "every switch-in, in its first chunk");
    }
    if (r->opt->size) json_kint(j, "size", (int64_t)r->opt->size);
    if (r->opt->n_count) {
        json_key(j, "n_list");
        json_arr_begin(j);
        for (int i = 0; i < r->opt->n_count; i++) json_int(j, (int64_t)r->opt->n_list[i]);
        json_arr_end(j);
    }
    if (st) {
        for (int k = 0; k < 2; k++) {
            json_key(j, k ? "task_b_info" : "task_a_info");
            json_obj_begin(j);
            json_kstr(j, "doc", st->info[k].doc);
            json_kint(j, "units", (int64_t)st->info[k].units);
            json_kint(j, "bytes", (int64_t)st->info[k].bytes);
            json_kint(j, "detail", (int64_t)st->info[k].detail);
            json_kstr(j, "chunk", st->info[k].chunk);
            char ref[32];
            snprintf(ref, sizeof ref, "%016llx", (unsigned long long)st->ref[k]);
            json_kstr(j, "reference", ref);
            json_obj_end(j);
        }
    }
}

static void pair_extra(bench_run_t *r, json_t *j)
{
    const pair_cfg_t *cfg = r->b->arg;
    static const char *const roles[2] = {"a", "b"};
    const char *const tasks[2] = {cfg->a, cfg->b};
    chunk_log_json(j, r->job_state, "n", roles, tasks, chunk_window_of(r->opt));
}

#define PAIR(var, A, B, cold, idstr, ord) PAIR_CFG(var, A, B, cold, 0, 0, idstr, ord)
#define PAIR_CFG(var, A, B, cold, burn, sweep, idstr, ord)                                                   \
    static const pair_cfg_t var##_cfg = {A, B, cold, burn, sweep};                                           \
    static const bench_t var = {.id = idstr,                                                                 \
                                .quantity = "run",                                                           \
                                .unit = "ns",                                                                \
                                .doc =                                                                       \
                                    "R'_total of two tasks with n cooperative switches (David et al. 2007)", \
                                .flags = BENCH_HIDDEN | BENCH_FIXED_N,                                       \
                                .order = ord,                                                                \
                                .raw_names = pair_raw,                                                       \
                                .setup = pair_setup,                                                         \
                                .sample = pair_sample,                                                       \
                                .teardown = pair_teardown,                                                   \
                                .params = pair_params,                                                       \
                                .extra = pair_extra,                                                         \
                                .arg = &var##_cfg,                                                           \
                                .n0 = 1,                                                                     \
                                .policy = POLICY_OTHER};                                                     \
    BENCH_REGISTER(var)
#define PAIR2(v, A, B, ord)                                                                                  \
    PAIR(v##_c, #A, #B, 1, "tasks/" #A "+" #B, ord);                                                         \
    PAIR(v##_w, #A, #B, 0, "tasks/" #A "+" #B "/warm", ord + 50)

PAIR2(p_sd, sort, deflate, 900);
PAIR2(p_ds, deflate, sort, 901);
PAIR2(p_sc, sort, crc, 902);
PAIR2(p_cs, crc, sort, 903);
PAIR2(p_sa, sort, aes, 904);
PAIR2(p_as, aes, sort, 905);
PAIR2(p_dc, deflate, crc, 906);
PAIR2(p_cd, crc, deflate, 907);
PAIR2(p_da, deflate, aes, 908);
PAIR2(p_ad, aes, deflate, 909);
PAIR2(p_ac, aes, crc, 910);
PAIR2(p_ca, crc, aes, 911);
PAIR2(p_ee, empty, empty, 912);
/* Known answer for the per-switch indirect cost: empty tasks, each spinning
 * 5 us (wall time) at the start of every segment after a switch-in. */
PAIR_CFG(p_burn, "empty", "empty", 1, 5000, 0, "tasks/empty+empty/burn-5us", 913);
/* Known answer for the recovery: the polluter pair. Task a walks a buffer
 * of --size bytes in an order no prefetcher follows (chase); task b does no
 * work but sweeps --footprint bytes after every switch-in. a's cost per
 * switch-in grows with the sweep until its buffer is wholly evicted from
 * the level that holds it. Warm: the first segment is left out anyway. */
PAIR_CFG(p_poll, "chase", "empty", 0, 0, 1, "tasks/chase+sweep", 914);
