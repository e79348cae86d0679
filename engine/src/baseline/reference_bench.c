/* reference/cpu: a fixed piece of CPU work, measured in the same run as the
 * switches, so that a shift of the machine's own speed between two runs
 * (a VM host's load, frequency, an SMT sibling) can be told apart from a
 * shift of the switch cost. The work is branchy and L1-resident, like the
 * kernel's switch path without the system calls: a data-dependent walk of a
 * 16 KiB table with a data-dependent branch per step. Deterministic: the
 * same steps on every run and machine. */
#include "core/bench.h"
#include "core/clock.h"
#include <stdlib.h>

#define STEPS 1000 /* one unit of work: the value is ns per 1000 steps */
#define TABLE 2048 /* 2048 x 8 bytes = 16 KiB */

typedef struct {
    uint64_t table[TABLE];
    uint64_t sink;
} ref_state_t;

static int ref_setup(bench_run_t *r)
{
    ref_state_t *st = r->state ? r->state : malloc(sizeof *st);
    if (!st) {
        bench_error("out of memory");
        return -1;
    }
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < TABLE; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17; /* xorshift64: fixed contents */
        st->table[i] = x;
    }
    st->sink = 0;
    r->state = st;
    return 0;
}

__attribute__((noinline)) static uint64_t walk(const uint64_t *t, uint64_t x, uint64_t steps)
{
    for (uint64_t i = 0; i < steps; i++) {
        uint64_t v = t[x & (TABLE - 1)];
        if (v & 1)
            x = (x >> 3) + v; /* taken about half the time, unpredictably */
        else
            x = x * 5 + (v >> 11);
    }
    return x;
}

static int ref_sample(bench_run_t *r, uint64_t n, sample_t *out)
{
    ref_state_t *st = r->state;
    uint64_t t0 = clock_ns();
    st->sink += walk(st->table, st->sink + 1, n * STEPS);
    uint64_t t1 = clock_ns();
    out->duration_ns = t1 - t0;
    out->value = (double)(t1 - t0) / (double)n;
    out->raw[0] = (double)(st->sink & 0xffff); /* keeps the work observable */
    return 0;
}

static void ref_teardown(bench_run_t *r)
{
    free(r->state);
    r->state = NULL;
}

static void ref_params(bench_run_t *r, json_t *j)
{
    (void)r;
    json_kint(j, "steps_per_unit", STEPS);
    json_kint(j, "table_bytes", TABLE * 8);
    json_kstr(j, "value", "ns per 1000 steps of a fixed, branchy, L1-resident walk");
}

static const char *const ref_raw[] = {"checksum", NULL};

static const bench_t reference_cpu = {
    .id = "reference/cpu",
    .quantity = "reference",
    .unit = "ns",
    .doc = "fixed CPU work (ns per 1000 steps): the machine's own speed during the run",
    .flags = BENCH_DEFAULT | BENCH_QUICK,
    .order = 150,
    .raw_names = ref_raw,
    .setup = ref_setup,
    .sample = ref_sample,
    .teardown = ref_teardown,
    .params = ref_params,
    .n0 = 16};
BENCH_REGISTER(reference_cpu);
