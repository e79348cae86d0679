/* The core-clock probe (docs/method.md#core-cycles).
 *
 * On a shared or virtual machine the core clock a run gets moves between
 * runs and within them, and it moves every CPU-bound number together. The
 * probe times a dependent chain of single-cycle register-register adds
 * (no memory, no branch to mispredict, no system call): its time is its
 * cycle count over the core clock, so it gives the effective clock f in
 * cycles per ns, and a sample's ns times f is its core cycles. Nothing a
 * benchmark studies (caches, TLB, the kernel's switch path, interrupts,
 * mitigations) is in the chain, so dividing by it cannot cancel them.
 *
 * add reg,reg, not add reg,imm: recent Intel cores fold chains of
 * add-immediate at register renaming (docs/cycles.md: 0.07 ns per dependent
 * `add $1` on a Xeon guest, four per cycle). A second chain of a known
 * other latency (x86-64: imul reg,reg, 3 cycles on every Intel core since
 * Nehalem and every AMD Zen) checks the first: their ratio must be that
 * latency, or the add chain is not one cycle per op on this core. Where a
 * PMU's cycles event can be read, the add chain's counted cycles per op are
 * recorded too.
 *
 * The harness takes a reading on the measured CPU before every group's
 * setup and after its teardown (core/harness.c), with no party alive, so a
 * third task, an interrupt burn or a mitigation the group adds cannot
 * touch it. Each time is the best of several repetitions: an interrupt or
 * a hypervisor's pause lengthens one repetition, not the clock. */
#ifndef CTXBENCH_CLOCK_PROBE_H
#define CTXBENCH_CLOCK_PROBE_H
#include "core/host_sensors.h"
#include "core/json.h"
#include <stdint.h>

#define PROBE_OPS        131072 /* dependent adds per repetition (~35 us at 3.7 GHz) */
#define PROBE_REPS       5
#define PROBE_CHECK_OPS  32768 /* dependent multiplies per repetition */
#define PROBE_CHECK_REPS 3
/* The candidate it was compared with (docs/cycles.md): reference/cpu's
 * branchy walk of a 16 KiB table, timed the same way per group. Not a
 * clock (its time also holds the branch predictor's and L1's work), so
 * its unit would be "walk steps", never cycles. */
#define PROBE_WALK_STEPS 8000

typedef struct clock_probe {
    double add_ns;            /* best repetition: ns for PROBE_OPS dependent adds */
    double check_ns;          /* best repetition: ns for PROBE_CHECK_OPS dependent multiplies */
    double walk_ns;           /* best repetition: ns for PROBE_WALK_STEPS steps of the walk */
    double pmu_cycles_per_op; /* counted user cycles per add (the PMU), NAN where none */
    int cpu;                  /* the CPU it ran on (-1: unknown) */
    host_sensors_t sensors;   /* the host's state beside the clock (core/host_sensors.h) */
} clock_probe_t;

/* One reading on `cpu`, the host's sensors with it (the calling thread is
 * moved there for the reading and its affinity restored; cpu < 0: where it
 * runs). */
clock_probe_t clock_probe_read(int cpu);

/* The add chain alone, best of PROBE_QUICK_REPS, on `cpu` (as
 * clock_probe_read): ns for PROBE_OPS adds. For a benchmark whose one
 * sample holds runs long enough to take a reading beside each (a task
 * pair's run, irq's plain and forced runs): each run then has its own
 * clock, not only its group's. */
#define PROBE_QUICK_REPS 3
double clock_probe_quick(int cpu);

/* The probe's constants and its check chain's latency (0 where no fixed
 * latency is known on this architecture) as members of an open object. */
void clock_probe_describe(json_t *j);
/* The engine runs under a user-mode emulator (qemu-user): the probe then
 * times the emulator, and its record says so (the command line, which
 * detects it in env/, tells core/ here). */
void clock_probe_mark_emulated(const char *evidence);
/* Why the PMU's cycles event is not read ("" where it is). */
const char *clock_probe_pmu_error(void);
#endif
