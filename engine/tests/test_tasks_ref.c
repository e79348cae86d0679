/* Each task's segmented output equals its single-run reference, and a
 * corrupted input is detected (the result differs from the reference). */
#include "check.h"
#include "core/bench.h"
#include "core/clock.h"
#include "tasks/task.h"
#include <string.h>

int main(void)
{
    const char *names[] = {"sort", "deflate", "aes", "crc", "empty", "chase"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        task_t t;
        /* small: a few dozen units, enough for uneven splits */
        double scale = !strcmp(names[k], "sort") ? 0.02 : !strcmp(names[k], "aes") ? 0.004 : 0.01;
        if (!strcmp(names[k], "chase")) scale = 0.05;
        int rc = task_init(&t, names[k], scale, 0);
        if (rc) {
            /* a build without zlib/libcrypto says so; this build has them */
            CHECK(0, "%s: init failed: %s", names[k], bench_last_error());
            continue;
        }
        uint64_t t0 = clock_ns();
        uint64_t ref = task_run_all(&t);
        uint64_t dt = clock_ns() - t0;
        printf("%s: %zu units, %.3f s at scale %g (%.3f s at scale 1)\n", names[k], t.units, dt / 1e9, scale,
               dt / 1e9 / scale);
        CHECK(ref != 0, "%s: reference result is the invalid value 0", names[k]);
        CHECK(task_run_all(&t) == ref, "%s: not deterministic", names[k]);
        size_t nsegs[] = {2, 3, 7, 50};
        for (size_t s = 0; s < 4; s++) {
            size_t nseg = nsegs[s], b[64];
            task_split(&t, nseg, b);
            CHECK(b[0] == 0 && b[nseg] == t.units, "%s: split bounds", names[k]);
            t.ops->reset(&t);
            for (size_t i = 0; i < nseg; i++) {
                CHECK(b[i] <= b[i + 1], "%s: split not monotonic", names[k]);
                t.ops->run(&t, b[i], b[i + 1]);
            }
            CHECK(t.ops->result(&t) == ref, "%s: %zu segments differ from the reference", names[k], nseg);
        }
        if (strcmp(names[k], "empty")) {
            t.ops->corrupt(&t);
            CHECK(task_run_all(&t) != ref, "%s: corrupted input not detected", names[k]);
        }
        task_fini(&t);
    }
    task_t bad;
    CHECK(task_init(&bad, "nosuch", 1, 0) != 0, "unknown task accepted");
    CHECK(strstr(bench_last_error(), "unknown task") != NULL, "message: %s", bench_last_error());
    CHECK_DONE("tasks_ref");
}
