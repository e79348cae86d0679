/* The timer signal's handler runs once per expiration requested: handler
 * count + merged expirations (overruns) == count; and D comes out positive
 * with every signal seen. */
#include "check.h"
#include "irq.h"
#include "sched_ctl.h"

int main(void)
{
    sched_ctl_init();
    char err[200];
    pin_self(default_cpu(), err, sizeof err);
    uint64_t counts[] = {1, 10, 100};
    for (int i = 0; i < 3; i++) {
        uint64_t handled = 0;
        uint64_t got = irq_fire(2000000, counts[i], &handled); /* every 2 ms */
        CHECK(got == counts[i], "requested %llu expirations, handler+overruns %llu (handler %llu)",
              (unsigned long long)counts[i], (unsigned long long)got, (unsigned long long)handled);
        CHECK(handled >= 1 && handled <= counts[i], "handler %llu", (unsigned long long)handled);
    }
    irq_direct_t d;
    CHECK(irq_direct(100, 100000, &d) == 0, "irq_direct failed");
    CHECK(d.n == 100, "saw %llu of 100 signals", (unsigned long long)d.n);
    CHECK(d.d_ns > 0 && d.min_step_ns > 0, "D %.1f ns, min step %.1f ns", d.d_ns, d.min_step_ns);
    printf("D = %.0f ns (median gap %.0f ns, loop step %.0f ns, %llu dropped)\n", d.d_ns, d.median_gap_ns,
           d.min_step_ns, (unsigned long long)d.dropped);
    CHECK_DONE("tasks_irq");
}
