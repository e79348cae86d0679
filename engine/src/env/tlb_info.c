#include "env/tlb_info.h"
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static int add(tlb_level_t *o, int n, int level, int entries, int ways, const char *kind)
{
    if (n >= TLB_MAX || entries <= 0) return n;
    o[n] = (tlb_level_t){level, entries, ways, kind};
    return n + 1;
}

/* Leaf 0x18: one subleaf per translation structure. */
static int leaf18(tlb_level_t *o)
{
    unsigned a, b, c, d, max;
    if (__get_cpuid_max(0, NULL) < 0x18) return 0;
    __cpuid_count(0x18, 0, max, b, c, d);
    int n = 0;
    for (unsigned s = 0; s <= max && s < 32; s++) {
        __cpuid_count(0x18, s, a, b, c, d);
        unsigned type = d & 0x1f, level = (d >> 5) & 7;
        if (!type || !(b & 1)) continue;      /* invalid, or no 4 KiB pages */
        if (type == 2 || type == 5) continue; /* instruction / store-only */
        int ways = (d >> 8) & 1 ? -1 : (int)(b >> 16);
        int entries = (int)((b >> 16) * c);
        n = add(o, n, (int)level, entries, ways, type == 1 ? "data" : type == 4 ? "load" : "unified");
    }
    return n;
}

/* Leaf 2: one-byte descriptors; only those describing data TLBs with 4 KiB
 * pages (Intel SDM vol. 2, table 3-12). */
static int leaf2(tlb_level_t *o)
{
    static const struct {
        unsigned char desc;
        int level, entries, ways;
        const char *kind;
    } t[] = {
        {0x03, 1, 64, 4, "data"},      {0x5b, 1, 64, -1, "data"}, {0x5c, 1, 128, -1, "data"},
        {0x5d, 1, 256, -1, "data"},    {0xb3, 1, 128, 4, "data"}, {0xb4, 1, 256, 4, "data"},
        {0xba, 1, 64, 4, "data"},      {0xc0, 1, 8, 4, "data"},   {0xc1, 2, 1024, 8, "unified"},
        {0xc3, 2, 1536, 6, "unified"}, {0xc4, 1, 32, 4, "data"},  {0xca, 2, 512, 4, "unified"},
    };
    unsigned r[4];
    if (__get_cpuid_max(0, NULL) < 2) return 0;
    __cpuid(2, r[0], r[1], r[2], r[3]);
    int n = 0;
    for (int k = 0; k < 4; k++) {
        if (r[k] & 0x80000000u) continue;             /* register holds no descriptors */
        for (int byte = (k == 0); byte < 4; byte++) { /* al is the iteration count */
            unsigned char dsc = (unsigned char)(r[k] >> (8 * byte));
            for (size_t i = 0; i < sizeof t / sizeof *t; i++)
                if (t[i].desc == dsc) n = add(o, n, t[i].level, t[i].entries, t[i].ways, t[i].kind);
        }
    }
    return n;
}

static int amd(tlb_level_t *o)
{
    unsigned a, b, c, d, vend[3];
    __cpuid(0, a, vend[0], vend[2], vend[1]);
    if (memcmp(vend, "AuthenticAMD", 12) && memcmp(vend, "HygonGenuine", 12)) return 0;
    if (__get_cpuid_max(0x80000000u, NULL) < 0x80000006u) return 0;
    int n = 0;
    __cpuid(0x80000005u, a, b, c, d);
    n = add(o, n, 1, (int)((b >> 16) & 0xff), (int)(b >> 24) == 0xff ? -1 : (int)(b >> 24), "data");
    __cpuid(0x80000006u, a, b, c, d);
    n = add(o, n, 2, (int)((b >> 16) & 0xfff), 0, "data");
    return n;
}

int tlb_probe(tlb_level_t out[TLB_MAX], const char **source)
{
    int n;
    if ((n = leaf18(out))) {
        *source = "cpuid leaf 0x18";
        return n;
    }
    if ((n = leaf2(out))) {
        *source = "cpuid leaf 2";
        return n;
    }
    if ((n = amd(out))) {
        *source = "cpuid 0x80000005/6";
        return n;
    }
    *source = NULL;
    return 0;
}
#else
int tlb_probe(tlb_level_t out[TLB_MAX], const char **source)
{
    (void)out;
    *source = NULL; /* no portable source elsewhere: say nothing rather than guess */
    return 0;
}
#endif

void tlb_section(json_t *j)
{
    tlb_level_t t[TLB_MAX];
    const char *src = NULL;
    int n = tlb_probe(t, &src);
    json_key(j, "tlb");
    json_obj_begin(j);
    json_kint(j, "page_size", (int64_t)sysconf(_SC_PAGESIZE));
    json_kstr(j, "source", src);
    json_key(j, "dtlb");
    json_arr_begin(j);
    for (int i = 0; i < n; i++) {
        json_obj_begin(j);
        json_kint(j, "level", t[i].level);
        json_kint(j, "entries", t[i].entries);
        json_kint(j, "page_size", 4096);
        if (t[i].ways) json_kint(j, "ways", t[i].ways);
        json_kstr(j, "kind", t[i].kind);
        json_obj_end(j);
    }
    json_arr_end(j);
    if (!n)
        json_kstr(j, "note",
                  "the CPU does not report its data TLB (cpuid leaf 0x18 empty or hidden by the hypervisor)");
    json_obj_end(j);
}
