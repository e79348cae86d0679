/* ctxbench-engine: the standalone measuring binary.
 *
 *   ctxbench-engine list [--all] [--json]
 *   ctxbench-engine run ID [ID...] [options] [--json|--jsonl] [-o FILE]
 *   ctxbench-engine run-suite [--preset NAME|--quick] [options] [--json|--jsonl] [-o FILE]
 *   ctxbench-engine presets [--json]
 *   ctxbench-engine env [--json]
 *   ctxbench-engine version
 */
#include "core/bench.h"
#include "core/clock.h"
#include "env/env.h"
#include "core/harness.h"
#include "core/reap.h"
#include "core/sched_ctl.h"
#include "core/util.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SCHEMA "ctxbench/1"
/* The suite presets, the one source of these counts: `ctxbench run`
 * reads them from `presets --json`, so a board's run-suite file and a
 * laptop's `ctxbench run` are measured alike. David et al. and Chen et al.
 * used 20 x 10; the default takes 48 short groups, interleaved over ~25 s,
 * so that each id's median averages over the host's drift (run-to-run
 * agreement: README, "How repeatable is a run?"). */
typedef struct preset {
    const char *name;
    int groups, iterations, min_sample_us;
} preset_t;
static const preset_t presets[] = {
    {"quick", 5, 6, 500},
    {"default", 48, 8, 1500},
    {"full", 160, 8, 2000},
};
#define NPRESETS (sizeof presets / sizeof *presets)

static const preset_t *preset_find(const char *name)
{
    for (size_t i = 0; i < NPRESETS; i++)
        if (!strcmp(presets[i].name, name)) return &presets[i];
    return NULL;
}

static void usage(FILE *f)
{
    fputs("usage: ctxbench-engine list [--all] [--json]\n"
          "       ctxbench-engine run ID [ID...] [options]\n"
          "       ctxbench-engine run-suite [--preset NAME | --quick] [options]\n"
          "       ctxbench-engine presets [--json]\n"
          "       ctxbench-engine env [--json]\n"
          "       ctxbench-engine version\n"
          "options:\n"
          "  --iterations N    samples per group (default 10)\n"
          "  --groups G        groups of samples, each with fresh parties (default 20)\n"
          "  --n N             operations per sample (default: adapted to --min-sample-us)\n"
          "  --min-sample-us U shortest sample when adapting n (default 1000)\n"
          "  --cpu C           CPU for the measuring party (default: highest allowed)\n"
          "  --cross-cpu M     second CPU for cross-cpu ids (default: another allowed CPU)\n"
          "  --size S          working set per party in bytes, K/M suffixes (default 0)\n"
          "  --stride D        traversal stride in bytes (default 0: no traversal)\n"
          "  --points S:D,...  (run) measure each id at each size:stride point, one result\n"
          "                    per point, in one process (the sweep)\n"
          "  --counters        record perf event counts (kernel ping-pong ids)\n"
          "  --warmup-ms MS    CPU warm-up before the first measurement (default 300)\n"
          "  --fifo-prio P     SCHED_FIFO priority for /fifo ids (default 10)\n"
          "  --parties N       ring/ ids: parties in the ring (default 2)\n"
          "  --footprint K     ring/ ids: bytes each party touches per token (default 0)\n"
          "  --task-scale X    tasks/ and irq/ ids: size of each task, 0.001 to 1000 (default 1)\n"
          "  --no-idle         hold /dev/cpu_dma_latency at 0 during the run\n"
          "  --interleave      measure group 1 of every id, then group 2, ... so that each\n"
          "                    id's samples span the whole run (default for run-suite)\n"
          "  --sequential      all groups of one id, then the next (default for run)\n"
          "  --preset NAME     (run-suite) the counts of a preset, unless given (default:\n"
          "                    'default'); 'quick' also measures the quick subset of ids\n"
          "  --quick           (run-suite) --preset quick\n"
          "  --json            one results document (schema " SCHEMA ")\n"
          "  --jsonl           header line, then one result per line, as they finish\n"
          "  -o FILE           write to FILE atomically instead of stdout\n"
          "presets (groups x samples of >= us, as 'ctxbench run'):\n",
          f);
    for (size_t i = 0; i < NPRESETS; i++)
        fprintf(f, "  %-8s %4d x %d of >= %d us\n", presets[i].name, presets[i].groups, presets[i].iterations,
                presets[i].min_sample_us);
}

enum {
    OPT_ITER = 256,
    OPT_GROUPS,
    OPT_N,
    OPT_MINS,
    OPT_CPU,
    OPT_CROSS,
    OPT_SIZE,
    OPT_STRIDE,
    OPT_WARM,
    OPT_PRIO,
    OPT_PARTIES,
    OPT_FOOT,
    OPT_NOIDLE,
    OPT_QUICK,
    OPT_JSON,
    OPT_JSONL,
    OPT_ALL,
    OPT_HELP,
    OPT_POINTS,
    OPT_COUNTERS,
    OPT_INTERLEAVE,
    OPT_SEQUENTIAL,
    OPT_TASK_SCALE,
    OPT_PRESET
};

static const struct option longopts[] = {{"iterations", required_argument, 0, OPT_ITER},
                                         {"groups", required_argument, 0, OPT_GROUPS},
                                         {"n", required_argument, 0, OPT_N},
                                         {"min-sample-us", required_argument, 0, OPT_MINS},
                                         {"cpu", required_argument, 0, OPT_CPU},
                                         {"cross-cpu", required_argument, 0, OPT_CROSS},
                                         {"size", required_argument, 0, OPT_SIZE},
                                         {"stride", required_argument, 0, OPT_STRIDE},
                                         {"warmup-ms", required_argument, 0, OPT_WARM},
                                         {"fifo-prio", required_argument, 0, OPT_PRIO},
                                         {"parties", required_argument, 0, OPT_PARTIES},
                                         {"footprint", required_argument, 0, OPT_FOOT},
                                         {"no-idle", no_argument, 0, OPT_NOIDLE},
                                         {"quick", no_argument, 0, OPT_QUICK},
                                         {"json", no_argument, 0, OPT_JSON},
                                         {"jsonl", no_argument, 0, OPT_JSONL},
                                         {"all", no_argument, 0, OPT_ALL},
                                         {"help", no_argument, 0, OPT_HELP},
                                         {"points", required_argument, 0, OPT_POINTS},
                                         {"counters", no_argument, 0, OPT_COUNTERS},
                                         {"interleave", no_argument, 0, OPT_INTERLEAVE},
                                         {"sequential", no_argument, 0, OPT_SEQUENTIAL},
                                         {"task-scale", required_argument, 0, OPT_TASK_SCALE},
                                         {"preset", required_argument, 0, OPT_PRESET},
                                         {0, 0, 0, 0}};

#define MAX_POINTS 4096
typedef struct point {
    size_t size, stride;
} point_t;

typedef struct cli {
    run_opts_t o;
    point_t *points; /* --points, or NULL */
    size_t npoints;
    int json, jsonl, all, no_idle;
    int interleave; /* --interleave / --sequential; run-suite interleaves by default */
    int set_groups, set_iterations, set_min_sample; /* given on the command line */
    const char *out;
    const preset_t *preset; /* run-suite: --preset / --quick */
} cli_t;

static uint64_t num_arg(const char *name, const char *v, uint64_t lo, uint64_t hi, int size)
{
    uint64_t x;
    if ((size ? parse_size(v, &x) : parse_u64(v, &x)) || x < lo || x > hi)
        die(2, "--%s: expected %s from %llu to %llu, got '%s'", name, size ? "a size" : "an integer",
            (unsigned long long)lo, (unsigned long long)hi, v);
    return x;
}

static void check_point(size_t size, size_t stride, const char *what)
{
    if (stride && stride % sizeof(double))
        die(2, "%s: stride must be a multiple of %zu bytes, got %zu", what, sizeof(double), stride);
    if (stride && !size) die(2, "%s: a stride needs a size", what);
}

/* "S:D,S:D,...", sizes with K/M suffixes. */
static void parse_points(cli_t *c, const char *arg)
{
    char *dup = strdup(arg), *save = NULL;
    if (!dup) die(1, "out of memory");
    c->points = calloc(MAX_POINTS, sizeof *c->points);
    if (!c->points) die(1, "out of memory");
    c->npoints = 0;
    for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        uint64_t s, d;
        if (!colon) die(2, "--points: expected SIZE:STRIDE, got '%s'", tok);
        *colon = 0;
        if (parse_size(tok, &s) || parse_size(colon + 1, &d) || s > (1ull << 34) || d > (1ull << 20))
            die(2, "--points: expected SIZE:STRIDE (sizes up to 16G, strides up to 1M), got '%s:%s'", tok,
                colon + 1);
        if (c->npoints == MAX_POINTS) die(2, "--points: more than %d points", MAX_POINTS);
        check_point((size_t)s, (size_t)d, "--points");
        c->points[c->npoints++] = (point_t){(size_t)s, (size_t)d};
    }
    free(dup);
    if (!c->npoints) die(2, "--points: empty list");
}

static int parse(int argc, char **argv, cli_t *c)
{
    run_opts_default(&c->o);
    int ch;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (ch) {
        case OPT_ITER:
            c->o.iterations = (int)num_arg("iterations", optarg, 1, 100000, 0);
            c->set_iterations = 1;
            break;
        case OPT_GROUPS:
            c->o.groups = (int)num_arg("groups", optarg, 1, 10000, 0);
            c->set_groups = 1;
            break;
        case OPT_N:
            c->o.n = num_arg("n", optarg, 1, 1ull << 32, 0);
            break;
        case OPT_MINS:
            c->o.min_sample_ns = num_arg("min-sample-us", optarg, 1, 10000000, 0) * 1000;
            c->set_min_sample = 1;
            break;
        case OPT_CPU:
            c->o.cpu = (int)num_arg("cpu", optarg, 0, 4095, 0);
            break;
        case OPT_CROSS:
            c->o.cpu2 = (int)num_arg("cross-cpu", optarg, 0, 4095, 0);
            break;
        case OPT_SIZE:
            c->o.size = (size_t)num_arg("size", optarg, 0, 1ull << 34, 1);
            break;
        case OPT_STRIDE:
            c->o.stride = (size_t)num_arg("stride", optarg, 0, 1ull << 20, 1);
            break;
        case OPT_WARM:
            c->o.warmup_ms = (int)num_arg("warmup-ms", optarg, 0, 60000, 0);
            break;
        case OPT_PRIO:
            c->o.fifo_prio = (int)num_arg("fifo-prio", optarg, 1, 98, 0);
            break;
        case OPT_PARTIES:
            c->o.parties = (int)num_arg("parties", optarg, 2, 1024, 0);
            break;
        case OPT_FOOT:
            c->o.footprint = (size_t)num_arg("footprint", optarg, 0, 1ull << 30, 1);
            break;
        case OPT_NOIDLE:
            c->no_idle = 1;
            break;
        case OPT_QUICK:
            c->preset = preset_find("quick");
            break;
        case OPT_PRESET:
            c->preset = preset_find(optarg);
            if (!c->preset) die(2, "--preset: expected quick, default or full, got '%s'", optarg);
            break;
        case OPT_JSON:
            c->json = 1;
            break;
        case OPT_JSONL:
            c->jsonl = 1;
            break;
        case OPT_ALL:
            c->all = 1;
            break;
        case OPT_POINTS:
            parse_points(c, optarg);
            break;
        case OPT_COUNTERS:
            c->o.counters = 1;
            break;
        case OPT_INTERLEAVE:
            c->interleave = 1;
            break;
        case OPT_SEQUENTIAL:
            c->interleave = -1;
            break;
        case OPT_TASK_SCALE: {
            char *end;
            double v = strtod(optarg, &end);
            if (end == optarg || *end || !(v >= 0.001 && v <= 1000))
                die(2, "--task-scale: expected a number from 0.001 to 1000, got '%s'", optarg);
            c->o.task_scale = v;
            break;
        }
        case 'o':
            c->out = optarg;
            break;
        case OPT_HELP:
        case 'h':
            usage(stdout);
            exit(0);
        case ':':
            die(2, "option '%s' needs a value", argv[optind - 1]);
        default:
            die(2, "unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (c->o.stride && c->o.stride % sizeof(double))
        die(2, "--stride: must be a multiple of %zu bytes, got %zu", sizeof(double), c->o.stride);
    if (c->o.stride && !c->o.size) die(2, "--stride needs --size");
    if (c->points && (c->o.size || c->o.stride)) die(2, "--points excludes --size and --stride");
    if (c->o.cpu >= 0 && !cpu_allowed(c->o.cpu))
        die(2, "--cpu %d: no such CPU, or not allowed for this process (online: %d)", c->o.cpu,
            cpu_online_count());
    if (c->o.cpu2 >= 0 && !cpu_allowed(c->o.cpu2))
        die(2, "--cross-cpu %d: no such CPU, or not allowed for this process (online: %d)", c->o.cpu2,
            cpu_online_count());
    if (c->o.cpu >= 0 && c->o.cpu == c->o.cpu2) die(2, "--cross-cpu must differ from --cpu");
    if (c->json && c->jsonl) die(2, "--json and --jsonl exclude each other");
    return optind;
}

/* Output goes to a temp file next to -o and is renamed at the end: an
 * interrupted run leaves a complete file or none. */
static char tmp_path[4096];
static FILE *open_out(const char *out)
{
    if (!out) return stdout;
    snprintf(tmp_path, sizeof tmp_path, "%s.tmp.%d", out, (int)getpid());
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) die(2, "cannot write '%s': %s", out, strerror(errno));
    return fdopen(fd, "w");
}

static void close_out(FILE *f, const char *out, int ok)
{
    if (!out) {
        fflush(f);
        return;
    }
    if (fflush(f) || fsync(fileno(f)) || fclose(f) || !ok) {
        unlink(tmp_path);
        if (ok) die(1, "cannot write '%s': %s", out, strerror(errno));
        return;
    }
    if (rename(tmp_path, out)) {
        unlink(tmp_path);
        die(1, "cannot write '%s': %s", out, strerror(errno));
    }
    tmp_path[0] = 0;
}

/* atexit and the signal handler (reap_on_exit): unlink is async-signal-safe */
static void cleanup_tmp(void)
{
    if (tmp_path[0]) unlink(tmp_path);
}

static int cmd_list(cli_t *c)
{
    json_t j;
    if (c->json) {
        json_init(&j, stdout);
        json_arr_begin(&j);
    }
    for (size_t i = 0; i < bench_count(); i++) {
        const bench_t *b = bench_at(i);
        if ((b->flags & BENCH_HIDDEN) && !c->all) continue;
        if (c->json) {
            json_obj_begin(&j);
            json_kstr(&j, "id", b->id);
            json_kstr(&j, "quantity", b->quantity);
            json_kstr(&j, "unit", b->unit);
            json_kstr(&j, "doc", b->doc);
            json_kbool(&j, "default", (b->flags & BENCH_DEFAULT) != 0);
            json_kbool(&j, "quick", (b->flags & BENCH_QUICK) != 0);
            json_kbool(&j, "hidden", (b->flags & BENCH_HIDDEN) != 0);
            json_obj_end(&j);
        } else {
            printf("%-40s %-10s %s%s\n", b->id, b->quantity, b->doc,
                   (b->flags & BENCH_QUICK) ? " [quick]" : "");
        }
    }
    if (c->json) {
        json_arr_end(&j);
        putchar('\n');
    }
    return 0;
}

static int cmd_presets(cli_t *c)
{
    if (!c->json) {
        usage(stdout);
        return 0;
    }
    json_t j;
    json_init(&j, stdout);
    json_obj_begin(&j);
    for (size_t i = 0; i < NPRESETS; i++) {
        json_key(&j, presets[i].name);
        json_obj_begin(&j);
        json_kint(&j, "groups", presets[i].groups);
        json_kint(&j, "iterations", presets[i].iterations);
        json_kint(&j, "min_sample_us", presets[i].min_sample_us);
        json_obj_end(&j);
    }
    json_obj_end(&j);
    putchar('\n');
    return 0;
}

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
    cycle_hz();         /* calibrate once, before any measurement */
}

static void header(json_t *j)
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

/* One result, in the output mode asked for; 0, or 1 if the job failed. */
static int write_result(cli_t *c, FILE *f, json_t *j, harness_job_t *h, const bench_t *b)
{
    if (!c->json && !c->jsonl) {
        /* human output: a short line per result, from the engine summary */
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (!m) return 1;
        json_t mj;
        json_init(&mj, m);
        int failed = harness_emit(h, &mj) != 0;
        fclose(m);
        if (!failed) {
            const char *p = strstr(buf, "\"engine_summary\"");
            double mn = 0, med = 0;
            if (p) {
                const char *q = strstr(p, "\"min\":");
                const char *w = strstr(p, "\"median\":");
                if (q) mn = strtod(q + 6, NULL);
                if (w) med = strtod(w + 9, NULL);
            }
            if (c->points)
                fprintf(f, "%-40s %9zu:%-4zu median %10.1f ns   min %10.1f ns\n", b->id, c->o.size,
                        c->o.stride, med, mn);
            else
                fprintf(f, "%-40s %-9s median %10.1f ns   min %10.1f ns\n", b->id, b->quantity, med, mn);
            fflush(f);
        }
        free(buf);
        return failed;
    }
    if (c->jsonl) {
        json_init(j, f);
        json_obj_begin(j);
        json_kstr(j, "type", "result");
        json_key(j, "result");
    }
    int failed = harness_emit(h, j) != 0;
    if (failed && c->jsonl) json_null(j);
    if (c->jsonl) {
        json_obj_end(j);
        fputc('\n', f);
        fflush(f);
    }
    return failed;
}

/* A line a front end can show while interleaved results are not yet out. */
static void progress(cli_t *c, FILE *f, size_t done, size_t total, const char *id, int group)
{
    if (!c->jsonl) return;
    fprintf(f, "{\"type\":\"progress\",\"done\":%zu,\"total\":%zu,\"id\":\"%s\",\"group\":%d}\n", done, total,
            id, group);
    fflush(f);
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

/* Measure `n` benchmarks: prepared one by one, then group g of each (in
 * round_order), then their results. With n == 1 this is one id start to
 * finish. */
static int run_batch(cli_t *c, FILE *f, json_t *j, const bench_t **list, size_t n, int show_progress)
{
    harness_job_t **jobs = calloc(n, sizeof *jobs);
    size_t *order = calloc(n, sizeof *order);
    if (!jobs || !order) die(1, "out of memory");
    size_t total = n * (size_t)(c->o.groups + 1), done = 0;
    for (size_t i = 0; i < n; i++) {
        jobs[i] = harness_prepare(list[i], &c->o);
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
        if (!jobs[i] || write_result(c, f, j, jobs[i], list[i])) rc = 1;
        harness_free(jobs[i]);
    }
    free(jobs);
    return rc;
}

static int run_ids(cli_t *c, const bench_t **list, size_t n)
{
    prepare_run(c);
    FILE *f = open_out(c->out);
    json_t j;
    json_init(&j, f);
    int rc = 0;
    if (c->jsonl) {
        json_obj_begin(&j);
        json_kstr(&j, "type", "header");
        header(&j);
        json_obj_end(&j);
        fputc('\n', f);
        fflush(f);
    } else if (c->json) {
        json_obj_begin(&j);
        header(&j);
        json_key(&j, "results");
        json_arr_begin(&j);
    }
    /* With --points, every id is measured at every point, in this order, one
     * after the other; otherwise the ids may be interleaved group by group. */
    size_t np = c->points ? c->npoints : 1;
    int interleave = c->interleave > 0 && !c->points && n > 1;
    size_t batch = interleave ? n : 1;
    for (size_t k = 0; k < n * np; k += batch) {
        if (c->points) {
            c->o.size = c->points[k % np].size;
            c->o.stride = c->points[k % np].stride;
        }
        if (run_batch(c, f, &j, list + k / np, batch, interleave)) rc = 1;
    }
    if (c->json) {
        json_arr_end(&j);
        json_obj_end(&j);
        fputc('\n', f);
    }
    close_out(f, c->out, rc == 0);
    return rc;
}

int main(int argc, char **argv)
{
    setvbuf(stderr, NULL, _IONBF, 0);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        json_t j;
        json_init(&j, stdout);
        json_obj_begin(&j);
        tool_write(&j);
        json_obj_end(&j);
        putchar('\n');
        return 0;
    }
    sched_ctl_init();
    reap_install();
    atexit(cleanup_tmp);
    reap_on_exit(cleanup_tmp);
    cli_t c;
    memset(&c, 0, sizeof c);
    int first = parse(argc - 1, argv + 1, &c) + 1;
    if (!strcmp(cmd, "list")) {
        if (first < argc) die(2, "list: unexpected argument '%s'", argv[first]);
        return cmd_list(&c);
    }
    if (!strcmp(cmd, "presets")) {
        if (first < argc) die(2, "presets: unexpected argument '%s'", argv[first]);
        return cmd_presets(&c);
    }
    if (!strcmp(cmd, "env")) {
        json_t j;
        json_init(&j, stdout);
        json_obj_begin(&j);
        header(&j);
        json_obj_end(&j);
        putchar('\n');
        return 0;
    }
    const bench_t **list = calloc(bench_count() + (size_t)argc + 1, sizeof *list);
    size_t n = 0;
    if (!list) die(1, "out of memory");
    if (!strcmp(cmd, "run")) {
        if (first >= argc) die(2, "run: name at least one benchmark id (see 'ctxbench-engine list')");
        for (int i = first; i < argc; i++) {
            const bench_t *b = bench_find(argv[i]);
            if (!b) die(2, "unknown benchmark id '%s' (see 'ctxbench-engine list')", argv[i]);
            list[n++] = b;
        }
    } else if (!strcmp(cmd, "run-suite")) {
        if (first < argc) die(2, "run-suite: unexpected argument '%s'", argv[first]);
        const preset_t *p = c.preset ? c.preset : preset_find("default");
        c.o.quick = !strcmp(p->name, "quick");
        unsigned want = c.o.quick ? BENCH_QUICK : BENCH_DEFAULT;
        if (!c.interleave) c.interleave = 1;
        if (!c.set_groups) c.o.groups = p->groups;
        if (!c.set_iterations) c.o.iterations = p->iterations;
        if (!c.set_min_sample) c.o.min_sample_ns = 1000ull * (uint64_t)p->min_sample_us;
        for (size_t i = 0; i < bench_count(); i++)
            if (bench_at(i)->flags & want) list[n++] = bench_at(i);
    } else {
        die(2, "unknown command '%s' (try --help)", cmd);
    }
    int rc = run_ids(&c, list, n);
    free(list);
    return rc;
}
