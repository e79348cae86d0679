/* noise/gaps: one sample = one window of --n milliseconds on the pinned
 * CPU; value = time lost to gaps (ns). The gap histogram, the longest gaps
 * and the /proc/interrupts deltas of that CPU are summed over all samples
 * and written with the result. */
#include "core/bench.h"
#include "noise/noise.h"
#include "core/sched_ctl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int cpu;
    noise_result_t r; /* the current window */
    uint64_t hist_count[NOISE_BINS], hist_ns[NOISE_BINS];
    uint64_t count, total_ns, longest_ns, window_ns, threshold_ns, min_step_ns;
    noise_gap_t top[20]; /* the longest gaps (at: ns from the start of their window) */
    int have_irq;
    irq_snap_t before, after, delta;
} noise_state_t;

static const char *const noise_raw[] = {"gaps",        "gap_total_ns", "longest_ns", "threshold_ns",
                                        "min_step_ns", "window_ns",    NULL};

static int noise_setup(bench_run_t *r)
{
    /* kept over groups: the histogram and deltas add up over all of them,
     * and the result is written after the last teardown */
    noise_state_t *st = r->state ? r->state : calloc(1, sizeof *st);
    if (!st) {
        bench_error("out of memory");
        return -1;
    }
    int first = r->state == NULL;
    r->state = st;
    st->cpu = r->opt->cpu >= 0 ? r->opt->cpu : default_cpu();
    char err[200] = "";
    r->pinned = pin_self(st->cpu, err, sizeof err) == 0;
    if (!r->pinned) bench_warn(r, "%s", err);
    if (first) {
        st->have_irq = irq_snap_read(st->cpu, &st->delta) == 0;
        if (!st->have_irq) bench_warn(r, "/proc/interrupts unreadable: no interrupt deltas");
        for (int i = 0; i < st->delta.n; i++) st->delta.count[i] = 0;
    }
    return 0;
}

static void noise_teardown(bench_run_t *r)
{
    (void)r; /* the state lives until the engine exits */
}

static void keep_top(noise_state_t *st, noise_gap_t g)
{
    int lo = 0;
    for (int i = 1; i < 20; i++)
        if (st->top[i].len_ns < st->top[lo].len_ns) lo = i;
    if (g.len_ns > st->top[lo].len_ns) st->top[lo] = g;
}

static int noise_sample(bench_run_t *r, uint64_t ms, sample_t *out)
{
    noise_state_t *st = r->state;
    int irq_ok = st->have_irq && irq_snap_read(st->cpu, &st->before) == 0;
    noise_measure(ms * 1000000ull, 0, &st->r);
    irq_ok = irq_ok && irq_snap_read(st->cpu, &st->after) == 0;
    /* lines are matched by name: the set rarely changes, never mid-run */
    for (int i = 0; irq_ok && i < st->delta.n; i++)
        for (int a = 0; a < st->after.n; a++)
            if (!strcmp(st->after.name[a], st->delta.name[i]))
                for (int b = 0; b < st->before.n; b++)
                    if (!strcmp(st->before.name[b], st->delta.name[i])) {
                        st->delta.count[i] += st->after.count[a] - st->before.count[b];
                        break;
                    }
    const noise_result_t *n = &st->r;
    for (int k = 0; k < NOISE_BINS; k++) {
        st->hist_count[k] += n->hist_count[k];
        st->hist_ns[k] += n->hist_ns[k];
    }
    st->count += n->count;
    st->total_ns += n->total_ns;
    st->window_ns += n->window_ns;
    st->threshold_ns = n->threshold_ns;
    st->min_step_ns = n->min_step_ns;
    if (n->longest_ns > st->longest_ns) st->longest_ns = n->longest_ns;
    for (size_t i = 0; i < n->ngaps; i++) keep_top(st, n->gaps[i]);
    out->value = (double)n->total_ns;
    out->raw[0] = (double)n->count;
    out->raw[1] = (double)n->total_ns;
    out->raw[2] = (double)n->longest_ns;
    out->raw[3] = (double)n->threshold_ns;
    out->raw[4] = (double)n->min_step_ns;
    out->raw[5] = (double)n->window_ns;
    out->duration_ns = n->window_ns;
    return 0;
}

static void noise_params(bench_run_t *r, json_t *j)
{
    noise_state_t *st = r->state;
    json_kint(j, "noise_cpu", st ? st->cpu : -1);
    json_kint(j, "window_ms", (int64_t)r->opt->n);
    json_kstr(j, "loop",
              "clock_gettime(CLOCK_MONOTONIC_RAW) in a tight loop; a step above the threshold is a gap");
    json_kstr(j, "threshold_rule", "20 x the loop's minimum step (calibrated over 20 ms before each window)");
}

static void noise_extra(bench_run_t *r, json_t *j)
{
    noise_state_t *st = r->state;
    if (!st) return;
    json_key(j, "noise");
    json_obj_begin(j);
    json_kint(j, "count", (int64_t)st->count);
    json_kint(j, "total_ns", (int64_t)st->total_ns);
    json_kint(j, "longest_ns", (int64_t)st->longest_ns);
    json_kint(j, "window_ns", (int64_t)st->window_ns);
    json_kint(j, "threshold_ns", (int64_t)st->threshold_ns);
    json_kint(j, "min_step_ns", (int64_t)st->min_step_ns);
    json_key(j, "histogram");
    json_arr_begin(j);
    for (int k = 0; k < NOISE_BINS; k++) {
        if (!st->hist_count[k]) continue;
        json_obj_begin(j);
        json_kint(j, "lo_ns", (int64_t)1 << k);
        json_kint(j, "hi_ns", (int64_t)1 << (k + 1));
        json_kint(j, "count", (int64_t)st->hist_count[k]);
        json_kint(j, "total_ns", (int64_t)st->hist_ns[k]);
        json_obj_end(j);
    }
    json_arr_end(j);
    json_key(j, "longest");
    json_arr_begin(j);
    for (int i = 0; i < 20; i++) {
        if (!st->top[i].len_ns) continue;
        json_obj_begin(j);
        json_kint(j, "at_ns", (int64_t)st->top[i].at_ns);
        json_kint(j, "len_ns", (int64_t)st->top[i].len_ns);
        json_obj_end(j);
    }
    json_arr_end(j);
    json_key(j, "interrupts");
    json_arr_begin(j);
    for (int i = 0; st->have_irq && i < st->delta.n; i++) {
        if (!st->delta.count[i]) continue;
        json_obj_begin(j);
        json_kstr(j, "irq", st->delta.name[i]);
        json_kstr(j, "desc", st->delta.desc[i]);
        json_kint(j, "delta", (int64_t)st->delta.count[i]);
        json_obj_end(j);
    }
    json_arr_end(j);
    json_obj_end(j);
}

static const bench_t noise_b = {.id = "noise/gaps",
                                .quantity = "noise",
                                .unit = "ns",
                                .doc = "time a pinned tight loop loses to gaps per --n ms window",
                                .flags = BENCH_HIDDEN | BENCH_FIXED_N,
                                .order = 960,
                                .raw_names = noise_raw,
                                .setup = noise_setup,
                                .sample = noise_sample,
                                .teardown = noise_teardown,
                                .params = noise_params,
                                .extra = noise_extra,
                                .n0 = 1000,
                                .policy = POLICY_OTHER};
BENCH_REGISTER(noise_b);
