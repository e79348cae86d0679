#include "core/mitigation.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#ifndef PR_SET_SPECULATION_CTRL
#define PR_GET_SPECULATION_CTRL 52
#define PR_SET_SPECULATION_CTRL 53
#endif
#ifndef PR_SPEC_STORE_BYPASS
#define PR_SPEC_STORE_BYPASS 0
#endif
#ifndef PR_SPEC_INDIRECT_BRANCH
#define PR_SPEC_INDIRECT_BRANCH 1
#endif
#ifndef PR_SPEC_L1D_FLUSH
#define PR_SPEC_L1D_FLUSH 2
#endif
#ifndef PR_SPEC_ENABLE
#define PR_SPEC_ENABLE  (1UL << 1)
#define PR_SPEC_DISABLE (1UL << 2)
#endif

typedef struct {
    const char *name, *which, *vuln;
    unsigned long which_v, on, off; /* for L1D flush, "enable" means flush: the opposite sense */
} mit_info_t;

static const mit_info_t info[] = {
    [MIT_NONE] = {"none", "", "", 0, 0, 0},
    [MIT_IBPB] = {"ibpb", "PR_SPEC_INDIRECT_BRANCH, PR_SPEC_DISABLE", "spectre_v2", PR_SPEC_INDIRECT_BRANCH,
                  PR_SPEC_DISABLE, PR_SPEC_ENABLE},
    [MIT_SSBD] = {"ssbd", "PR_SPEC_STORE_BYPASS, PR_SPEC_DISABLE", "spec_store_bypass", PR_SPEC_STORE_BYPASS,
                  PR_SPEC_DISABLE, PR_SPEC_ENABLE},
    [MIT_L1D_FLUSH] = {"l1d-flush", "PR_SPEC_L1D_FLUSH, PR_SPEC_ENABLE", "l1tf", PR_SPEC_L1D_FLUSH,
                       PR_SPEC_ENABLE, PR_SPEC_DISABLE},
};

const char *mitigation_name(mitigation_t m)
{
    return info[m].name;
}

/* The first line of the kernel's mode for it, e.g. "Mitigation: ..." */
static void vuln_mode(const char *file, char *out, size_t n)
{
    char path[160];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/vulnerabilities/%s", file);
    FILE *f = fopen(path, "r");
    snprintf(out, n, "(no %s file)", file);
    if (!f) return;
    if (fgets(out, (int)n, f)) out[strcspn(out, "\n")] = 0;
    fclose(f);
}

int mitigation_apply(mitigation_t m, char *err, size_t n)
{
    if (m == MIT_NONE) return 0;
    const mit_info_t *i = &info[m];
    if (prctl(PR_SET_SPECULATION_CTRL, i->which_v, i->on, 0, 0) == 0) return 0;
    int e = errno;
    char mode[200];
    vuln_mode(i->vuln, mode, sizeof mode);
    snprintf(err, n, "%s on switch not available: prctl(PR_SET_SPECULATION_CTRL, %s) refused: %s; %s: %s",
             i->name, i->which, strerror(e), i->vuln, mode);
    return -1;
}

long mitigation_state(mitigation_t m)
{
    if (m == MIT_NONE) return 0;
    long v = prctl(PR_GET_SPECULATION_CTRL, info[m].which_v, 0, 0, 0);
    return v < 0 ? -errno : v;
}

void mitigation_restore(mitigation_t m, long before)
{
    /* back off only if it was off: a task that had it on (inherited from
     * the engine's parent) keeps it, so later jobs run as they would have */
    if (m != MIT_NONE && before >= 0 && (before & (long)info[m].off))
        prctl(PR_SET_SPECULATION_CTRL, info[m].which_v, info[m].off, 0, 0);
}
