/* The engine's command line: options and their checks, the suite
 * presets, the usage text, and the commands that only print (list,
 * presets). */
#ifndef CTXBENCH_CLI_OPTIONS_H
#define CTXBENCH_CLI_OPTIONS_H
#include "core/bench.h"
#include <stdio.h>

#define SCHEMA "ctxbench/1"

/* The suite presets (run-suite --preset NAME, `presets --json`): the
 * table, and why these counts, are in options.c. */
typedef struct preset {
    const char *name;
    int groups, iterations, min_sample_us;
} preset_t;
const preset_t *preset_find(const char *name);

#define MAX_POINTS 4096
typedef struct point {
    size_t size, stride;
} point_t;

typedef struct ring_point {
    int parties;
    size_t footprint;
} ring_point_t;

typedef struct cli {
    run_opts_t o;
    point_t *points; /* --points, or NULL */
    size_t npoints;
    ring_point_t *ring_points; /* --ring-points, or NULL */
    size_t nring_points;
    int json, jsonl, all, no_idle;
    int interleave; /* --interleave / --sequential; run-suite interleaves by default */
    int set_groups, set_iterations, set_min_sample; /* given on the command line */
    const char *out;
    const preset_t *preset; /* run-suite: --preset / --quick */
} cli_t;

void usage(FILE *f);
/* Parse options into `c` (one clear line and exit 2 on a bad one); returns
 * the index of the first argument that is not an option. */
int cli_parse(int argc, char **argv, cli_t *c);
int cmd_list(const cli_t *c);
int cmd_presets(const cli_t *c);
int cmd_probe(const cli_t *c);
#endif
