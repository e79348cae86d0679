#include "core/reap.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CHILDREN 1024
static volatile pid_t children[MAX_CHILDREN];
static pid_t engine_pid;
static char watch_what[128];
static unsigned watch_secs;
static void (*volatile on_exit_hook)(void);

void reap_on_exit(void (*fn)(void))
{
    on_exit_hook = fn;
}

#define MAX_CLEANUPS 4
static void (*volatile cleanups[MAX_CLEANUPS])(void);

void reap_add_cleanup(void (*fn)(void))
{
    for (int i = 0; i < MAX_CLEANUPS; i++) {
        if (cleanups[i] == fn) return;
        if (!cleanups[i]) {
            cleanups[i] = fn;
            return;
        }
    }
}

static void put(const char *s)
{
    ssize_t r = write(2, s, strlen(s));
    (void)r;
}

void reap_kill_all(void)
{
    for (int i = 0; i < MAX_CHILDREN; i++) {
        pid_t p = children[i];
        if (p > 0) {
            kill(p, SIGKILL);
            while (waitpid(p, NULL, 0) < 0 && errno == EINTR) {
            }
            children[i] = 0;
        }
    }
}

static void on_signal(int sig)
{
    if (getpid() != engine_pid) _exit(128 + sig); /* a child: just go */
    reap_kill_all();
    for (int i = 0; i < MAX_CLEANUPS; i++)
        if (cleanups[i]) cleanups[i](); /* after the children: a cgroup must be empty to go */
    if (on_exit_hook) on_exit_hook();   /* e.g. the unfinished output file */
    if (sig == SIGALRM) {
        char buf[256];
        snprintf(buf, sizeof buf, "ctxbench-engine: watchdog: %s did not finish within %u s; stopped\n",
                 watch_what, watch_secs);
        put(buf);
        _exit(3);
    }
    if (sig == SIGXCPU) {
        put("ctxbench-engine: watchdog: a real-time thread ran without blocking past RLIMIT_RTTIME; "
            "stopped\n");
        _exit(3);
    }
    put(sig == SIGINT ? "ctxbench-engine: interrupted (SIGINT); children reaped\n"
                      : "ctxbench-engine: terminated; children reaped\n");
    _exit(128 + sig);
}

void reap_install(void)
{
    engine_pid = getpid();
    pid_t parent = getppid();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigfillset(&sa.sa_mask);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGXCPU, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* If the front end dies (even by SIGKILL), we get SIGTERM and clean up. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) raise(SIGTERM);
}

pid_t reap_fork(void)
{
    pid_t parent = getpid();
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old); /* no signal between fork and registration */
    pid_t p = fork();
    if (p == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        /* A child never runs the parent's cleanup or watchdog. */
        alarm(0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGALRM, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        if (getppid() != parent) _exit(1);
        return 0;
    }
    if (p > 0) {
        for (int i = 0; i < MAX_CHILDREN; i++)
            if (children[i] == 0) {
                children[i] = p;
                break;
            }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return p;
}

void reap_forget(pid_t pid)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] == pid) children[i] = 0;
}

void watchdog_arm(unsigned seconds, const char *what)
{
    watch_secs = seconds;
    snprintf(watch_what, sizeof watch_what, "%s", what ? what : "?");
    alarm(seconds);
}
