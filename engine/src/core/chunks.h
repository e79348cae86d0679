/* Chunk timing: a task's work timed in short pieces of fixed work, and the
 * pieces of a disturbed run paired with the same pieces of an undisturbed
 * run (docs/method.md#the-indirect-cost-where-it-is-paid).
 *
 * A run records one duration per chunk (ticks of chunk_clock) and its
 * events: the ranges of chunks that follow a switch-in (tasks/) or a timer
 * signal (irq/). chunk_reduce pairs each chunk with the same chunk of the
 * reference run and sums, per event, the excess
 *
 *     e = sum over the event's first W chunks of (t - t_ref)
 *       - sum over its last W chunks           of (t - t_ref)
 *
 * with W = min(half the event, the cap: --chunk-window), so that a difference between
 * the two runs that does not depend on the distance from the event (other
 * physical pages, the host's state in that run) cancels, and what is left
 * is what the event cost in its first W chunks over its last W. The last W
 * chunks' own excess per chunk is kept (`tail`): where it is not 0 the runs
 * differ by more than the event, and the front end says so; `whole` is the
 * sum over all the event's chunks (what a difference of whole runs sees);
 * `after` is `excess` without the event's first chunk (irq: the chunk the
 * signal landed in holds its direct cost; the chunks after it do not).
 * The cap keeps an event's noise bounded when events are far apart (irq at
 * 100 Hz: thousands of chunks), and is far above any recovery seen: a
 * chunk is a fixed piece of work, so a slower refill makes slower chunks.
 *
 * This is a reduction of the samples, not a judgement: each statistic
 * (mean, a trimmed mean, the median, over events) is written, and the
 * front end picks and judges. */
#ifndef CTXBENCH_CHUNKS_H
#define CTXBENCH_CHUNKS_H
#include "core/bench.h"
#include "core/json.h"
#include <stddef.h>
#include <stdint.h>

/* The serialised tick counter the chunks are timed with: the fenced TSC on
 * x86-64, cntvct on aarch64, else CLOCK_MONOTONIC_RAW in ns. */
uint64_t chunk_clock(void);
const char *chunk_clock_name(void);
double chunk_tick_ns(void); /* ns per tick of chunk_clock */

/* Positions since the event: 0..15 one by one, then powers of two. */
#define CHUNK_LINEAR  16
#define CHUNK_BUCKETS 40
int chunk_bucket(size_t pos);
size_t chunk_bucket_lo(int b);

/* The most a job may keep of chunk times at once: a task's chunks grow
 * with --task-scale (crc at scale 1: 115200), and each n of --n-list keeps
 * its own; beyond this a setup fails in one line instead of the OOM killer. */
#define CHUNK_MEMORY_MAX (1ull << 30)
#define CHUNK_WINDOW     256 /* the default cap of W (--chunk-window) */
/* The fraction of events left out at each end by the trimmed mean. */
#define CHUNK_TRIM 0.10

typedef struct {
    size_t first, len; /* the event's chunks: [first, first + len) */
    double gap;        /* ticks from the last chunk before it to its first (tasks: the hand-off); <0: none */
} chunk_event_t;

typedef struct {
    double mean, tmean, median; /* over events, ns */
    uint64_t n;
} chunk_loc_t;

typedef struct {
    uint64_t chunks, events, short_events;
    uint64_t multi_events; /* irq: chunks two signals landed in, which start no event (set by the caller) */
    double chunk_ns, ref_chunk_ns; /* mean chunk of this run and of the reference, over the events' chunks */
    chunk_loc_t excess, head, tail, whole, after, gap, len, window;
    int buckets; /* used: 0..buckets-1 */
    uint64_t b_events[CHUNK_BUCKETS], b_chunks[CHUNK_BUCKETS];
    double b_tmean[CHUNK_BUCKETS], b_mean[CHUNK_BUCKETS], b_x[CHUNK_BUCKETS], b_t[CHUNK_BUCKETS];
} chunk_stats_t;

/* Pair run `t` with `ref` (the same chunks undisturbed) over the events;
 * 0 ok, -1 out of memory (bench_error). Events shorter than 2 chunks are
 * counted in short_events and left out. */
int chunk_reduce(const uint32_t *t, const uint32_t *ref, size_t nchunks, const chunk_event_t *ev, size_t nev,
                 size_t window_max, chunk_stats_t *out);
/* the cap of W a run uses: --chunk-window, else CHUNK_WINDOW */
size_t chunk_window_of(const run_opts_t *o);
/* The stats as a JSON object's members (the caller opens and closes it). */
void chunk_stats_json(json_t *j, const chunk_stats_t *s);
/* What every record of chunk stats shares: the clock, the trim, the buckets. */
void chunk_describe(json_t *j, size_t window_max);
/* The reductions of a job, one per run that had a reference (tasks: a
 * group's run at one n; irq: one sample), kept in the job's job_state
 * (one allocation: harness_free frees it) and written by the id's extra. */
typedef struct {
    int group;
    int64_t key; /* tasks: n; irq: the rate in Hz */
    int64_t aux; /* irq: the sample's index in its group; tasks: -1 */
    int roles;   /* 1 or 2 */
    chunk_stats_t s[2];
} chunk_rec_t;
int chunk_log_add(void **job_state, const chunk_rec_t *rec); /* 0 ok, -1 out of memory */
/* "chunks": {describe, "key": key_name, "roles": [...], "runs": [...]} */
void chunk_log_json(json_t *j, const void *job_state, const char *key_name, const char *const roles[2],
                    const char *const tasks[2], size_t window_max);

/* ticks between two chunk_clock reads as a chunk duration (saturated) */
static inline uint32_t chunk_ticks(uint64_t a, uint64_t b)
{
    uint64_t d = b > a ? b - a : 0;
    return d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}
#endif
