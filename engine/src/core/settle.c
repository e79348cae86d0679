#include "core/settle.h"
#include "core/clock.h"
#include <sys/resource.h>

static int64_t switches_now(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_THREAD, &u)) return -1;
    return (int64_t)u.ru_nvcsw + (int64_t)u.ru_nivcsw;
}

settle_t settle_wait(uint64_t window_ns, uint64_t gap_ns, uint64_t limit_ns)
{
    uint64_t t0 = clock_ns(), start = t0, prev = t0, last_check = t0;
    settle_t s = {t0, 0, 0, 0, 0};
    int64_t sw = switches_now();
    for (;;) {
        uint64_t now = clock_ns();
        if (now - prev > gap_ns) {
            s.gaps++;
            start = now;
        }
        prev = now;
        /* the switch count is a system call: read it every few microseconds */
        if (now - last_check > 5000) {
            int64_t x = switches_now();
            if (x != sw) {
                s.switches += x > sw ? x - sw : 1;
                sw = x;
                start = now;
            }
            last_check = clock_ns();
            prev = last_check;
        }
        if (now - start >= window_ns) {
            s.quiet = 1;
            break;
        }
        if (now - t0 >= limit_ns) break;
    }
    s.waited_ns = clock_ns() - t0;
    return s;
}
