#include "core/perf_counters.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CACHE_CFG(cache, op, res) ((uint64_t)(cache) | ((uint64_t)(op) << 8) | ((uint64_t)(res) << 16))

const pc_event_t pc_sweep_events[] = {
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"l1d_load_misses", PERF_TYPE_HW_CACHE,
     CACHE_CFG(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)},
    {"l1i_load_misses", PERF_TYPE_HW_CACHE,
     CACHE_CFG(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)},
    {"dtlb_load_misses", PERF_TYPE_HW_CACHE,
     CACHE_CFG(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)},
};
const int pc_sweep_nevents = sizeof pc_sweep_events / sizeof *pc_sweep_events;

static int open_one(const pc_event_t *e, pid_t tid, int group)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = e->type;
    a.config = e->config;
    a.disabled = group < 0; /* the leader starts the group */
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &a, tid, -1, group, PERF_FLAG_FD_CLOEXEC);
}

void pc_close(pc_set_t *s)
{
    for (int i = 0; i < PC_MAX_EVENTS; i++) {
        if (s->fd[i] >= 0) close(s->fd[i]);
        s->fd[i] = -1;
    }
}

int pc_open(pc_set_t *s, const pc_event_t *ev, int nev, pid_t tid)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < PC_MAX_EVENTS; i++) s->fd[i] = -1;
    if (nev < 1 || nev > PC_MAX_EVENTS) {
        s->err = EINVAL;
        return -EINVAL;
    }
    s->nev = nev;
    s->ev = ev;
    for (int i = 0; i < nev; i++) {
        s->fd[i] = open_one(&ev[i], tid, i ? s->fd[0] : -1);
        if (s->fd[i] < 0) {
            s->err = errno;
            s->err_event = ev[i].name;
            s->fd[i] = -1;
            pc_close(s);
            return -s->err;
        }
    }
    return 0;
}

int pc_reset_enable(pc_set_t *s)
{
    if (s->fd[0] < 0) return -1;
    if (ioctl(s->fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP)) return -1;
    return ioctl(s->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) ? -1 : 0;
}

int pc_disable(pc_set_t *s)
{
    if (s->fd[0] < 0) return -1;
    return ioctl(s->fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) ? -1 : 0;
}

int pc_read(pc_set_t *s, uint64_t out[PC_MAX_EVENTS])
{
    /* group format: nr, time_enabled, time_running, value[nr] */
    uint64_t buf[3 + PC_MAX_EVENTS];
    if (s->fd[0] < 0) return -1;
    ssize_t want = (ssize_t)((3 + s->nev) * sizeof(uint64_t));
    if (read(s->fd[0], buf, sizeof buf) < want || buf[0] != (uint64_t)s->nev) return -1;
    double scale = buf[2] ? (double)buf[1] / (double)buf[2] : 0.0;
    for (int i = 0; i < s->nev; i++) out[i] = buf[2] ? (uint64_t)((double)buf[3 + i] * scale + 0.5) : 0;
    return 0;
}
