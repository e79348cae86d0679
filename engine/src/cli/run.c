#include "cli/run.h"
#include "cli/output.h"
#include "core/clock.h"
#include "core/clock_probe.h"
#include "core/harness.h"
#include "core/sched_ctl.h"
#include "core/util.h"
#include "env/emulation.h"
#include "env/env.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static env_run_t g_env;
static int dma_fd = -1;

static void prepare_run(cli_t *c)
{
    if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
        g_env.mlocked = 1;
    else
        snprintf(g_env.mlock_error, sizeof g_env.mlock_error, "mlockall refused: %s", strerror(errno));
    g_env.no_idle_requested = c->no_idle;
    if (c->no_idle) {
        /* As cyclictest does: while this fd is open with 0, idle states with
         * exit latency > 0 are not entered. Closed (by the kernel) at exit. */
        dma_fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
        int32_t zero = 0;
        if (dma_fd >= 0 && write(dma_fd, &zero, sizeof zero) == sizeof zero)
            g_env.no_idle_held = 1;
        else
            snprintf(g_env.no_idle_error, sizeof g_env.no_idle_error, "/dev/cpu_dma_latency: %s",
                     strerror(errno));
    }
    rt_cpu_limit(2000); /* a SCHED_FIFO party that spins 2 s without blocking is stopped */
    char evidence[160] = "";
    if (emulation_detect(evidence, sizeof evidence)) clock_probe_mark_emulated(evidence);
    cycle_hz(); /* calibrate once, before any measurement */
}

void write_header(json_t *j)
{
    json_kstr(j, "schema", SCHEMA);
    json_key(j, "tool");
    json_obj_begin(j);
    tool_write(j);
    json_obj_end(j);
    json_key(j, "environment");
    json_obj_begin(j);
    env_write(j, &g_env);
    json_obj_end(j);
}

/* The order of the ids in round g: a permutation drawn from a fixed seed,
 * so that no id always follows the same one (a cross-CPU id leaves the
 * other CPU in a different state than a user-level one), yet two runs use
 * the same orders. */
static void round_order(size_t *order, size_t n, int g)
{
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(g + 1);
    for (size_t i = 0; i < n; i++) order[i] = i;
    for (size_t i = n; i > 1; i--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t k = (size_t)(x % i), t = order[i - 1];
        order[i - 1] = order[k];
        order[k] = t;
    }
}

/* The ids that failed, for the --json document: the others' results are
 * kept and the file says which failed and why (exit status 1). */
static struct failure {
    const char *id;
    char error[512];
} * failures;
static size_t nfailures;

static void note_failure(const char *id, const char *error)
{
    struct failure *more = realloc(failures, (nfailures + 1) * sizeof *failures);
    if (!more) return; /* the exit status and the stderr line still say it */
    failures = more;
    failures[nfailures].id = id;
    snprintf(failures[nfailures].error, sizeof failures[0].error, "%s", error);
    nfailures++;
}

static void write_failures(json_t *j)
{
    json_key(j, "failures");
    json_arr_begin(j);
    for (size_t i = 0; i < nfailures; i++) {
        json_obj_begin(j);
        json_kstr(j, "id", failures[i].id);
        json_kstr(j, "error", failures[i].error);
        json_obj_end(j);
    }
    json_arr_end(j);
}

/* Measure `n` benchmarks, job i being list[i] with options opts[i]:
 * prepared one by one, then group g of each (in round_order), then their
 * results. With n == 1 this is one id start to finish. */
static int run_batch(cli_t *c, FILE *f, json_t *j, const bench_t **list, const run_opts_t *opts, size_t n,
                     int show_progress)
{
    harness_job_t **jobs = calloc(n, sizeof *jobs);
    size_t *order = calloc(n, sizeof *order);
    if (!jobs || !order) die(1, "out of memory");
    size_t total = n * (size_t)(c->o.groups + 1), done = 0;
    for (size_t i = 0; i < n; i++) {
        jobs[i] = harness_prepare(list[i], &opts[i]);
        if (show_progress) progress(c, f, ++done, total, list[i]->id, -1);
    }
    for (int g = 0; g < c->o.groups; g++) {
        round_order(order, n, g);
        for (size_t k = 0; k < n; k++) {
            size_t i = order[k];
            if (jobs[i]) harness_group(jobs[i], g);
            if (show_progress) progress(c, f, ++done, total, list[i]->id, g);
        }
    }
    free(order);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (!jobs[i] || write_result(c, f, j, jobs[i], list[i])) {
            rc = 1;
            note_failure(list[i]->id, harness_error(jobs[i]));
        }
        harness_free(jobs[i]);
    }
    free(jobs);
    return rc;
}

/* The jobs of a run: every id at every --points point (one after the
 * other, as the sweep resumes point by point), or with --ring-points every
 * ring id at every ring point and every other id once; else every id once. */
static size_t expand_jobs(const cli_t *c, const bench_t **ids, size_t n, const bench_t ***list,
                          run_opts_t **opts)
{
    size_t np = c->points ? c->npoints : c->ring_points ? c->nring_points : 1, m = 0;
    *list = calloc(n * np, sizeof **list);
    *opts = calloc(n * np, sizeof **opts);
    if (!*list || !*opts) die(1, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int per_point = c->points || (c->ring_points && (ids[i]->flags & BENCH_PARTIES));
        for (size_t k = 0; k < (per_point ? np : 1); k++, m++) {
            (*list)[m] = ids[i];
            (*opts)[m] = c->o;
            if (c->points) {
                (*opts)[m].size = c->points[k].size;
                (*opts)[m].stride = c->points[k].stride;
            } else if (per_point) {
                (*opts)[m].parties = c->ring_points[k].parties;
                (*opts)[m].footprint = c->ring_points[k].footprint;
            }
        }
    }
    return m;
}

int run_ids(cli_t *c, const bench_t **list, size_t n)
{
    prepare_run(c);
    FILE *f = open_out(c->out);
    json_t j;
    json_init(&j, f);
    int rc = 0;
    if (c->jsonl) {
        json_obj_begin(&j);
        json_kstr(&j, "type", "header");
        write_header(&j);
        json_obj_end(&j);
        fputc('\n', f);
        fflush(f);
    } else if (c->json) {
        json_obj_begin(&j);
        write_header(&j);
        json_key(&j, "results");
        json_arr_begin(&j);
    }
    /* With --points, every id is measured at every point, in this order, one
     * after the other; otherwise the jobs may be interleaved group by group. */
    const bench_t **jobs;
    run_opts_t *opts;
    size_t m = expand_jobs(c, list, n, &jobs, &opts);
    int interleave = c->interleave > 0 && !c->points && m > 1;
    size_t batch = interleave ? m : 1;
    for (size_t k = 0; k < m; k += batch) {
        c->o.size = opts[k].size; /* the human line shows the point */
        c->o.stride = opts[k].stride;
        if (run_batch(c, f, &j, jobs + k, opts + k, batch, interleave)) rc = 1;
    }
    free(jobs);
    free(opts);
    if (c->json) {
        json_arr_end(&j);
        if (nfailures) write_failures(&j);
        json_obj_end(&j);
        fputc('\n', f);
    }
    close_out(f, c->out, rc == 0);
    free(failures);
    return rc;
}
