#include "cli/options.h"
#include "core/clock_probe.h"
#include "env/emulation.h"
#include "core/harness.h"
#include "core/json.h"
#include "core/sched_ctl.h"
#include "core/util.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* The suite presets, the one source of these counts: `ctxbench run`
 * reads them from `presets --json`, so a board's run-suite file and a
 * laptop's `ctxbench run` are measured alike. David et al. and Chen et al.
 * used 20 x 10; the default takes 48 short groups, interleaved over ~25 s,
 * so that each id's median averages over the host's drift (run-to-run
 * agreement: docs/run.md, "How repeatable is a run?"). Quick is a smoke test;
 * full trades minutes for more groups and longer samples. */
static const preset_t presets[] = {
    {"quick", 5, 6, 500},
    {"default", 48, 8, 1500},
    {"full", 160, 8, 2000},
};
#define NPRESETS (sizeof presets / sizeof *presets)

const preset_t *preset_find(const char *name)
{
    for (size_t i = 0; i < NPRESETS; i++)
        if (!strcmp(presets[i].name, name)) return &presets[i];
    return NULL;
}

static void presets_table(FILE *f)
{
    fputs("presets (groups x samples of >= us, as 'ctxbench run'):\n", f);
    for (size_t i = 0; i < NPRESETS; i++)
        fprintf(f, "  %-8s %4d x %d of >= %d us\n", presets[i].name, presets[i].groups, presets[i].iterations,
                presets[i].min_sample_us);
}

void usage(FILE *f)
{
    fputs("usage: ctxbench-engine list [--all] [--json]\n"
          "       ctxbench-engine run ID [ID...] [options]\n"
          "       ctxbench-engine run-suite [--preset NAME | --quick] [options]\n"
          "       ctxbench-engine presets [--json]\n"
          "       ctxbench-engine probe [--cpu C] [--iterations K]\n"
          "       ctxbench-engine env [--json]\n"
          "       ctxbench-engine version\n"
          "       ctxbench-engine which NAME...   (JSON: each name's path on PATH, or null)\n"
          "       ctxbench-engine exec [--cpus C,...] [--timeout-ms T] [--drain-ms D] [--max-output B]\n"
          "                            -- PROGRAM [ARG...]   (JSON: one launch of another program;\n"
          "                            defaults: every allowed CPU, 30000 ms, 1000 ms, 1 MiB)\n"
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
          "  --ring-points N:K,...  (run) measure each ring/ id at each parties:footprint\n"
          "                    point, one result per point; other ids once; with\n"
          "                    --interleave all of them group by group\n"
          "  --settle-us U     before each group, wait (<= 50 U) until the measuring thread\n"
          "                    ran U us on its CPU with no switch and no gap > 50 us\n"
          "  --task-scale X    tasks/ and irq/ ids: size of each task, 0.001 to 1000 (default 1)\n"
          "  --n-list N,...    tasks/ ids: up to 16 values of n, one sample of each per group,\n"
          "                    rotated from group to group (use --iterations = their count);\n"
          "                    irq/ ids: timer rates in Hz, the same way\n"
          "  --irq-burn-us D   irq/ ids: the handler also spins D us (known-answer tests)\n"
          "  --chunk-window W  tasks/ and irq/ ids: an event's cost is its first W chunks' excess\n"
          "                    over its last W's, W at most this (default 256; docs/method.md)\n"
          "  --no-idle         hold /dev/cpu_dma_latency at 0 during the run\n"
          "  --interleave      measure group 1 of every id, then group 2, ... so that each\n"
          "                    id's samples span the whole run (default for run-suite)\n"
          "  --sequential      all groups of one id, then the next (default for run)\n"
          "  --preset NAME     (run-suite) the counts of a preset, unless given (default:\n"
          "                    'default'); 'quick' also measures the quick subset of ids\n"
          "  --quick           (run-suite) --preset quick\n"
          "  --json            one results document (schema " SCHEMA ")\n"
          "  --jsonl           header line, then one result per line, as they finish\n"
          "  -o FILE           write to FILE atomically instead of stdout\n",
          f);
    presets_table(f);
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
    OPT_N_LIST,
    OPT_PRESET,
    OPT_BURN,
    OPT_RING_POINTS,
    OPT_SETTLE,
    OPT_CHUNK_WINDOW
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
                                         {"n-list", required_argument, 0, OPT_N_LIST},
                                         {"preset", required_argument, 0, OPT_PRESET},
                                         {"irq-burn-us", required_argument, 0, OPT_BURN},
                                         {"ring-points", required_argument, 0, OPT_RING_POINTS},
                                         {"settle-us", required_argument, 0, OPT_SETTLE},
                                         {"chunk-window", required_argument, 0, OPT_CHUNK_WINDOW},
                                         {0, 0, 0, 0}};

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

/* "N:K,N:K,...": parties (2..1024) and footprint (K/M suffixes, <= 1G). */
static void parse_ring_points(cli_t *c, const char *arg)
{
    char *dup = strdup(arg), *save = NULL;
    if (!dup) die(1, "out of memory");
    free(c->ring_points);
    c->ring_points = calloc(MAX_POINTS, sizeof *c->ring_points);
    if (!c->ring_points) die(1, "out of memory");
    c->nring_points = 0;
    for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        uint64_t n, k;
        if (!colon) die(2, "--ring-points: expected PARTIES:FOOTPRINT, got '%s'", tok);
        *colon = 0;
        if (parse_u64(tok, &n) || parse_size(colon + 1, &k) || n < 2 || n > 1024 || k > (1ull << 30))
            die(2, "--ring-points: expected PARTIES:FOOTPRINT (2 to 1024 parties, up to 1G), got '%s:%s'",
                tok, colon + 1);
        if (c->nring_points == MAX_POINTS) die(2, "--ring-points: more than %d points", MAX_POINTS);
        c->ring_points[c->nring_points++] = (ring_point_t){(int)n, (size_t)k};
    }
    free(dup);
    if (!c->nring_points) die(2, "--ring-points: empty list");
}

int cli_parse(int argc, char **argv, cli_t *c)
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
        case OPT_RING_POINTS:
            parse_ring_points(c, optarg);
            break;
        case OPT_SETTLE:
            c->o.settle_ns = num_arg("settle-us", optarg, 1, 1000000, 0) * 1000;
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
        case OPT_N_LIST: {
            char *copy = strdup(optarg), *save = NULL;
            c->o.n_count = 0;
            for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (c->o.n_count == RUN_MAX_N_LIST) die(2, "--n-list: more than %d values", RUN_MAX_N_LIST);
                c->o.n_list[c->o.n_count++] = num_arg("n-list", tok, 1, 1ull << 32, 0);
            }
            free(copy);
            if (!c->o.n_count) die(2, "--n-list: empty list");
            break;
        }
        case OPT_TASK_SCALE: {
            char *end;
            double v = strtod(optarg, &end);
            if (end == optarg || *end || !(v >= 0.001 && v <= 1000))
                die(2, "--task-scale: expected a number from 0.001 to 1000, got '%s'", optarg);
            c->o.task_scale = v;
            break;
        }
        case OPT_BURN:
            c->o.irq_burn_ns = num_arg("irq-burn-us", optarg, 0, 10000, 0) * 1000;
            break;
        case OPT_CHUNK_WINDOW:
            c->o.chunk_window = (size_t)num_arg("chunk-window", optarg, 1, 1u << 20, 0);
            break;
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
    if (c->ring_points && c->points) die(2, "--ring-points excludes --points");
    if (c->ring_points && (c->o.parties || c->o.footprint))
        die(2, "--ring-points excludes --parties and --footprint");
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

int cmd_list(const cli_t *c)
{
    json_t j;
    if (c->json) {
        json_init(&j, stdout);
        json_arr_begin(&j);
    }
    int width = 0; /* the longest id shown: the columns stay aligned */
    for (size_t i = 0; i < bench_count(); i++) {
        const bench_t *b = bench_at(i);
        int len = (int)strlen(b->id);
        if ((!(b->flags & BENCH_HIDDEN) || c->all) && len > width) width = len;
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
            printf("%-*s %-10s %s%s\n", width, b->id, b->quantity, b->doc,
                   (b->flags & BENCH_QUICK) ? " [quick]" : "");
        }
    }
    if (c->json) {
        json_arr_end(&j);
        putchar('\n');
    }
    return 0;
}

/* K readings of the core-clock probe on the measured CPU, one JSON object:
 * what the front end takes around a run it does not time itself (a
 * language runtime's harness). */
int cmd_probe(const cli_t *c)
{
    int cpu = c->o.cpu >= 0 ? c->o.cpu : default_cpu();
    if (!cpu_allowed(cpu)) die(2, "--cpu %d: not an allowed CPU", cpu);
    int k = c->set_iterations ? c->o.iterations : 3;
    if (k > 64) die(2, "probe: --iterations %d: at most 64 readings", k);
    if (c->out) die(2, "probe: -o is not taken: the readings are one JSON object on standard output");
    char err[200], evidence[160] = "";
    if (pin_self(cpu, err, sizeof err)) die(1, "%s", err);
    if (emulation_detect(evidence, sizeof evidence)) clock_probe_mark_emulated(evidence);
    json_t j;
    json_init(&j, stdout);
    json_obj_begin(&j);
    json_key(&j, "clock_probe");
    json_obj_begin(&j);
    clock_probe_describe(&j);
    clock_probe_t p[64];
    for (int i = 0; i < k; i++) p[i] = clock_probe_read(cpu);
    static const char *names[] = {"add_ns", "check_ns", "walk_ns", "pmu_cycles_per_op"};
    for (int m = 0; m < 4; m++) {
        json_key(&j, names[m]);
        json_arr_begin(&j);
        for (int i = 0; i < k; i++) {
            const double v[] = {p[i].add_ns, p[i].check_ns, p[i].walk_ns, p[i].pmu_cycles_per_op};
            json_num(&j, v[m]);
        }
        json_arr_end(&j);
    }
    json_kint(&j, "cpu", p[0].cpu);
    json_obj_end(&j);
    json_obj_end(&j);
    putchar('\n');
    return 0;
}

int cmd_presets(const cli_t *c)
{
    if (!c->json) {
        presets_table(stdout);
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
