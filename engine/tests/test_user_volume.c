/* Volume: 10^7 round trips between two contexts (argv[1] overrides the
 * count), each carrying a sequence number both ways through the transfer
 * value and a shared counter; nothing is lost, duplicated or reordered. */
#include "check.h"
#include "user/uctx.h"
#include <stdlib.h>

static uctx_t a, b;
static volatile uint64_t b_count;
static uint64_t b_bad;

static void b_entry(void *d, void *first)
{
    (void)d;
    uintptr_t v = (uintptr_t)first;
    for (;;) {
        if (v != (uintptr_t)b_count) b_bad++;
        b_count++;
        v = (uintptr_t)uctx_switch(&b, &a, (void *)(v + 1));
    }
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000ull;
    uctx_stack_t st;
    CHECK(uctx_stack_alloc(&st, 64 * 1024) == 0, "stack");
    CHECK(uctx_make(&b, &st, b_entry, NULL) == 0, "make");
    uint64_t bad = 0;
    for (uint64_t i = 0; i < n; i++) {
        uintptr_t r = (uintptr_t)uctx_switch(&a, &b, (void *)(uintptr_t)i);
        if (r != (uintptr_t)i + 1) bad++;
    }
    CHECK(bad == 0, "%llu wrong replies", (unsigned long long)bad);
    CHECK(b_bad == 0, "B saw %llu out-of-order values", (unsigned long long)b_bad);
    CHECK(b_count == n, "B ran %llu of %llu times", (unsigned long long)b_count, (unsigned long long)n);
    uctx_stack_free(&st);
    CHECK_DONE("user-level switch: volume");
}
