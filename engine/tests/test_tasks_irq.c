/* The timer signal's handler runs once per expiration requested: handler
 * count + merged expirations (overruns) == count; D comes out positive
 * with every signal seen, and at least the handler's known spin. */
#include "check.h"
#include "irq/irq.h"
#include "core/sched_ctl.h"

int main(void)
{
    sched_ctl_init();
    char err[200];
    pin_self(default_cpu(), err, sizeof err);
    uint64_t counts[] = {1, 10, 100};
    for (int i = 0; i < 3; i++) {
        /* exactly `count` expirations requested, one by one */
        uint64_t h = irq_fire_each(1000000, counts[i]);
        CHECK(h == counts[i], "requested %llu expirations, handler ran %llu times",
              (unsigned long long)counts[i], (unsigned long long)h);
        /* periodic: every expiration due is handled or merged (overrun) into
         * a pending signal; the count of due ones is read from the clock
         * around arming and disarming, so an expiry in those few
         * microseconds may fall either way */
        uint64_t handled = 0, due = 0;
        uint64_t got = irq_fire(2000000, counts[i], &handled, &due); /* every 2 ms */
        CHECK(got + 1 >= due && got <= due + 1, "%llu expirations due, handler+overruns %llu (handler %llu)",
              (unsigned long long)due, (unsigned long long)got, (unsigned long long)handled);
        CHECK(handled >= 1 && handled <= got, "handler %llu", (unsigned long long)handled);
    }
    irq_direct_t d;
    CHECK(irq_direct(100, 100000, &d) == 0, "irq_direct failed");
    CHECK(d.n == 100, "saw %llu of 100 signals", (unsigned long long)d.n);
    CHECK(d.d_ns > 0 && d.min_step_ns > 0, "D %.1f ns, min step %.1f ns", d.d_ns, d.min_step_ns);
    printf("D = %.0f ns (median gap %.0f ns, loop step %.0f ns, %llu dropped)\n", d.d_ns, d.median_gap_ns,
           d.min_step_ns, (unsigned long long)d.dropped);
    /* known answer: a handler that spins 20 us of wall time makes every gap
     * at a signal at least 20 us long, so D (mean gap - loop step) is too */
    irq_set_burn(20000);
    CHECK(irq_direct(50, 100000, &d) == 0, "irq_direct with a burn failed");
    irq_set_burn(0);
    CHECK(d.d_ns >= 20000 - d.min_step_ns, "D %.0f ns with a 20 us handler", d.d_ns);
    CHECK_DONE("tasks_irq");
}
