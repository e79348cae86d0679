/* Where output goes. The rule (the front end's writer.py follows the same):
 *
 * - no -o, "-o -", or a path that names this process's stdout (/dev/stdout,
 *   /proc/self/fd/1, or the very file the shell redirected stdout to):
 *   written to stdout as a stream;
 * - a regular file, or a name that does not exist yet: written to a temp
 *   file beside it and renamed at the end (an interrupted run leaves a
 *   complete file or none); a symlink is followed only to a regular file,
 *   which is replaced beside its target, so the link stays a link;
 * - a character device (/dev/null) or a FIFO with a reader: written as a
 *   stream, never replaced; a FIFO nobody reads is refused at once, never
 *   waited on;
 * - a directory, a socket, a block device, a dangling symlink: refused.
 *
 * Every refusal happens before anything is measured. A write that fails
 * (a full disk, a closed stdout, /dev/full) is an error, never exit 0. */
#include "cli/output.h"
#include "core/util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_path[PATH_MAX + 32];
static char final_path[PATH_MAX]; /* what the temp file is renamed to */
static const char *shown;         /* the -o argument, for messages */

/* The same file as an open descriptor? (/dev/stdout, a redirect's file) */
static int same_as_fd(const struct stat *st, int fd)
{
    struct stat o;
    return fstat(fd, &o) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

/* Temp files "<base>.tmp.<pid>" of an engine killed outright (SIGKILL
 * skips every cleanup): removed at the next run writing the same target. */
static void remove_stale_tmps(const char *target)
{
    char dirbuf[PATH_MAX], basebuf[PATH_MAX];
    snprintf(dirbuf, sizeof dirbuf, "%s", target);
    snprintf(basebuf, sizeof basebuf, "%s", target);
    const char *dir = dirname(dirbuf), *base = basename(basebuf);
    size_t blen = strlen(base);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, base, blen) || strncmp(e->d_name + blen, ".tmp.", 5)) continue;
        const char *digits = e->d_name + blen + 5;
        uint64_t pid;
        if (parse_u64(digits, &pid) || pid == 0 || pid > INT_MAX) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* its engine still runs */
        char p[PATH_MAX + 256];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
}

/* A FIFO or device opened for a stream; a FIFO without a reader is an
 * error (O_NONBLOCK: ENXIO at once instead of blocking until one comes). */
static FILE *open_stream(const char *out)
{
    int fd = open(out, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 && errno == ENXIO) die(2, "cannot write '%s': a FIFO that nobody reads", out);
    if (fd < 0) die(2, "cannot write '%s': %s", out, strerror(errno));
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK); /* the writes themselves may wait for the reader */
    FILE *f = fdopen(fd, "w");
    if (!f) die(1, "cannot write '%s': %s", out, strerror(errno));
    return f;
}

FILE *open_out(const char *out)
{
    shown = out;
    final_path[0] = tmp_path[0] = 0;
    if (!out || !strcmp(out, "-")) return stdout;
    if (!*out) die(2, "-o: empty file name");
    struct stat st;
    if (stat(out, &st) == 0) {
        if (same_as_fd(&st, STDOUT_FILENO)) return stdout;
        if (S_ISDIR(st.st_mode)) die(2, "cannot write '%s': it is a directory", out);
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return open_stream(out);
        if (!S_ISREG(st.st_mode))
            die(2, "refusing to write '%s': it is neither a regular file, a character device nor a FIFO",
                out);
        /* a regular file, maybe through symlinks: replaced where it really is */
        if (!realpath(out, final_path)) die(2, "cannot write '%s': %s", out, strerror(errno));
    } else if (errno != ENOENT) {
        die(2, "cannot write '%s': %s", out, strerror(errno));
    } else {
        struct stat lst;
        if (lstat(out, &lst) == 0) die(2, "refusing to write '%s': a symlink to nothing", out);
        snprintf(final_path, sizeof final_path, "%s", out);
    }
    remove_stale_tmps(final_path);
    snprintf(tmp_path, sizeof tmp_path, "%s.tmp.%d", final_path, (int)getpid());
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        tmp_path[0] = 0;
        die(2, "cannot write '%s': %s", out, strerror(errno));
    }
    FILE *f = fdopen(fd, "w");
    if (!f) die(1, "cannot write '%s': %s", out, strerror(errno));
    return f;
}

/* Measured results are never dropped: when the rename cannot be done
 * safely, the temp file stays and the message names it. */
static void keep_tmp_and_die(const char *why)
{
    char kept[sizeof tmp_path];
    snprintf(kept, sizeof kept, "%s", tmp_path);
    tmp_path[0] = 0; /* cleanup_tmp must not remove it */
    die(1, "cannot write '%s' (%s): the results were kept in '%s'", shown, why, kept);
}

void close_out(FILE *f, const char *out, int ok)
{
    (void)ok;                    /* a failed id is recorded in the file; the file is kept all the same */
    if (!tmp_path[0]) {          /* a stream: stdout, a device or a FIFO */
        if (f == stdout) return; /* close_stdout (atexit) checks and says it once */
        if (fflush(f) || ferror(f)) die(1, "cannot write '%s': %s", out, strerror(errno));
        if (fclose(f)) die(1, "cannot write '%s': %s", out, strerror(errno));
        return;
    }
    if (fflush(f) || ferror(f) || fsync(fileno(f))) {
        int e = errno;
        fclose(f);
        unlink(tmp_path);
        tmp_path[0] = 0;
        die(1, "cannot write '%s': %s", out, strerror(e));
    }
    if (fclose(f)) {
        unlink(tmp_path);
        tmp_path[0] = 0;
        die(1, "cannot write '%s': %s", out, strerror(errno));
    }
    /* What is there now may have changed during the run (a FIFO or a
     * device put in the file's place): never replace anything but a file. */
    struct stat st;
    if (lstat(final_path, &st) == 0 && !S_ISREG(st.st_mode))
        keep_tmp_and_die("it is no longer a regular file");
    if (rename(tmp_path, final_path)) keep_tmp_and_die(strerror(errno));
    tmp_path[0] = 0;
}

/* atexit and the signal handler (reap_on_exit): unlink is async-signal-safe */
void cleanup_tmp(void)
{
    if (tmp_path[0]) unlink(tmp_path);
}

/* Like gnulib's close_stdout (not a dependency here for one function):
 * output to stdout that could not be written (a full disk, /dev/full, a
 * closed descriptor) must fail the command, not vanish behind exit 0. */
static int stdout_closed_at_start;

void guard_std_streams(void)
{
    /* A descriptor 0-2 closed by the caller (>&-) would be handed to the
     * next open(): the temp file would become "stdout". Hold /dev/null
     * there, and remember that stdout itself cannot be written. */
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
        if (fd == STDOUT_FILENO) stdout_closed_at_start = 1;
        int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (n >= 0 && n != fd) {
            dup2(n, fd);
            close(n);
        }
    }
}

void need_stdout(void)
{
    if (stdout_closed_at_start) die(2, "standard output is closed: nowhere to write (use -o FILE)");
}

void close_stdout(void)
{
    if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
        /* stderr may be gone too; the exit status still says it */
        fprintf(stderr, "ctxbench-engine: cannot write to standard output: %s\n",
                errno ? strerror(errno) : "write error");
        _exit(1);
    }
}

/* One result, in the output mode asked for; 0, or 1 if the job failed. */
int write_result(const cli_t *c, FILE *f, json_t *j, harness_job_t *h, const bench_t *b)
{
    if (!c->json && !c->jsonl) {
        /* human output: a short line per result, from the engine summary */
        engine_summary_t s;
        if (harness_summary(h, &s)) {
            fprintf(f, "%-40s FAILED: %s\n", b->id, harness_error(h));
            return 1;
        }
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
    if (failed && c->jsonl) {
        /* the front end keeps the other results and records this one */
        json_null(j);
        json_kstr(j, "id", b->id);
        json_kstr(j, "error", harness_error(h));
    }
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
