#include "core/sched_ctl.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The process's allowed CPUs as they were before any pinning. */
static cpu_set_t initial;
static int have_initial;

void sched_ctl_init(void)
{
    CPU_ZERO(&initial);
    have_initial = sched_getaffinity(0, sizeof initial, &initial) == 0;
}

static int allowed(cpu_set_t *set)
{
    if (!have_initial) sched_ctl_init();
    *set = initial;
    return have_initial ? 0 : -1;
}

int cpu_allowed(int cpu)
{
    cpu_set_t s;
    if (cpu < 0 || cpu >= CPU_SETSIZE || allowed(&s)) return 0;
    return CPU_ISSET(cpu, &s) != 0;
}

int cpu_online_count(void)
{
    return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

int default_cpu(void)
{
    cpu_set_t s;
    if (allowed(&s)) return 0;
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, &s)) return c;
    return 0;
}

int default_cpu2(int cpu)
{
    cpu_set_t s;
    if (allowed(&s)) return -1;
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (c != cpu && CPU_ISSET(c, &s)) return c;
    return -1;
}

int pin_self(int cpu, char *err, size_t len)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    int rc = pthread_setaffinity_np(pthread_self(), sizeof s, &s);
    if (rc && err) snprintf(err, len, "cannot pin to CPU %d: %s", cpu, strerror(rc));
    return rc;
}

int set_policy_self(policy_t p, int prio, char *err, size_t len)
{
    struct sched_param sp = {.sched_priority = p == POLICY_FIFO ? prio : 0};
    int rc = pthread_setschedparam(pthread_self(), p == POLICY_FIFO ? SCHED_FIFO : SCHED_OTHER, &sp);
    if (rc && err)
        snprintf(err, len, "SCHED_%s refused: %s%s", p == POLICY_FIFO ? "FIFO" : "OTHER", strerror(rc),
                 rc == EPERM ? " (needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO allowance)" : "");
    return rc;
}

const char *policy_name(policy_t p)
{
    return p == POLICY_FIFO ? "SCHED_FIFO" : "SCHED_OTHER";
}

void rt_cpu_limit(unsigned ms)
{
    struct rlimit rl = {.rlim_cur = (rlim_t)ms * 1000, .rlim_max = (rlim_t)ms * 2000};
    struct rlimit old;
    if (getrlimit(RLIMIT_RTTIME, &old) == 0 && old.rlim_max != RLIM_INFINITY && old.rlim_max < rl.rlim_max) {
        rl.rlim_max = old.rlim_max;
        if (rl.rlim_cur > rl.rlim_max) rl.rlim_cur = rl.rlim_max;
    }
    setrlimit(RLIMIT_RTTIME, &rl);
}
