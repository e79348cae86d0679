/* The data TLB's entries for 4 KiB pages and the base page size, for the
 * sweep's "dTLB reach" (entries x page size). From the CPU where it says:
 * cpuid leaf 0x18 (deterministic address translation), else leaf 2
 * descriptors (Intel), else leaves 0x80000005/6 (AMD); nothing elsewhere. */
#ifndef CTXBENCH_TLB_INFO_H
#define CTXBENCH_TLB_INFO_H
#include "core/json.h"

typedef struct tlb_level {
    int level;        /* 1: first-level dTLB, 2: second-level (shared) TLB */
    int entries;      /* for 4 KiB pages */
    int ways;         /* 0: unknown, -1: fully associative */
    const char *kind; /* "data", "load", "unified" */
} tlb_level_t;

#define TLB_MAX 4
/* Fill up to TLB_MAX levels; returns the count and the source name. */
int tlb_probe(tlb_level_t out[TLB_MAX], const char **source);
/* The environment record's "tlb" member. */
void tlb_section(json_t *j);
#endif
