/* ctxbench-engine: the standalone measuring binary.
 *
 *   ctxbench-engine list [--all] [--json]
 *   ctxbench-engine run ID [ID...] [options] [--json|--jsonl] [-o FILE]
 *   ctxbench-engine run-suite [--preset NAME|--quick] [options] [--json|--jsonl] [-o FILE]
 *   ctxbench-engine presets [--json]
 *   ctxbench-engine probe [--cpu C] [--iterations K]
 *   ctxbench-engine env [--json]
 *   ctxbench-engine version
 *   ctxbench-engine which NAME...
 *   ctxbench-engine exec [--cpus C,...] [--timeout-ms T] [--drain-ms D] [--max-output B] -- PROGRAM [ARG...]
 *
 * This file dispatches; options.c parses, run.c measures, output.c writes. */
#include "cli/exec.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run.h"
#include "core/reap.h"
#include "core/sched_ctl.h"
#include "core/util.h"
#include "env/env.h"
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    guard_std_streams();
    atexit(close_stdout); /* registered first: runs after every other handler */
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
        need_stdout();
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
    if (!strcmp(cmd, "which")) return cmd_which(argc - 2, argv + 2);
    if (!strcmp(cmd, "exec")) return cmd_exec(argc - 2, argv + 2);
    cli_t c;
    memset(&c, 0, sizeof c);
    int first = cli_parse(argc - 1, argv + 1, &c) + 1;
    int to_stdout = !c.out || !strcmp(c.out, "-");
    if (strcmp(cmd, "run") && strcmp(cmd, "run-suite")) to_stdout = 1; /* list, presets, env: no -o */
    if (to_stdout) need_stdout();
    if (!strcmp(cmd, "list")) {
        if (first < argc) die(2, "list: unexpected argument '%s'", argv[first]);
        return cmd_list(&c);
    }
    if (!strcmp(cmd, "presets")) {
        if (first < argc) die(2, "presets: unexpected argument '%s'", argv[first]);
        return cmd_presets(&c);
    }
    if (!strcmp(cmd, "probe")) {
        if (first < argc) die(2, "probe: unexpected argument '%s'", argv[first]);
        return cmd_probe(&c);
    }
    if (!strcmp(cmd, "env")) {
        json_t j;
        json_init(&j, stdout);
        json_obj_begin(&j);
        write_header(&j);
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
