/* The pair runner switches exactly n times: each process counts its own
 * switches (verify.c, /proc) over its part of the run, and together they
 * show n switches. Under SCHED_OTHER the woken task often preempts the
 * waker at once (an involuntary switch of the waker, which then finds its
 * token without blocking), so it is voluntary + involuntary that equals n;
 * another task preempting them adds to it, so a disturbed try is repeated
 * (bounded). Under a user-mode emulator (qemu-user, the ARM tests) the
 * emulator's own threads and locks add voluntary switches of their own, so
 * there only the lower bound (at least n) is checked. */
#include "check.h"
#include "core/bench.h"
#include "core/harness.h"
#include "core/reap.h"
#include "core/sched_ctl.h"
#include "env/emulation.h"
#include <stdlib.h>
#include <string.h>

int main(void)
{
    sched_ctl_init();
    reap_install();
    char evid[128];
    int emulated = emulation_detect(evid, sizeof evid);
    if (emulated)
        printf("note: emulated (%s): the emulator adds switches; only 'at least n' is checked\n", evid);
    const char *ids[] = {"tasks/empty+empty/warm", "tasks/sort+crc/warm"};
    for (int b = 0; b < 2; b++) {
        const bench_t *bench = bench_find(ids[b]);
        CHECK(bench != NULL, "%s not registered", ids[b]);
        if (!bench) continue;
        run_opts_t o;
        run_opts_default(&o);
        o.task_scale = 0.01;
        bench_run_t r;
        memset(&r, 0, sizeof r);
        r.b = bench;
        r.opt = &o;
        CHECK(bench->setup(&r) == 0, "%s setup: %s", ids[b], bench_last_error());
        uint64_t ns[] = {1, 2, 7, 50, 99};
        for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
            if (b == 1 && ns[k] != 7) continue; /* real tasks: one n is enough here */
            int exact = 0;
            for (int tries = 0; tries < 8 && !exact; tries++) {
                sample_t s;
                memset(&s, 0, sizeof s);
                CHECK(bench->sample(&r, ns[k], &s) == 0, "sample: %s", bench_last_error());
                CHECK(s.has_verify && s.v.expected_voluntary == (int64_t)ns[k], "expected %llu",
                      (unsigned long long)ns[k]);
                CHECK(s.v.voluntary >= 0 && (emulated || s.v.voluntary <= (int64_t)ns[k]),
                      "%s n=%llu: voluntary %lld > n", ids[b], (unsigned long long)ns[k],
                      (long long)s.v.voluntary);
                CHECK(s.v.voluntary + s.v.involuntary >= (int64_t)ns[k], "%s n=%llu: only %lld switches",
                      ids[b], (unsigned long long)ns[k], (long long)(s.v.voluntary + s.v.involuntary));
                CHECK(s.v.migrations == 0, "migrations %lld", (long long)s.v.migrations);
                CHECK(s.value > 0 && s.raw[1] >= 0 && s.raw[2] >= 0, "times");
                if (tries == 0)
                    printf("%s n=%llu: voluntary %lld involuntary %lld\n", ids[b], (unsigned long long)ns[k],
                           (long long)s.v.voluntary, (long long)s.v.involuntary);
                exact = s.v.voluntary + s.v.involuntary == (int64_t)ns[k];
            }
            /* empty tasks: a few microseconds, rarely disturbed; real tasks
             * run long enough for a busy machine to preempt them every try,
             * which the bounds above still check */
            if (b == 0 && !emulated)
                CHECK(exact, "%s n=%llu: never exactly n switches in 8 tries", ids[b],
                      (unsigned long long)ns[k]);
        }
        bench->teardown(&r);
    }
    CHECK_DONE("tasks_pair");
}
