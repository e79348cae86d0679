/* Speculation mitigations a task can switch on for itself, without a
 * reboot, through prctl (Documentation/userspace-api/spec_ctrl.rst): the
 * anatomy's mitigation rungs. Each party applies it to itself; the engine's
 * own thread puts it back as it was afterwards, so later jobs run as before. */
#ifndef CTXBENCH_MITIGATION_H
#define CTXBENCH_MITIGATION_H
#include <stddef.h>

typedef enum {
    MIT_NONE = 0,
    MIT_IBPB,     /* indirect branch speculation disabled: IBPB when switching to or from the task */
    MIT_SSBD,     /* speculative store bypass disabled */
    MIT_L1D_FLUSH /* L1D flushed when the task is switched out */
} mitigation_t;

const char *mitigation_name(mitigation_t m);
/* 0 on success; else -1 and one line in err: the prctl, the kernel's
 * error and its mode from /sys/devices/system/cpu/vulnerabilities. */
int mitigation_apply(mitigation_t m, char *err, size_t n);
/* PR_GET_SPECULATION_CTRL's value for it (bits PR_SPEC_*), or -errno. */
long mitigation_state(mitigation_t m);
/* Put the calling thread back in state `before` (mitigation_state's value
 * before mitigation_apply): switched off again if it was off (best effort). */
void mitigation_restore(mitigation_t m, long before);
#endif
