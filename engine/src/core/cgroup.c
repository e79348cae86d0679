#include "core/cgroup.h"
#include "core/reap.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LIVE 4
static cg_pair_t *volatile live[MAX_LIVE];
static unsigned serial;

/* Is `tok` one of the comma-separated words of `list`? */
static int has_word(const char *list, const char *tok)
{
    size_t k = strlen(tok);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == k && !strncmp(p, tok, k)) return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

static int file_has_word(const char *path, const char *word)
{
    char buf[512] = "";
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t r = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[r] = 0;
    for (char *t = strtok(buf, " \n"); t; t = strtok(NULL, " \n"))
        if (!strcmp(t, word)) return 1;
    return 0;
}

/* The mount point of the hierarchy with the cpu controller, its version,
 * and the engine's cgroup in it (relative path). */
static int find_hierarchy(int *version, char *mnt, size_t mn, char *own, size_t on)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f) return -1;
    char line[1024], v1[CG_PATH] = "", v2[CG_PATH] = "";
    while (fgets(line, sizeof line, f)) {
        char *sep = strstr(line, " - ");
        if (!sep) continue;
        char mp[CG_PATH], fstype[32], src[64], opts[256] = "";
        if (sscanf(line, "%*s %*s %*s %*s %383s", mp) != 1) continue;
        if (sscanf(sep + 3, "%31s %63s %255s", fstype, src, opts) < 2) continue;
        if (!strcmp(fstype, "cgroup2") && !v2[0]) {
            char c[CG_PATH + 32];
            snprintf(c, sizeof c, "%s/cgroup.controllers", mp);
            if (file_has_word(c, "cpu")) snprintf(v2, sizeof v2, "%s", mp);
        } else if (!strcmp(fstype, "cgroup") && has_word(opts, "cpu") && !v1[0]) {
            snprintf(v1, sizeof v1, "%s", mp);
        }
    }
    fclose(f);
    *version = v2[0] ? 2 : v1[0] ? 1 : 0;
    if (!*version) return -1;
    snprintf(mnt, mn, "%s", v2[0] ? v2 : v1);
    /* /proc/self/cgroup: "0::/path" (v2) or "N:cpu,cpuacct:/path" (v1) */
    f = fopen("/proc/self/cgroup", "r");
    snprintf(own, on, "/");
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (!a || !b) continue;
        *b = 0;
        if ((*version == 2 && a[1] == 0 && line[0] == '0') || (*version == 1 && has_word(a + 1, "cpu"))) {
            snprintf(own, on, "%s", b + 1);
            break;
        }
    }
    fclose(f);
    return 0;
}

static int write_pid(const char *dir, pid_t pid)
{
    char path[CG_PATH + 16], num[24];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    int fd = open(path, O_WRONLY);
    if (fd < 0) return -1;
    int len = snprintf(num, sizeof num, "%d", (int)pid);
    int ok = write(fd, num, (size_t)len) == len;
    int e = errno;
    close(fd);
    errno = e;
    return ok ? 0 : -1;
}

/* Remove ctxbench-<pid>-<n> directories (and their a, b) whose engine is
 * gone: what an engine killed by SIGKILL left behind. */
static void remove_stale(const char *parent)
{
    DIR *d = opendir(parent);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        int pid;
        unsigned k;
        if (sscanf(e->d_name, "ctxbench-%d-%u", &pid, &k) != 2 || pid <= 0) continue;
        if (kill(pid, 0) == 0 || errno != ESRCH) continue;
        char p[CG_PATH + 300];
        snprintf(p, sizeof p, "%.300s/%.200s/a", parent, e->d_name);
        rmdir(p);
        snprintf(p, sizeof p, "%.300s/%.200s/b", parent, e->d_name);
        rmdir(p);
        snprintf(p, sizeof p, "%.300s/%.200s", parent, e->d_name);
        rmdir(p);
    }
    closedir(d);
}

int cg_pair_create(cg_pair_t *c, char *err, size_t n)
{
    memset(c, 0, sizeof *c);
    char mnt[CG_PATH], own[CG_PATH], parent[CG_PATH];
    if (find_hierarchy(&c->version, mnt, sizeof mnt, own, sizeof own)) {
        snprintf(err, n, "cgroups not available: no mounted hierarchy has the cpu controller");
        return -1;
    }
    snprintf(c->home, sizeof c->home, "%.160s%.160s", mnt, strcmp(own, "/") ? own : "");
    /* v2: a cgroup with processes cannot give controllers to children
     * ("no internal processes"), except the root */
    snprintf(parent, sizeof parent, "%.330s", c->version == 2 ? mnt : c->home);
    remove_stale(parent);
    char ctl[CG_PATH + 32];
    snprintf(ctl, sizeof ctl, "%.330s/cgroup.subtree_control", parent);
    c->cpu_controller = c->version == 1 || file_has_word(ctl, "cpu");
    snprintf(c->top, sizeof c->top, "%.330s/ctxbench-%d-%u", parent, (int)getpid(), serial++);
    snprintf(c->dir[0], sizeof c->dir[0], "%.370s/a", c->top);
    snprintf(c->dir[1], sizeof c->dir[1], "%.370s/b", c->top);
    int slot = -1;
    for (int i = 0; i < MAX_LIVE && slot < 0; i++)
        if (!live[i]) slot = i;
    if (slot < 0) {
        snprintf(err, n, "cgroups: too many pairs at once");
        return -1;
    }
    /* registered before the first mkdir: a signal from here on removes
     * whatever of it exists */
    c->live = 1;
    live[slot] = c;
    reap_add_cleanup(cg_remove_all);
    if (mkdir(c->top, 0755) || mkdir(c->dir[0], 0755) || mkdir(c->dir[1], 0755)) {
        int e = errno;
        cg_pair_remove(c);
        snprintf(err, n, "cgroups not available: cannot create %s: %s (needs root or a delegated cgroup)",
                 c->top, strerror(e));
        return -1;
    }
    return 0;
}

int cg_pair_enter(const cg_pair_t *c, int which, pid_t pid, char *err, size_t n)
{
    if (write_pid(c->dir[which], pid ? pid : getpid()) == 0) return 0;
    snprintf(err, n, "cgroups: cannot move pid %d into %s: %s", (int)(pid ? pid : getpid()), c->dir[which],
             strerror(errno));
    return -1;
}

void cg_pair_remove(cg_pair_t *c)
{
    /* idempotent, and `live` cleared last: the signal handler may run it
     * again over a teardown it interrupted */
    if (!c || !c->live) return;
    write_pid(c->home, getpid());
    rmdir(c->dir[0]);
    rmdir(c->dir[1]);
    rmdir(c->top);
    for (int i = 0; i < MAX_LIVE; i++)
        if (live[i] == c) live[i] = NULL;
    c->live = 0;
}

void cg_remove_all(void)
{
    for (int i = 0; i < MAX_LIVE; i++)
        if (live[i]) cg_pair_remove(live[i]);
}
