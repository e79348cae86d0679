#include "core/host_sensors.h"
#include "core/clock.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static double rejected_calls_ns(void)
{
    uint64_t t0 = clock_ns();
    for (int i = 0; i < SYSCALL_CALLS; i++) syscall(REJECTED_SYSCALL);
    return (double)(clock_ns() - t0) / SYSCALL_CALLS;
}

/* /proc/stat at this moment: the measured CPU's steal and total time, the
 * others' busy and total time, in ms since boot (NAN where it cannot be read). */
static void proc_stat(int cpu, host_sensors_t *s)
{
    s->steal_ms = s->own_total_ms = s->others_busy_ms = s->others_total_ms = NAN;
    FILE *f = fopen("/proc/stat", "re");
    if (!f) return;
    double ms = 1000.0 / (double)sysconf(_SC_CLK_TCK);
    char line[512];
    double busy = 0, total = 0, steal = NAN, own = NAN;
    while (fgets(line, sizeof line, f)) {
        int k;
        unsigned long long v[10] = {0};
        if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9') continue;
        if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &k, &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) < 9)
            continue;
        /* user nice system idle iowait irq softirq steal (guest time is in user already) */
        double all = 0;
        for (int i = 0; i < 8; i++) all += (double)v[i];
        if (k == cpu) {
            steal = (double)v[7] * ms;
            own = all * ms;
        } else {
            busy += (all - (double)v[3] - (double)v[4]) * ms;
            total += all * ms;
        }
    }
    fclose(f);
    s->steal_ms = steal;
    s->own_total_ms = own;
    s->others_busy_ms = busy;
    s->others_total_ms = total;
}

host_sensors_t host_sensors_read(int cpu)
{
    host_sensors_t s;
    const char *off = getenv("CTXBENCH_NO_SENSORS");
    if (off && !strcmp(off, "1")) { /* exactly "1": "10" or "1abc" is no switch */
        s.syscall_ns = s.steal_ms = s.own_total_ms = s.others_busy_ms = s.others_total_ms = NAN;
        return s;
    }
    rejected_calls_ns(); /* warms the path */
    s.syscall_ns = rejected_calls_ns();
    proc_stat(cpu, &s);
    return s;
}

void host_sensors_describe(json_t *j)
{
    json_key(j, "sensors");
    json_obj_begin(j);
    json_kstr(j, "syscall", "a system call past the kernel's table, rejected with ENOSYS, ns per call");
    json_kint(j, "syscall_calls", SYSCALL_CALLS);
    json_kstr(j, "stat",
              "/proc/stat: the measured CPU's steal and total time, the other CPUs' busy and total time, "
              "ms since boot");
    json_obj_end(j);
}
