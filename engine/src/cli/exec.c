#include "cli/exec.h"
#include "cli/output.h"
#include "core/json.h"
#include "core/reap.h"
#include "core/util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Each option's default, in one place (the front end's peers/launch.py
 * passes every one of them). */
#define DEFAULT_TIMEOUT_MS 30000ull /* a launch past this is stopped, its group killed */
#define DEFAULT_DRAIN_MS   1000ull  /* after the program exits, the most to wait for the rest of its output */
#define DEFAULT_MAX_OUTPUT (1ull << 20) /* a peer printing more is not the peer we know (a few lines) */
#define MOST_TIMEOUT_MS    86400000ull  /* one day */
#define MOST_DRAIN_MS      60000ull
#define MOST_OUTPUT        (64ull << 20)
#define GONE_MS            5000 /* the most to wait for a killed group's last process (an orphan init reaps) */

static volatile pid_t peer_group; /* killed by the engine's signal handler (reap.c), whatever ends it */

/* The parent pid in /proc/<pid>/stat, or -1; async-signal-safe (raw reads,
 * no stdio): the signal handler's sweep uses it. */
static long stat_ppid(const char *pid)
{
    char path[64] = "/proc/", buf[512];
    size_t n = 6;
    for (const char *c = pid; *c && n < sizeof path - 6; c++) path[n++] = *c;
    memcpy(path + n, "/stat", 6);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0) return -1;
    buf[got] = 0;
    char *p = NULL;
    for (char *c = buf; *c; c++)
        if (*c == ')') p = c; /* the last one: a name may hold ')' */
    if (!p || !p[1] || !p[2] || !p[3]) return -1;
    long v = 0;
    for (p += 4; *p == ' '; p++) {
    }
    for (; *p >= '0' && *p <= '9'; p++) v = v * 10 + (*p - '0');
    return v;
}

/* SIGKILL to each of the engine's children (the program, and the orphans it
 * adopted as the launch's subreaper: what left the program's group);
 * returns -1 where /proc cannot be read. Async-signal-safe, for the signal
 * handler (getdents64, no opendir). */
static int kill_children(void)
{
    struct dirent64_raw {
        uint64_t ino;
        int64_t off;
        unsigned short reclen;
        unsigned char type;
        char name[];
    };
    pid_t self = getpid();
    int dfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return -1;
    char buf[4096] __attribute__((aligned(8)));
    long n;
    while ((n = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);
            off += d->reclen;
            if (d->name[0] < '1' || d->name[0] > '9') continue;
            if (stat_ppid(d->name) == self) {
                long pid = 0;
                for (const char *c = d->name; *c >= '0' && *c <= '9'; c++) pid = pid * 10 + (*c - '0');
                kill((pid_t)pid, SIGKILL);
            }
        }
    }
    close(dfd);
    return 0;
}

/* Every descendant killed and reaped, until the engine has no child left.
 * One pass is not enough: a killed process's own children (an escaped
 * shell's, still forking) come to the engine, its subreaper, only as that
 * process exits; the next pass kills them. Bounded in passes and in time
 * (GONE_MS); async-signal-safe (the signal handler's cleanup uses it). */
static void kill_adopted(void)
{
    struct timespec t0, now, pause = {0, 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int pass = 0; pass < GONE_MS; pass++) {
        if (kill_children()) return;
        int r;
        while ((r = waitpid(-1, NULL, WNOHANG)) > 0) {
        }
        if (r < 0 && errno == ECHILD) return;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 > GONE_MS) return;
        nanosleep(&pause, NULL);
    }
}

static void kill_peer_group(void)
{
    pid_t g = peer_group;
    if (g > 0) kill(-g, SIGKILL);
    kill_adopted();
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The CPU's busy time so far (s): user nice system irq softirq steal of
 * its /proc/stat line (idle and iowait are not busy); -1 where unread. */
static double busy_s(int cpu)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return -1;
    char line[512], name[32];
    snprintf(name, sizeof name, "cpu%d ", cpu);
    double got = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long long v[8] = {0};
        if (strncmp(line, name, strlen(name))) continue;
        if (sscanf(line + strlen(name), "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]) >= 7)
            got = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)sysconf(_SC_CLK_TCK);
        break;
    }
    fclose(f);
    return got;
}

static int parse_cpus(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    size_t len = strlen(s);
    if (!len || s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,"))
        return -1; /* strtok_r skips empty ones */
    char *copy = strdup(s), *save = NULL;
    if (!copy) return -1;
    int n = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        uint64_t c;
        if (parse_u64(t, &c) || c >= CPU_SETSIZE) {
            free(copy);
            return -1;
        }
        CPU_SET((int)c, set);
        n++;
    }
    free(copy);
    return n ? 0 : -1;
}

static void write_cpus(json_t *j, const char *key, const cpu_set_t *set)
{
    json_key(j, key);
    json_arr_begin(j);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, set)) json_int(j, c);
    json_arr_end(j);
}

static uint64_t ms_option(const char *flag, const char *v, uint64_t most)
{
    uint64_t x;
    if (!v || parse_u64(v, &x) || x > most)
        die(2, "exec: %s needs a whole number up to %llu", flag, (unsigned long long)most);
    return x;
}

/* The file `name` runs as: itself where it holds a slash, else the first
 * executable regular file of that name along PATH; NULL if none. */
static const char *resolve(const char *name, char *buf, size_t len)
{
    struct stat st;
    if (!*name) return NULL;
    if (strchr(name, '/'))
        return !stat(name, &st) && S_ISREG(st.st_mode) && !access(name, X_OK) ? name : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        if (snprintf(buf, len, "%.*s/%s", (int)(n ? n : 1), n ? path : ".", name) < (int)len &&
            !stat(buf, &st) && S_ISREG(st.st_mode) && !access(buf, X_OK))
            return buf;
        path += n + (path[n] == ':');
    }
    return NULL;
}

int cmd_which(int argc, char **argv)
{
    if (argc < 1) die(2, "which: name at least one program");
    need_stdout();
    json_t j;
    json_init(&j, stdout);
    json_obj_begin(&j);
    for (int i = 0; i < argc; i++) {
        char buf[PATH_MAX];
        const char *p = resolve(argv[i], buf, sizeof buf);
        if (p)
            json_kstr(&j, argv[i], p);
        else
            json_knull(&j, argv[i]);
    }
    json_obj_end(&j);
    putchar('\n');
    return 0;
}

/* Between fork and exec: its own process group, its CPUs, signals as a
 * fresh process has them, stdin empty, stdout and stderr into `out`. A
 * failure goes up `err` as an errno (the parent says it in one line). */
static void child(char **argv, const cpu_set_t *cpus, int out, int err)
{
    setpgid(0, 0);
    int e = 0;
    if (sched_setaffinity(0, sizeof *cpus, cpus)) e = errno;
    signal(SIGPIPE, SIG_DFL); /* the engine ignores it; an ignored signal stays ignored across exec */
    signal(SIGXFSZ, SIG_DFL);
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC); /* dup2 makes fd 0 inheritable */
    if (!e && (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)) e = errno;
    if (!e) {
        for (int fd = 3; fd < 1024; fd++) /* what the engine was given stays with it (err closes at exec) */
            if (fd != err) close(fd);
        execvp(argv[0], argv);
        e = errno;
    }
    ssize_t w = write(err, &e, sizeof e);
    (void)w;
    _exit(127);
}

typedef struct launch {
    char *output;
    size_t size;
    int started, status; /* status: the exit status, or minus the signal that ended it */
    char why[256];       /* why it was stopped, or could not start; "" when neither */
    struct rusage ru;
    double wall_s;
} launch_t;

static void collect(launch_t *l, pid_t pid, int fd, uint64_t timeout_ms, uint64_t drain_ms, uint64_t most)
{
    double t0 = now_s(), ended_at = -1;
    size_t cap = 0;
    int open_ = 1; /* its output, until every holder has closed it: a program may close it and go on */
    for (;;) {
        double now = now_s();
        if (now - t0 > (double)timeout_ms / 1e3) {
            snprintf(l->why, sizeof l->why, "no answer within %.3g s; stopped (its process group killed)",
                     (double)timeout_ms / 1e3);
            return;
        }
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (ended_at < 0 && !waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == pid)
            ended_at = now;
        /* ended with its output closed: all came; held open by something it left behind: what came is all */
        if (ended_at >= 0 && (!open_ || now - ended_at > (double)drain_ms / 1e3)) return;
        if (!open_) { /* it closed its output and still runs: wait for its exit */
            poll(NULL, 0, 10);
            continue;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0) continue;
        if (cap - l->size < 65536) {
            char *more = realloc(l->output, cap + 65536 + 1);
            if (!more) die(1, "exec: out of memory");
            l->output = more;
            cap += 65536;
        }
        size_t room = cap - l->size,
               left = most + 1 - l->size; /* one byte past the bound says it was passed */
        ssize_t n = read(fd, l->output + l->size, room < left ? room : left);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) {
            open_ = 0;
            continue;
        }
        l->size += (size_t)n;
        if (l->size > most) {
            l->size = most;
            snprintf(l->why, sizeof l->why, "printed more than %llu bytes; stopped",
                     (unsigned long long)most);
            return;
        }
    }
}

/* How many running processes (not zombies: dead, waiting for their parent
 * or init to reap them) are in process group `group`; -1 without /proc. */
static int running_in(pid_t group)
{
    DIR *d = opendir("/proc");
    if (!d) return -1;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        char *close_paren = strrchr(buf, ')'), state;
        int ppid, pgrp;
        if (!close_paren || sscanf(close_paren + 1, " %c %d %d", &state, &ppid, &pgrp) != 3 || state == 'Z' ||
            state == 'X')
            continue;
        if (pgrp == group) found++;
    }
    closedir(d);
    return found;
}

/* Whether a process of the group still runs (init may reap its zombies
 * late or, in some containers, never: they do not count). */
static int group_runs(pid_t group)
{
    if (kill(-group, 0) && errno == ESRCH) return 0;
    return running_in(group) != 0;
}

/* Wait (bounded) until no process of the group runs: a peer's orphaned
 * child dies a moment after the group's SIGKILL, and the next launch must
 * not meet it. */
static void wait_gone(pid_t group)
{
    for (int i = 0; i < GONE_MS / 10 && group_runs(group); i++) {
        struct timespec t = {0, 10 * 1000 * 1000};
        nanosleep(&t, NULL);
    }
}

static void run(launch_t *l, char **argv, const cpu_set_t *cpus, uint64_t timeout_ms, uint64_t drain_ms,
                uint64_t most)
{
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) die(1, "exec: pipe: %s", strerror(errno));
    double t0 = now_s();
    pid_t pid = reap_fork(); /* dies with the engine (SIGKILL), and is killed by its signal handler */
    if (pid < 0) die(1, "exec: fork: %s", strerror(errno));
    if (pid == 0) child(argv, cpus, out[1], err[1]);
    setpgid(pid, pid); /* as the child does: whichever runs first, the group exists before it is killed */
    peer_group = pid;
    close(out[1]);
    close(err[1]);
    int e = 0;
    ssize_t got;
    while ((got = read(err[0], &e, sizeof e)) < 0 && errno == EINTR) {
    }
    close(err[0]);
    if (got == (ssize_t)sizeof e) {
        snprintf(l->why, sizeof l->why, "cannot start %s: %s", argv[0], strerror(e));
    } else {
        l->started = 1;
        collect(l, pid, out[0], timeout_ms, drain_ms, most);
    }
    kill(-pid, SIGKILL); /* a timeout, too much output, or what it left behind */
    int st = 0;
    while (wait4(pid, &st, 0, &l->ru) < 0 && errno == EINTR) {
    }
    reap_forget(pid);
    l->status = WIFSIGNALED(st) ? -WTERMSIG(st) : WEXITSTATUS(st);
    close(out[0]);
    wait_gone(pid);
    peer_group = 0;
    kill_adopted(); /* what left the group (setsid, setpgid) and outlived it: the engine is its subreaper */
    l->wall_s = now_s() - t0;
}

int cmd_exec(int argc, char **argv)
{
    uint64_t timeout_ms = DEFAULT_TIMEOUT_MS, drain_ms = DEFAULT_DRAIN_MS, most = DEFAULT_MAX_OUTPUT;
    cpu_set_t allowed, cpus, rest;
    if (sched_getaffinity(0, sizeof allowed, &allowed))
        die(1, "exec: sched_getaffinity: %s", strerror(errno));
    cpus = allowed;
    int i = 0;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--cpus")) {
            if (!v || parse_cpus(v, &cpus)) die(2, "exec: --cpus needs CPU numbers, comma-separated");
            cpu_set_t outside;
            CPU_XOR(&outside, &cpus, &allowed);
            CPU_AND(&outside, &outside, &cpus);
            if (CPU_COUNT(&outside)) die(2, "exec: --cpus %s: a CPU this process may not use", v);
        } else if (!strcmp(argv[i], "--timeout-ms")) {
            timeout_ms = ms_option("--timeout-ms", v, MOST_TIMEOUT_MS);
        } else if (!strcmp(argv[i], "--drain-ms")) {
            drain_ms = ms_option("--drain-ms", v, MOST_DRAIN_MS);
        } else if (!strcmp(argv[i], "--max-output")) {
            most = ms_option("--max-output", v, MOST_OUTPUT);
        } else {
            die(2, "exec: unknown option '%s' (the program comes after --)", argv[i]);
        }
        i++;
    }
    if (i + 1 >= argc) die(2, "exec: name the program after --");
    char **prog = argv + i + 1;
    need_stdout();
    if (!timeout_ms) die(2, "exec: --timeout-ms must be above 0");

    /* the launcher leaves the program's CPUs where it can (it sleeps in poll, but wakes every 50 ms) */
    CPU_XOR(&rest, &allowed, &cpus);
    CPU_AND(&rest, &rest, &allowed);
    if (!CPU_COUNT(&rest) || sched_setaffinity(0, sizeof rest, &rest)) rest = allowed; /* it shares them */
    reap_add_cleanup(kill_peer_group);
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* what leaves the group and is orphaned comes to the engine */
    watchdog_arm((unsigned)((timeout_ms + drain_ms + GONE_MS) / 1000 + 30), "exec");

    int n = CPU_COUNT(&cpus), k = 0;
    double *before = calloc((size_t)n, sizeof *before), *after = calloc((size_t)n, sizeof *after);
    if (!before || !after) die(1, "exec: out of memory");
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &cpus)) before[k++] = busy_s(c);
    launch_t l;
    memset(&l, 0, sizeof l);
    run(&l, prog, &cpus, timeout_ms, drain_ms, most);
    k = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &cpus)) after[k++] = busy_s(c);
    watchdog_arm(0, NULL);

    for (size_t b = 0; b < l.size; b++)
        if (!l.output[b]) l.output[b] = '?'; /* a NUL would end the JSON string early */
    if (l.output) l.output[l.size] = 0;

    json_t j;
    json_init(&j, stdout);
    json_obj_begin(&j);
    json_key(&j, "argv");
    json_arr_begin(&j);
    for (char **a = prog; *a; a++) json_str(&j, *a);
    json_arr_end(&j);
    write_cpus(&j, "cpus", &cpus);
    write_cpus(&j, "launcher_cpus", &rest);
    if (l.started)
        json_kint(&j, "status", l.status);
    else
        json_knull(&j, "status");
    if (l.why[0])
        json_kstr(&j, "why", l.why);
    else
        json_knull(&j, "why");
    json_kstr(&j, "output", l.output ? l.output : "");
    json_knum(&j, "wall_s", l.wall_s);
    json_kint(&j, "voluntary", l.ru.ru_nvcsw);
    json_kint(&j, "involuntary", l.ru.ru_nivcsw);
    /* the tree's CPU time (user + system): what of each CPU's busy time was its own */
    json_knum(&j, "cpu_s",
              (double)(l.ru.ru_utime.tv_sec + l.ru.ru_stime.tv_sec) +
                  1e-6 * (double)(l.ru.ru_utime.tv_usec + l.ru.ru_stime.tv_usec));
    json_key(&j, "cpu_busy_s");
    json_arr_begin(&j);
    for (int c = 0; c < n; c++) {
        if (before[c] < 0 || after[c] < 0)
            json_null(&j);
        else
            json_num(&j, after[c] - before[c]);
    }
    json_arr_end(&j);
    json_obj_end(&j);
    putchar('\n');
    free(l.output);
    free(before);
    free(after);
    return 0;
}
