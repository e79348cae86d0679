/* Is the engine running under a user-mode emulator (qemu-user)? Timings
 * taken there measure the emulator, not the CPU: the environment record says
 * so and the front end warns. */
#ifndef CTXBENCH_EMULATION_H
#define CTXBENCH_EMULATION_H
#include <stddef.h>

/* 1 if emulated, 0 if not; `evidence` gets what was seen (empty if none). */
int emulation_detect(char *evidence, size_t len);
#endif
