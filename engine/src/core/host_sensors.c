#include "core/host_sensors.h"
#include "core/clock.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LINE 64

static volatile uint64_t sink;

static double rejected_calls_ns(void)
{
    uint64_t t0 = clock_ns();
    for (int i = 0; i < SYSCALL_CALLS; i++) syscall(REJECTED_SYSCALL);
    return (double)(clock_ns() - t0) / SYSCALL_CALLS;
}

/* The code walk: CODE_BYTES / LINE jumps through distinct cache lines, each
 * to the line CODE_STRIDE on (mod the region, one cycle: the stride is odd),
 * entered at that line and left at line 0, whose jump goes out. */
#define CODE_LINES  (CODE_BYTES / LINE)
#define CODE_STRIDE 65
#if defined(__x86_64__)
#define JUMP "jmp"
#elif defined(__aarch64__) || defined(__arm__)
#define JUMP "b"
#endif
#ifdef JUMP
#define STR_(x) #x
#define STR(x)  STR_(x)
static void code_walk(void)
{
    /* clang-format off */
    __asm__ volatile(
        JUMP " 2f + " STR(CODE_STRIDE * LINE) "\n\t"
        ".p2align 6\n2:\n\t"
        ".set ctxbench_line, 0\n\t"
        ".rept " STR(CODE_LINES) "\n\t"
        ".if ctxbench_line == 0\n\t" JUMP " 3f\n\t"
        ".elseif ctxbench_line + " STR(CODE_STRIDE) " < " STR(CODE_LINES) "\n\t"
        JUMP " . + " STR(CODE_STRIDE * LINE) "\n\t"
        ".else\n\t" JUMP " . - " STR((CODE_LINES - CODE_STRIDE) * LINE) "\n\t"
        ".endif\n\t"
        ".p2align 6\n\t"
        ".set ctxbench_line, ctxbench_line + 1\n\t"
        ".endr\n3:" ::: "memory");
    /* clang-format on */
}
static double code_ns(void)
{
    uint64_t t0 = clock_ns();
    code_walk();
    return (double)(clock_ns() - t0);
}
#else
static double code_ns(void)
{
    return NAN;
}
#endif

/* A chase's buffer: one pointer per cache line, the lines in one random
 * cycle (Sattolo's shuffle: every line once), made once per process. */
typedef struct chase {
    void **start;
    size_t bytes;
    int steps;
} chase_t;

static void *chase_make(size_t bytes)
{
    size_t n = bytes / LINE;
    char *buf = aligned_alloc(4096, bytes);
    size_t *order = malloc(n * sizeof *order);
    if (!buf || !order) {
        free(buf);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) order[i] = i;
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (size_t i = n - 1; i > 0; i--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t j = (size_t)(x % i); /* j < i: one cycle through all */
        size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < n; i++) *(void **)(buf + order[i] * LINE) = buf + order[(i + 1) % n] * LINE;
    free(order);
    return buf;
}

static double chase_ns(chase_t *c)
{
    if (!c->start) c->start = chase_make(c->bytes);
    if (!c->start) return NAN;
    void **p = c->start;
    uint64_t t0 = clock_ns();
    for (int i = 0; i < c->steps; i++) p = (void **)*p;
    double ns = (double)(clock_ns() - t0) / c->steps;
    c->start = p; /* the next repetition goes on where this one stopped */
    sink += (uintptr_t)p;
    return ns;
}

/* The best of SENSOR_REPS repetitions after a warming one. */
static double best_of(double (*once)(void *), void *arg)
{
    double best = INFINITY;
    once(arg);
    for (int r = 0; r < SENSOR_REPS; r++) best = fmin(best, once(arg));
    return best;
}
static double calls_once(void *arg)
{
    return (void)arg, rejected_calls_ns();
}
static double code_once(void *arg)
{
    return (void)arg, code_ns();
}
static double chase_once(void *arg)
{
    return chase_ns(arg);
}

/* /proc/stat at this moment: the measured CPU's steal, the others' busy
 * and total time, in ms since boot (NAN where it cannot be read). */
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
    static __thread chase_t l2 = {NULL, CHASE_L2_BYTES, CHASE_STEPS},
                            llc = {NULL, CHASE_LLC_BYTES, CHASE_LLC_STEPS};
    host_sensors_t s;
    const char *off = getenv("CTXBENCH_NO_SENSORS");
    if (off && off[0] == '1') {
        s.syscall_ns = s.code_ns = s.chase_l2_ns = s.chase_llc_ns = NAN;
        s.steal_ms = s.own_total_ms = s.others_busy_ms = s.others_total_ms = NAN;
        return s;
    }
    s.syscall_ns = best_of(calls_once, NULL);
    s.code_ns = best_of(code_once, NULL);
    s.chase_l2_ns = best_of(chase_once, &l2);
    s.chase_llc_ns = chase_ns(&llc); /* no warming: what it times is what is left of the last visit */
    proc_stat(cpu, &s);
    return s;
}

void host_sensors_describe(json_t *j)
{
    json_key(j, "sensors");
    json_obj_begin(j);
    json_kstr(j, "syscall", "a system call past the kernel's table, rejected with ENOSYS, ns per call");
    json_kint(j, "syscall_calls", SYSCALL_CALLS);
#ifdef JUMP
    json_kstr(j, "code", "a jump per cache line through distinct code, each 65 lines on, ns per walk");
#else
    json_kstr(j, "code", "none on this architecture");
#endif
    json_kint(j, "code_bytes", CODE_BYTES);
    json_kstr(j, "chase", "dependent loads, a cache line a step in one random cycle, ns per step");
    json_kint(j, "chase_steps", CHASE_STEPS);
    json_kint(j, "chase_llc_steps", CHASE_LLC_STEPS);
    json_kint(j, "chase_l2_bytes", CHASE_L2_BYTES);
    json_kint(j, "chase_llc_bytes", CHASE_LLC_BYTES);
    json_kint(j, "reps", SENSOR_REPS);
    json_kstr(j, "stat",
              "/proc/stat: the measured CPU's steal and total time, the other CPUs' busy and total time, ms "
              "since boot");
    json_obj_end(j);
}
