/* The counter code (perf_counters.c), tested with software events since
 * hardware counters may be refused: counts of the calling thread and of
 * another thread over an enabled window, and a refusal that says why.
 * Also: the polluter's eviction (core/evict.h) evicts without changing the array's contents. */
#include "check.h"
#include "core/perf_counters.h"
#include "kernel/pp_counters.h"
#include "core/evict.h"
#include "core/verify.h"
#include "core/work.h"
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static const pc_event_t sw[] = {
    {"task_clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"context_switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
};

static void nap(void)
{
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
}

static _Atomic int go, done, tid_b;

/* Party a's context switches in a "counters" member written by sc_write;
 * -1 if absent. */
static long long switch_count(const char *json)
{
    const char *k = "\"switch\":{\"a\":{\"context_switches\":";
    const char *p = strstr(json, k);
    return p ? strtoll(p + strlen(k), NULL, 10) : -1;
}

static void *other(void *p)
{
    (void)p;
    atomic_store(&tid_b, (int)gettid_());
    for (int i = 0; i < 5000 && !atomic_load(&go); i++) nap(); /* bounded */
    for (int i = 0; i < 20; i++) nap();                        /* 20 voluntary switches */
    atomic_store(&done, 1);
    return NULL;
}

int main(void)
{
    pc_set_t s;
    uint64_t v[PC_MAX_EVENTS];

    /* Where the kernel (or qemu-user) has no perf_event_open at all, or
     * refuses it to this process (perf_event_paranoid, seccomp), the code
     * must say so and the counter checks cannot run: the refusal is checked,
     * then the rest (the polluter) is tested. */
    const char *refused = NULL;
    if (pc_open(&s, sw, 3, 0) < 0 && (s.err == ENOSYS || s.err == EACCES || s.err == EPERM)) {
        CHECK(s.err_event && !strcmp(s.err_event, "task_clock") && s.fd[0] < 0, "refusal not reported");
        refused = strerror(s.err);
        goto polluter;
    }
    pc_close(&s);
    /* the calling thread: 64 fresh pages and 10 sleeps */
    CHECK(pc_open(&s, sw, 3, 0) == 0, "open software events: errno %d", s.err);
    CHECK(pc_reset_enable(&s) == 0, "enable");
    char *p = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int i = 0; i < 64; i++) p[i * 4096] = 1;
    for (int i = 0; i < 10; i++) nap();
    CHECK(pc_disable(&s) == 0, "disable");
    CHECK(pc_read(&s, v) == 0, "read");
    CHECK(v[0] > 0, "task clock counted nothing");
    CHECK(v[1] >= 10, "context switches: %llu < 10", (unsigned long long)v[1]);
    CHECK(v[2] >= 64, "page faults: %llu < 64", (unsigned long long)v[2]);
    /* disabled: nothing more is counted */
    for (int i = 0; i < 5; i++) nap();
    uint64_t w[PC_MAX_EVENTS];
    CHECK(pc_read(&s, w) == 0 && w[1] == v[1], "counted while disabled: %llu -> %llu",
          (unsigned long long)v[1], (unsigned long long)w[1]);
    /* reset starts from zero */
    CHECK(pc_reset_enable(&s) == 0 && pc_disable(&s) == 0 && pc_read(&s, w) == 0 && w[1] <= 1, "reset");
    pc_close(&s);
    munmap(p, 64 * 4096);

    /* another thread, observed from this one (as party A observes B) */
    pthread_t t;
    CHECK(pthread_create(&t, NULL, other, NULL) == 0, "thread");
    for (int i = 0; i < 5000 && !atomic_load(&tid_b); i++) nap();
    CHECK(pc_open(&s, sw, 2, (pid_t)atomic_load(&tid_b)) == 0, "open for another thread: errno %d", s.err);
    pc_reset_enable(&s);
    atomic_store(&go, 1);
    for (int i = 0; i < 10000 && !atomic_load(&done); i++) nap();
    pc_disable(&s);
    CHECK(pc_read(&s, v) == 0, "read other");
    CHECK(v[1] >= 20, "other thread's context switches: %llu < 20", (unsigned long long)v[1]);
    pc_close(&s);
    pthread_join(t, NULL);

    /* a refused event: closed set, errno and the event's name */
    static const pc_event_t bad[] = {{"task_clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
                                     {"nonsense", 0x7fff, 0}};
    CHECK(pc_open(&s, bad, 2, 0) < 0 && s.err && s.err_event && !strcmp(s.err_event, "nonsense") &&
              s.fd[0] < 0,
          "refusal not reported");
    CHECK(pc_read(&s, v) != 0, "read of a closed set must fail");

    /* Two jobs interleaved (run A B --counters --interleave): each keeps its
     * own counts. Job A counts two windows (two setups) of three sleeps each,
     * job B one empty window in between; each job's "windows" must say so,
     * and A's context switches must not reach B's sums. */
    {
        run_opts_t o;
        memset(&o, 0, sizeof o);
        o.counters = 1;
        bench_run_t ra, rb;
        memset(&ra, 0, sizeof ra);
        memset(&rb, 0, sizeof rb);
        ra.opt = rb.opt = &o;
        sc_use_events(&ra, &sw[1], 1); /* context_switches */
        sc_use_events(&rb, &sw[1], 1);
        pid_t self = (pid_t)gettid_();
        for (int k = 0; k < 2; k++) { /* A's group k, then (once) B's */
            sc_open(&ra, self);
            CHECK(sc_armed(&ra), "job A not armed");
            sc_begin(&ra, SC_SWITCH);
            for (int i = 0; i < 3; i++) nap();
            sc_end(&ra, SC_SWITCH);
            sc_sample_done(&ra);
            sc_close(&ra);
            if (k == 0) {
                sc_open(&rb, self);
                sc_begin(&rb, SC_SWITCH);
                sc_end(&rb, SC_SWITCH);
                sc_sample_done(&rb);
                CHECK(!sc_armed(&rb), "only the first sample after a setup counts");
                sc_close(&rb);
            }
        }
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        json_t j;
        json_init(&j, m);
        json_obj_begin(&j);
        sc_write(&rb, &j);
        json_obj_end(&j);
        fclose(m);
        CHECK(strstr(buf, "\"windows\":1") != NULL, "job B's windows: %s", buf);
        long long b_sw = switch_count(buf);
        free(buf);
        buf = NULL;
        m = open_memstream(&buf, &len);
        json_init(&j, m);
        json_obj_begin(&j);
        sc_write(&ra, &j);
        json_obj_end(&j);
        fclose(m);
        CHECK(strstr(buf, "\"windows\":2") != NULL, "job A's windows: %s", buf);
        long long a_sw = switch_count(buf);
        /* A slept six times in its windows; B's window was empty */
        CHECK(a_sw >= 6, "job A's context switches: %lld < 6", a_sw);
        CHECK(b_sw >= 0 && b_sw < a_sw, "job B's context switches (%lld) not its own (A: %lld)", b_sw, a_sw);
        free(buf);
        free(ra.job_state);
        free(rb.job_state);
    }

polluter:;
    /* the polluter evicts without changing data */
    work_t wk;
    CHECK(work_init(&wk, 16384, 64) == 0, "work init");
    work_pass(&wk);
    evict_lines(&wk, 1000); /* more lines than the array: capped */
    work_pass(&wk);
    size_t wrong = 0;
    for (size_t i = 0; i < 16384 / sizeof(work_elem_t); i++) wrong += wk.a[i] != 2.0;
    CHECK(wrong == 0, "%zu elements changed by eviction", wrong);
    work_fini(&wk);
    if (refused) /* the refusal and the polluter were checked, the counters could not be */
        CHECK_SKIP("perf counters (software events) and polluter",
                   "perf_event_open refused here (%s): counter checks not run", refused);
    CHECK_DONE("perf counters (software events) and polluter");
}
