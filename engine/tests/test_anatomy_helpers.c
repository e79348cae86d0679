/* The anatomy's task properties do what they say. Vector state: after
 * vector_state_dirty() the CPU itself reports the chosen state in use
 * (x86: XINUSE, XGETBV with ECX = 1, where the CPU has it), so the switch
 * has that state to save. Mitigations: a prctl the kernel accepts reads
 * back as asked, and mitigation_restore puts the thread back exactly as it
 * was (later jobs unaffected); one it refuses is one line naming the prctl
 * and changes nothing. */
#include "check.h"
#include "core/mitigation.h"
#include "core/vector_state.h"
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
static int have_xinuse(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) return 0;
    return __get_cpuid_count(0xd, 1, &a, &b, &c, &d) && (a & (1u << 2));
}
static unsigned long long xinuse(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
    return ((unsigned long long)hi << 32) | lo;
}
#endif

static void check_vector_state(void)
{
    const char *k = vector_state_kind();
    const char *known[] = {"avx512", "avx", "sse", "fpsimd", "vfp", "none"};
    int found = 0;
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) found |= !strcmp(k, known[i]);
    CHECK(found, "unknown kind %s", k);
    CHECK(!strcmp(vector_state_kind(), k), "kind chosen once");
    vector_state_dirty(); /* on every architecture: runs, clobbers only what it may */
#if defined(__x86_64__)
    CHECK(strcmp(k, "fpsimd") && strcmp(k, "vfp") && strcmp(k, "none"), "x86-64 has at least SSE: %s", k);
    if (!have_xinuse()) {
        printf("note: no XGETBV(1) here; vector state not checked by the CPU\n");
        return;
    }
    /* XINUSE bits: 1 SSE, 2 AVX upper halves, 5 opmask, 6 ZMM_Hi256, 7 Hi16_ZMM */
    unsigned long long want = !strcmp(k, "avx512") ? 0xe0 : !strcmp(k, "avx") ? 0x4 : 0x2;
    if (strcmp(k, "sse")) __asm__ volatile("vzeroupper" ::: "memory");
    unsigned long long clean = xinuse();
    vector_state_dirty();
    unsigned long long dirty = xinuse();
    CHECK((dirty & want) == want, "%s: XINUSE %#llx lacks %#llx after dirtying", k, dirty, want);
    /* where the CPU showed the upper halves clean, the dirtying set them */
    if (strcmp(k, "sse") && (clean & 0x4) == 0)
        CHECK(dirty & 0x4, "%s: upper halves still clean after dirtying", k);
#endif
}

static void check_mitigation(mitigation_t m, long on_bit)
{
    const char *name = mitigation_name(m);
    long before = mitigation_state(m);
    char err[400] = "";
    if (mitigation_apply(m, err, sizeof err)) {
        CHECK(err[0] && !strchr(err, '\n'), "%s: refusal must be one line: %s", name, err);
        CHECK(strstr(err, "prctl(PR_SET_SPECULATION_CTRL") && strstr(err, "refused") && strstr(err, name),
              "%s: refusal names the prctl: %s", name, err);
        CHECK(mitigation_state(m) == before, "%s: a refused prctl changed the state", name);
        printf("note: %s\n", err);
        return;
    }
    long on = mitigation_state(m);
    CHECK(on >= 0 && (on & on_bit), "%s: state %ld after apply lacks %ld", name, on, on_bit);
    mitigation_restore(m, before);
    CHECK(mitigation_state(m) == before, "%s: state %ld after restore, %ld before", name, mitigation_state(m),
          before);
    /* it was on before: restore leaves it on */
    if (mitigation_apply(m, err, sizeof err) == 0) {
        mitigation_restore(m, mitigation_state(m));
        CHECK(mitigation_state(m) & on_bit, "%s: restore switched off what was on before", name);
        mitigation_restore(m, before);
        CHECK(mitigation_state(m) == before, "%s: not back to %ld", name, before);
    }
}

int main(void)
{
    check_vector_state();
    check_mitigation(MIT_IBPB, 4); /* PR_SPEC_DISABLE: speculation off */
    check_mitigation(MIT_SSBD, 4);
    check_mitigation(MIT_L1D_FLUSH, 2); /* PR_SPEC_ENABLE: the flush on */
    CHECK(mitigation_state(MIT_NONE) == 0, "none has no state");
    CHECK_DONE("anatomy helpers (vector state, mitigations)");
}
