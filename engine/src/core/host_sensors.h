/* The host's state beside the core clock (docs/host-state.md).
 *
 * On a shared guest the clock is not all that moves between runs: the
 * kernel's entry and exit (a system call 128 to 176 ns from one run to the
 * next on an AMD EPYC guest, its clock steady), the memory system, the
 * instruction side. Each sensor times one of those on the measured CPU,
 * beside the clock probe (core/clock_probe.h: before every group's setup
 * and after its teardown, no party alive), so that a run can say what moved:
 *
 * - syscall: a rejected system call's round trip (a number past the
 *   kernel's table: ENOSYS), the kernel's entry and exit and the
 *   mitigations on them, no work inside;
 * - code: a walk through CODE_BYTES of distinct code, one jump per cache
 *   line, each 65 lines on (4160 bytes: another page, no next-line
 *   prefetch): what a neighbour's instruction-cache and iTLB pressure slow
 *   (NAN where no walk is written: the C fallback architectures);
 * - chase_l2, chase_llc: a dependent pointer chase, one cache line a step
 *   in a random cycle, over CHASE_L2_BYTES (beyond L1, within every L2 we
 *   know) and CHASE_LLC_BYTES (beyond most L2s): the last one's cycle is
 *   128 readings long, each reading going on where the last stopped, so it
 *   times what the last level kept of it for about 64 groups and memory's
 *   latency for what it did not: what neighbours' memory traffic moves;
 * - steal and the other CPUs' busy time, /proc/stat's counters at the
 *   reading (the front end differences them over the run).
 *
 * Each time is the best of SENSOR_REPS repetitions after one that warms
 * (the chase's buffer into its cache level, the code into the iTLB), sized
 * so that the sensors cost at most 2% of a default run (about 0.15 ms a
 * reading, two a group of about 15 ms). CTXBENCH_NO_SENSORS=1 leaves them
 * out (NAN): what bench/ compares their cost against. */
#ifndef CTXBENCH_HOST_SENSORS_H
#define CTXBENCH_HOST_SENSORS_H
#include "core/json.h"
#include <stdint.h>

#define SENSOR_REPS     2 /* timed repetitions, after one that warms */
#define SYSCALL_CALLS   64
#define CODE_BYTES      (64 * 1024)
#define CHASE_STEPS     2048
#define CHASE_L2_BYTES  (128 * 1024)      /* 2048 lines: the warming repetition covers its cycle */
#define CHASE_LLC_BYTES (2 * 1024 * 1024) /* 32768 lines: each reading goes on around the cycle */
#define CHASE_LLC_STEPS 256               /* one repetition: a line is back after 128 readings */

/* A system call number past the kernel's table: ENOSYS with no work (also
 * baseline/syscall-enosys). 32-bit ARM takes numbers from 0xf0000 as its
 * private calls and answers an unknown one with SIGILL, so there it is one
 * below those. */
#if defined(__arm__)
#define REJECTED_SYSCALL 0x7ffffL
#else
#define REJECTED_SYSCALL (-1L)
#endif

typedef struct host_sensors {
    double syscall_ns;      /* best repetition: ns per rejected system call */
    double code_ns;         /* ns per walk of the code (NAN: none here) */
    double chase_l2_ns;     /* ns per step of the L2-sized chase */
    double chase_llc_ns;    /* ns per step of the last-level-sized chase (one repetition) */
    double steal_ms;        /* /proc/stat: the measured CPU's steal, ms since boot (NAN: unreadable) */
    double own_total_ms;    /* the measured CPU's total time, ms since boot */
    double others_busy_ms;  /* the other CPUs' non-idle time, ms since boot */
    double others_total_ms; /* the other CPUs' total time, ms since boot */
} host_sensors_t;

/* One reading on the calling thread (the caller has moved it to the
 * measured CPU); `cpu` names that CPU's /proc/stat line. */
host_sensors_t host_sensors_read(int cpu);

/* The sensors' constants, as members of the clock probe's record. */
void host_sensors_describe(json_t *j);
#endif
