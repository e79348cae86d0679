/* Chunk timing and the pairing of a run's chunks with a reference run's
 * (core/chunks.h). */
#include "core/chunks.h"
#include "core/bench.h"
#include "core/clock.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t chunk_clock(void)
{
#if defined(CTXBENCH_HAVE_TSC)
    return rdtsc_fenced();
#elif defined(CTXBENCH_HAVE_CNTVCT)
    return cntvct();
#else
    return clock_ns();
#endif
}

const char *chunk_clock_name(void)
{
#if defined(CTXBENCH_HAVE_TSC)
    return "rdtsc_lfence";
#elif defined(CTXBENCH_HAVE_CNTVCT)
    return "cntvct";
#else
    return "clock_monotonic_raw";
#endif
}

double chunk_tick_ns(void)
{
#if defined(CTXBENCH_HAVE_TSC) || defined(CTXBENCH_HAVE_CNTVCT)
    double hz = cycle_hz();
    return hz > 0 ? 1e9 / hz : NAN;
#else
    return 1.0;
#endif
}

int chunk_bucket(size_t pos)
{
    if (pos < CHUNK_LINEAR) return (int)pos;
    int lg = 0;
    while ((pos >> (lg + 1)) && lg < 62) lg++;
    int b = CHUNK_LINEAR + lg - 4; /* 16..31 -> 16, 32..63 -> 17, ... */
    return b < CHUNK_BUCKETS ? b : CHUNK_BUCKETS - 1;
}

size_t chunk_bucket_lo(int b)
{
    return b < CHUNK_LINEAR ? (size_t)b : (size_t)1 << (b - CHUNK_LINEAR + 4);
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Mean, trimmed mean and median of x[0..n), times `scale`; sorts x. */
static chunk_loc_t locate(double *x, size_t n, double scale)
{
    chunk_loc_t l = {NAN, NAN, NAN, n};
    if (!n) return l;
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    l.mean = s / (double)n * scale;
    qsort(x, n, sizeof *x, cmpd);
    l.median = (n & 1 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2) * scale;
    size_t k = (size_t)(CHUNK_TRIM * (double)n);
    double ts = 0;
    for (size_t i = k; i < n - k; i++) ts += x[i];
    l.tmean = ts / (double)(n - 2 * k) * scale;
    return l;
}

size_t chunk_window_of(const run_opts_t *o)
{
    return o->chunk_window ? o->chunk_window : CHUNK_WINDOW;
}

int chunk_reduce(const uint32_t *t, const uint32_t *ref, size_t nchunks, const chunk_event_t *ev, size_t nev,
                 size_t window_max, chunk_stats_t *out)
{
    memset(out, 0, sizeof *out);
    out->chunks = nchunks;
    size_t m = nev ? nev : 1;
    double *col = malloc(8 * m * sizeof *col);
    float *cell = malloc(m * CHUNK_BUCKETS * sizeof *cell);
    if (!col || !cell) {
        free(col);
        free(cell);
        bench_error("out of memory (chunk statistics of %zu events)", nev);
        return -1;
    }
    double *exc = col, *head = col + m, *tail = col + 2 * m, *gap = col + 3 * m, *len = col + 4 * m,
           *whole = col + 5 * m, *win = col + 6 * m, *aft = col + 7 * m;
    double sd[CHUNK_BUCKETS] = {0}, st[CHUNK_BUCKETS] = {0}, sx[CHUNK_BUCKETS] = {0};
    double sum_t = 0, sum_r = 0;
    uint64_t nt = 0;
    size_t k = 0, ng = 0;
    for (size_t i = 0; i < nev; i++) {
        size_t f = ev[i].first, L = ev[i].len;
        if (f >= nchunks)
            L = 0;
        else if (L > nchunks - f)
            L = nchunks - f;
        if (L < 2) {
            out->short_events++;
            continue;
        }
        size_t W = L / 2 < window_max ? L / 2 : window_max;
        double hs = 0, ts = 0, ws = 0, x = 0, d0 = 0;
        double bs[CHUNK_BUCKETS] = {0};
        uint32_t bc[CHUNK_BUCKETS] = {0};
        for (size_t p = 0; p < L; p++) {
            double tp = (double)t[f + p], d = tp - (double)ref[f + p];
            if (p < W) hs += d;
            if (p == 0) d0 = d;
            if (p >= L - W) ts += d;
            ws += d;
            int b = chunk_bucket(p);
            bs[b] += d;
            bc[b]++;
            sd[b] += d;
            st[b] += (double)ref[f + p];
            sx[b] += x;
            out->b_chunks[b]++;
            if (b >= out->buckets) out->buckets = b + 1;
            x += (double)ref[f + p]; /* the task's own time since the event: its costs left out */
            sum_t += tp;
            sum_r += (double)ref[f + p];
            nt++;
        }
        exc[k] = hs - ts;
        head[k] = hs;
        tail[k] = ts / (double)W;
        whole[k] = ws;
        aft[k] = hs - d0 - ts * (double)(W - 1) / (double)W;
        len[k] = (double)L;
        win[k] = (double)W;
        for (int b = 0; b < CHUNK_BUCKETS; b++) {
            cell[k * CHUNK_BUCKETS + (size_t)b] = bc[b] ? (float)(bs[b] / bc[b]) : NAN;
            if (bc[b]) out->b_events[b]++;
        }
        if (ev[i].gap >= 0) gap[ng++] = ev[i].gap;
        k++;
    }
    double tick = chunk_tick_ns();
    out->events = k;
    out->chunk_ns = nt ? sum_t / (double)nt * tick : NAN;
    out->ref_chunk_ns = nt ? sum_r / (double)nt * tick : NAN;
    out->excess = locate(exc, k, tick);
    out->head = locate(head, k, tick);
    out->tail = locate(tail, k, tick);
    out->whole = locate(whole, k, tick);
    out->after = locate(aft, k, tick);
    out->gap = locate(gap, ng, tick);
    out->len = locate(len, k, 1);
    out->window = locate(win, k, 1);
    /* per bucket: each event's mean excess per chunk in it, located over events */
    for (int b = 0; b < out->buckets; b++) {
        size_t c = 0;
        for (size_t i = 0; i < k; i++) {
            float v = cell[i * CHUNK_BUCKETS + (size_t)b];
            if (v == v) exc[c++] = v; /* exc is free again: reused as scratch */
        }
        chunk_loc_t l = locate(exc, c, tick);
        uint64_t nc = out->b_chunks[b];
        out->b_tmean[b] = l.tmean;
        out->b_mean[b] = nc ? sd[b] / (double)nc * tick : NAN;
        out->b_t[b] = nc ? st[b] / (double)nc * tick : NAN;
        out->b_x[b] = nc ? sx[b] / (double)nc * tick : NAN;
    }
    free(col);
    free(cell);
    return 0;
}

static void loc_json(json_t *j, const char *k, const chunk_loc_t *l)
{
    json_key(j, k);
    json_obj_begin(j);
    json_kint(j, "n", (int64_t)l->n);
    json_key(j, "mean");
    json_num_digits(j, l->mean, 7);
    json_key(j, "tmean");
    json_num_digits(j, l->tmean, 7);
    json_key(j, "median");
    json_num_digits(j, l->median, 7);
    json_obj_end(j);
}

static void arr_json(json_t *j, const char *k, const double *v, int n)
{
    json_key(j, k);
    json_arr_begin(j);
    for (int b = 0; b < n; b++) json_num_digits(j, v[b], 6);
    json_arr_end(j);
}

void chunk_stats_json(json_t *j, const chunk_stats_t *s)
{
    json_kint(j, "chunks", (int64_t)s->chunks);
    json_kint(j, "events", (int64_t)s->events);
    json_kint(j, "short_events", (int64_t)s->short_events);
    json_kint(j, "multi_events", (int64_t)s->multi_events);
    json_key(j, "chunk_ns");
    json_num_digits(j, s->chunk_ns, 7);
    json_key(j, "ref_chunk_ns");
    json_num_digits(j, s->ref_chunk_ns, 7);
    loc_json(j, "excess", &s->excess);
    loc_json(j, "head", &s->head);
    loc_json(j, "tail", &s->tail);
    loc_json(j, "whole", &s->whole);
    loc_json(j, "after", &s->after);
    loc_json(j, "gap", &s->gap);
    loc_json(j, "event_chunks", &s->len);
    loc_json(j, "window_chunks", &s->window);
    json_key(j, "curve");
    json_obj_begin(j);
    json_key(j, "events");
    json_arr_begin(j);
    for (int b = 0; b < s->buckets; b++) json_int(j, (int64_t)s->b_events[b]);
    json_arr_end(j);
    json_key(j, "chunks");
    json_arr_begin(j);
    for (int b = 0; b < s->buckets; b++) json_int(j, (int64_t)s->b_chunks[b]);
    json_arr_end(j);
    arr_json(j, "tmean", s->b_tmean, s->buckets);
    arr_json(j, "mean", s->b_mean, s->buckets);
    arr_json(j, "x_ns", s->b_x, s->buckets);
    arr_json(j, "t_ns", s->b_t, s->buckets);
    json_obj_end(j);
}

void chunk_describe(json_t *j, size_t window_max)
{
    json_kstr(j, "clock", chunk_clock_name());
    json_knum(j, "tick_ns", chunk_tick_ns());
    json_knum(j, "trim", CHUNK_TRIM);
    json_kint(j, "window_max", (int64_t)window_max);
    json_key(j, "bucket_lo");
    json_arr_begin(j);
    for (int b = 0; b < CHUNK_BUCKETS; b++) json_int(j, (int64_t)chunk_bucket_lo(b));
    json_arr_end(j);
    json_kstr(
        j, "excess",
        "per event: the sum over its first W chunks of (chunk - the same chunk in the reference run) minus "
        "the same sum over its last W, W = min(half the event, window_max); head: the first W's sum "
        "alone; tail: the last W's per chunk; whole: the sum over all its chunks; after: the excess without "
        "the event's first chunk (W - 1 chunks over as many of the last W's); gap: the time from the "
        "last chunk before the event to its first");
    json_kstr(
        j, "curve",
        "per bucket of positions since the event: each event's mean excess per chunk there, located over "
        "events (tmean, mean); x_ns: mean start of its chunks after the event's first; t_ns: mean chunk");
}

typedef struct {
    size_t n, cap;
    chunk_rec_t rec[];
} chunk_log_t;

int chunk_log_add(void **job_state, const chunk_rec_t *rec)
{
    chunk_log_t *l = *job_state;
    if (!l || l->n == l->cap) {
        size_t cap = l ? 2 * l->cap : 16;
        chunk_log_t *m = realloc(l, sizeof *l + cap * sizeof *l->rec);
        if (!m) {
            bench_error("out of memory (chunk statistics)");
            return -1;
        }
        if (!l) m->n = 0;
        m->cap = cap;
        *job_state = l = m;
    }
    l->rec[l->n++] = *rec;
    return 0;
}

void chunk_log_json(json_t *j, const void *job_state, const char *key_name, const char *const roles[2],
                    const char *const tasks[2], size_t window_max)
{
    const chunk_log_t *l = job_state;
    json_key(j, "chunks");
    json_obj_begin(j);
    chunk_describe(j, window_max);
    json_kstr(j, "key", key_name);
    json_key(j, "runs");
    json_arr_begin(j);
    for (size_t i = 0; l && i < l->n; i++) {
        const chunk_rec_t *r = &l->rec[i];
        json_obj_begin(j);
        json_kint(j, "group", r->group);
        json_kint(j, key_name, r->key);
        if (r->aux >= 0) json_kint(j, "sample", r->aux);
        json_key(j, "roles");
        json_arr_begin(j);
        for (int k = 0; k < r->roles; k++) {
            json_obj_begin(j);
            json_kstr(j, "role", roles[k]);
            json_kstr(j, "task", tasks[k]);
            chunk_stats_json(j, &r->s[k]);
            json_obj_end(j);
        }
        json_arr_end(j);
        json_obj_end(j);
    }
    json_arr_end(j);
    json_obj_end(j);
}
