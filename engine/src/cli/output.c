#include "cli/output.h"
#include "core/util.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Output goes to a temp file next to -o and is renamed at the end: an
 * interrupted run leaves a complete file or none. */
static char tmp_path[4096];
FILE *open_out(const char *out)
{
    if (!out) return stdout;
    snprintf(tmp_path, sizeof tmp_path, "%s.tmp.%d", out, (int)getpid());
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) die(2, "cannot write '%s': %s", out, strerror(errno));
    return fdopen(fd, "w");
}

void close_out(FILE *f, const char *out, int ok)
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
void cleanup_tmp(void)
{
    if (tmp_path[0]) unlink(tmp_path);
}

/* One result, in the output mode asked for; 0, or 1 if the job failed. */
int write_result(const cli_t *c, FILE *f, json_t *j, harness_job_t *h, const bench_t *b)
{
    if (!c->json && !c->jsonl) {
        /* human output: a short line per result, from the engine summary */
        engine_summary_t s;
        if (harness_summary(h, &s)) return 1;
        if (c->points)
            fprintf(f, "%-40s %9zu:%-4zu median %10.1f ns   min %10.1f ns\n", b->id, c->o.size, c->o.stride,
                    s.median, s.min);
        else
            fprintf(f, "%-40s %-9s median %10.1f ns   min %10.1f ns\n", b->id, b->quantity, s.median, s.min);
        fflush(f);
        return 0;
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
void progress(const cli_t *c, FILE *f, size_t done, size_t total, const char *id, int group)
{
    if (!c->jsonl) return;
    fprintf(f, "{\"type\":\"progress\",\"done\":%zu,\"total\":%zu,\"id\":\"%s\",\"group\":%d}\n", done, total,
            id, group);
    fflush(f);
}
