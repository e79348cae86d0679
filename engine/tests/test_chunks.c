/* chunk_reduce on made-up runs with a known answer: every event's first
 * chunk 100 ticks slower, its second 40, the whole run 3 ticks per chunk
 * slower than the reference (a difference between runs the event does not
 * explain), a few events hit by a stall of 10^6 ticks. The excess per
 * event must come back as 140 ticks (the run's offset cancels, the trimmed
 * mean sets the stalls aside), the tail as 3 per chunk, the curve as
 * 103, 43, 3, 3, ..., `after` as 40, `whole` as 140 + 3 per chunk. */
#include "check.h"
#include "core/chunks.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int near(double a, double b, double tol)
{
    return fabs(a - b) <= tol;
}

int main(void)
{
    enum { EV = 200, LEN = 64, N = EV * LEN };
    uint32_t *t = calloc(N, sizeof *t), *ref = calloc(N, sizeof *ref);
    chunk_event_t ev[EV];
    for (int i = 0; i < N; i++) {
        ref[i] = 1000 + (uint32_t)(i % 7) * 10; /* uneven chunks: paired by index, so it cancels */
        t[i] = ref[i] + 3;
    }
    for (int e = 0; e < EV; e++) {
        t[e * LEN] += 100;
        t[e * LEN + 1] += 40;
        ev[e] = (chunk_event_t){(size_t)e * LEN, LEN, 2000};
    }
    for (int e = 0; e < EV; e += 25) t[e * LEN + 5] += 1000000; /* 8 stalls: 4% of the events */
    chunk_stats_t s;
    CHECK(chunk_reduce(t, ref, N, ev, EV, 256, &s) == 0, "reduce");
    double tick = chunk_tick_ns();
    CHECK(isfinite(tick) && tick > 0, "tick %g", tick);
    CHECK(s.events == EV && s.short_events == 0, "events %llu", (unsigned long long)s.events);
    CHECK(near(s.excess.tmean / tick, 140, 1e-6), "excess %g ticks", s.excess.tmean / tick);
    CHECK(s.excess.mean / tick > 140 + 1000, "the mean keeps the stalls: %g", s.excess.mean / tick);
    CHECK(near(s.tail.tmean / tick, 3, 1e-9), "tail %g", s.tail.tmean / tick);
    CHECK(near(s.after.tmean / tick, 40, 1e-6), "after %g", s.after.tmean / tick);
    CHECK(near(s.whole.tmean / tick, 140 + 3.0 * LEN, 1e-6), "whole %g", s.whole.tmean / tick);
    CHECK(near(s.gap.median / tick, 2000, 1e-9), "gap %g", s.gap.median / tick);
    CHECK(near(s.window.mean, LEN / 2, 1e-9), "window %g", s.window.mean);
    CHECK(near(s.b_tmean[0] / tick, 103, 1e-3) && near(s.b_tmean[1] / tick, 43, 1e-3), "curve %g %g",
          s.b_tmean[0] / tick, s.b_tmean[1] / tick);
    for (int b = 2; b < s.buckets; b++)
        CHECK(near(s.b_tmean[b] / tick, 3, 1e-3), "bucket %d: %g", b, s.b_tmean[b]);
    CHECK(s.buckets == chunk_bucket(LEN - 1) + 1, "buckets %d", s.buckets);
    /* positions: one by one, then powers of two */
    CHECK(chunk_bucket(15) == 15 && chunk_bucket(16) == 16 && chunk_bucket(31) == 16 &&
              chunk_bucket(32) == 17,
          "buckets of positions");
    CHECK(chunk_bucket_lo(16) == 16 && chunk_bucket_lo(17) == 32, "bucket starts");
    /* a one-chunk event is left out, not divided by zero */
    chunk_event_t one = {0, 1, -1};
    CHECK(chunk_reduce(t, ref, N, &one, 1, 256, &s) == 0 && s.events == 0 && s.short_events == 1,
          "short event");
    free(t);
    free(ref);
    CHECK_DONE("chunks");
}
