/* A benchmark, as the registry and the one timing harness see it.
 *
 * A benchmark measures samples. Each sample is one timed batch (n
 * operations) and yields one value in `unit`, plus named raw components
 * (e.g. t_single_ns, t_switch_ns) so that the value can be re-derived, plus
 * the switch/migration counts of every party over the sample window. The
 * harness owns repetition (groups x iterations), adaptive n, warm-up and
 * output; the benchmark owns its parties and its timed loop. */
#ifndef CTXBENCH_BENCH_H
#define CTXBENCH_BENCH_H
#include <stdint.h>
#include <stddef.h>
#include "core/json.h"

#define MAX_RAW      16
#define MAX_WARNINGS 8

enum bench_flags {
    BENCH_DEFAULT = 1u << 0, /* in `run`'s default suite */
    BENCH_QUICK = 1u << 1,   /* in the --quick suite */
    BENCH_HIDDEN = 1u << 2,  /* test-only: listed with `list --all` only */
    BENCH_FIXED_N = 1u << 3, /* n is not adapted (benchmark picks it) */
    BENCH_PARTIES = 1u << 4, /* reads --parties/--footprint: measured at every --ring-points point */
};

typedef enum { POLICY_OTHER = 0, POLICY_FIFO = 1 } policy_t;

/* Options for one run, from the command line. 0/-1 mean "default". */
#define RUN_MAX_N_LIST 16

typedef struct run_opts {
    int groups;             /* groups of samples; each group has its own setup */
    int iterations;         /* samples per group */
    uint64_t n;             /* fixed n per sample (0: adaptive) */
    uint64_t min_sample_ns; /* adaptive n: a sample lasts at least this */
    int cpu;                /* CPU for party A (and B when same-cpu) */
    int cpu2;               /* second CPU for cross-cpu */
    int warmup_ms;          /* CPU warm-up before the first group */
    size_t size;            /* working set per party, bytes (sweep) */
    size_t stride;          /* traversal stride, bytes; 0 = no traversal */
    int fifo_prio;          /* priority for SCHED_FIFO benchmarks */
    int counters;           /* record perf event counts where the id supports it */
    int quick;
    int parties;       /* ring: parties in the ring (0: 2) */
    size_t footprint;  /* ring: bytes each party touches per hold of the token */
    double task_scale; /* tasks/ and irq/ ids: size of each task (0: 1) */
    /* tasks/ ids: values of n measured round-robin, one of each per group
     * (a round), in an order rotated from group to group (0: use n) */
    int n_count;
    uint64_t n_list[RUN_MAX_N_LIST];
    uint64_t irq_burn_ns; /* irq/ ids: the handler spins this long (known-answer tests; 0: counts only) */
    uint64_t settle_ns;   /* before each group: wait for a quiet CPU this long (0: no wait) */
    size_t chunk_window;  /* tasks/ and irq/ ids: the chunks an event's cost is summed over, at most (0:
                             default) */
} run_opts_t;

/* Switch and migration counts of all parties over one sample window. -1
 * means "could not be read". */
typedef struct verify_counts {
    int64_t expected_voluntary; /* what the method implies */
    int64_t voluntary, involuntary, migrations;
    /* the same for the single-party (t_single) half, expected 0 */
    int64_t single_voluntary, single_involuntary, single_migrations;
    /* over the switching window: the parties' CPU time and the window's
     * wall time (core/verify.h), -1 unknown, 0 both when not recorded */
    int64_t runtime_ns, window_ns;
    /* 1: another task was runnable on the measured CPU right after the
     * sample (the harness's yield probe), 0: none, -1: not probed */
    int64_t others_runnable;
} verify_counts_t;

typedef struct sample {
    double value;         /* the result quantity for this sample */
    double raw[MAX_RAW];  /* components, named by bench->raw_names */
    uint64_t duration_ns; /* wall time of the timed part (for adaptive n) */
    int has_verify;
    verify_counts_t v;
} sample_t;

struct bench;

/* Per-run state handed to a benchmark's callbacks. */
typedef struct bench_run {
    const struct bench *b;
    const run_opts_t *opt;
    void *state;     /* the benchmark's own, from setup to teardown (one group) */
    void *job_state; /* the benchmark's own across the job's groups (e.g. counter
                        sums): allocated by the benchmark, free()d by harness_free */
    int group;       /* the group being measured (its label in the output); -1 in harness_prepare */
    /* what the run actually obtained, recorded in params */
    policy_t policy_obtained;
    int pinned; /* 1 if every party is pinned as asked */
    char warnings[MAX_WARNINGS][200];
    int nwarnings;
} bench_run_t;

typedef struct bench {
    const char *id;
    const char *quantity; /* switch | wakeup | overhead | resolution | cost */
    const char *unit;     /* ns */
    const char *doc;      /* one line: what it measures */
    unsigned flags;
    int order;                    /* position in listings and suites */
    const char *const *raw_names; /* NULL-terminated, <= MAX_RAW */
    int (*setup)(bench_run_t *r); /* 0 ok, else error (message via bench_error) */
    int (*sample)(bench_run_t *r, uint64_t n, sample_t *out);
    void (*teardown)(bench_run_t *r);
    void (*params)(bench_run_t *r, json_t *j); /* extra params members */
    void (*extra)(bench_run_t *r, json_t *j);  /* extra top-level members */
    const void *arg;                           /* family-specific configuration */
    uint64_t n0;                               /* first n tried by adaptive n (or the fixed n) */
    policy_t policy;                           /* scheduling class this id is measured under */
    int (*available)(const struct bench *b);   /* NULL: always; 0: not on this CPU/kernel (not listed) */
} bench_t;

/* Registration: each benchmark file adds its entries to one linker section,
 * so adding a benchmark never edits a shared list. */
#define BENCH_REGISTER(var)                                                                                  \
    static const bench_t *const var##_registered                                                             \
        __attribute__((used, section("ctxbench_benches"), aligned(sizeof(void *)))) = &var

/* Registry (registry.c) */
size_t bench_count(void);
const bench_t *bench_at(size_t i); /* in `order` order */
const bench_t *bench_find(const char *id);

/* Warnings and errors recorded with a result or reported to the user. */
void bench_warn(bench_run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bench_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *bench_last_error(void);
/* For a setup: `size` zeroed bytes as r->state (freed by the teardown);
 * NULL after bench_error("out of memory"). */
void *bench_state_new(bench_run_t *r, size_t size);
#endif
