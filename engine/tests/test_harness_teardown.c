/* The harness calls a benchmark's teardown after every setup, also one
 * that fails part-way: a setup that has switched to SCHED_FIFO and started
 * a second party, then fails, must leave neither behind for the next
 * (interleaved) job. A fake benchmark does exactly that, in harness_prepare
 * and in a later group. */
#include "check.h"
#include "core/bench.h"
#include "core/harness.h"
#include "core/reap.h"
#include "core/sched_ctl.h"
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

static int setups, teardowns, fail_at_setup; /* fail the setup numbered fail_at_setup (1-based) */
static _Atomic int party_quit;
static pthread_t party;
static int party_running;

static void *party_b(void *p)
{
    (void)p;
    struct timespec ts = {0, 1000000};
    for (int i = 0; i < 20000 && !atomic_load(&party_quit); i++) nanosleep(&ts, NULL); /* bounded */
    return NULL;
}

static int fake_setup(bench_run_t *r)
{
    setups++;
    char err[200];
    if (set_policy_self(POLICY_FIFO, 10, err, sizeof err) == 0) r->policy_obtained = POLICY_FIFO;
    atomic_store(&party_quit, 0);
    party_running = pthread_create(&party, NULL, party_b, NULL) == 0;
    if (setups == fail_at_setup) {
        bench_error("injected failure after SCHED_FIFO and party B");
        return -1;
    }
    return 0;
}

static int fake_sample(bench_run_t *r, uint64_t n, sample_t *out)
{
    (void)r;
    out->value = (double)n;
    out->duration_ns = 2000000; /* long enough: adaptive n stops at once */
    return 0;
}

static void fake_teardown(bench_run_t *r)
{
    teardowns++;
    if (party_running) {
        atomic_store(&party_quit, 1);
        pthread_join(party, NULL);
        party_running = 0;
    }
    char err[200];
    if (r->policy_obtained == POLICY_FIFO) set_policy_self(POLICY_OTHER, 0, err, sizeof err);
    r->policy_obtained = POLICY_OTHER;
}

static const bench_t fake = {.id = "selftest/fake-setup-failure",
                             .quantity = "cost",
                             .unit = "ns",
                             .doc = "fails its setup part-way",
                             .setup = fake_setup,
                             .sample = fake_sample,
                             .teardown = fake_teardown,
                             .n0 = 1};

static int threads(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

int main(void)
{
    sched_ctl_init();
    reap_install();
    run_opts_t o;
    run_opts_default(&o);
    o.groups = 2;
    o.iterations = 2;
    o.warmup_ms = 0;
    int before = threads();

    /* 1. in harness_prepare */
    setups = teardowns = 0;
    fail_at_setup = 1;
    harness_job_t *h = harness_prepare(&fake, &o);
    CHECK(h != NULL, "prepare returned no job");
    CHECK(teardowns == setups && setups == 1, "setups %d, teardowns %d", setups, teardowns);
    CHECK(sched_getscheduler(0) == SCHED_OTHER, "left at policy %d", sched_getscheduler(0));
    CHECK(threads() == before, "threads: %d, before %d", threads(), before);
    CHECK(harness_group(h, 0) == -1, "a failed job measured a group");
    engine_summary_t s;
    CHECK(harness_summary(h, &s) == -1, "a failed job has a summary");
    harness_free(h);

    /* 2. in a later group (the second setup is group 0's: prepare had one) */
    setups = teardowns = 0;
    fail_at_setup = 3;
    h = harness_prepare(&fake, &o);
    CHECK(harness_group(h, 0) == 0, "group 0: %s", bench_last_error());
    CHECK(harness_group(h, 1) == -1, "group 1 should fail");
    CHECK(teardowns == setups && setups == 3, "setups %d, teardowns %d", setups, teardowns);
    CHECK(sched_getscheduler(0) == SCHED_OTHER, "left at policy %d", sched_getscheduler(0));
    CHECK(threads() == before, "threads: %d, before %d", threads(), before);
    harness_free(h);
    CHECK_DONE("harness teardown after a part-way setup failure");
}
