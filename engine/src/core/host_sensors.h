/* The host's state beside the core clock (docs/host-state.md).
 *
 * On a shared guest the clock is not all that moves between runs: the
 * kernel's entry and exit moved 128 to 176 ns from one run to the next on
 * an AMD EPYC guest, its clock steady, and the kernel's switches with it.
 * The sensors are read on the measured CPU beside the clock probe
 * (core/clock_probe.h: before every group's setup and after its teardown,
 * no party alive), so that a run can say what moved:
 *
 * - syscall: a rejected system call's round trip (a number past the
 *   kernel's table: ENOSYS), the kernel's entry and exit and the
 *   mitigations on them, no work inside: SYSCALL_CALLS calls after as many
 *   that warm;
 * - steal and the other CPUs' busy time, /proc/stat's counters at the
 *   reading (the front end differences them over the run).
 *
 * Kept by experiment (docs/host-state.md, 2026-11-28): a walk through 64
 * KiB of code and pointer chases at L2 and 2 MiB explained nothing the
 * clock did not, and their buffers, made anew in every engine process,
 * cost a default run 2.2%. CTXBENCH_NO_SENSORS=1 leaves the sensors out
 * (NAN): what bench/ compares their cost against. */
#ifndef CTXBENCH_HOST_SENSORS_H
#define CTXBENCH_HOST_SENSORS_H
#include "core/json.h"
#include <stdint.h>

#define SYSCALL_CALLS 64

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
    double syscall_ns;      /* ns per rejected system call */
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
