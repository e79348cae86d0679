#include "core/placement.h"
#include "core/clock.h"
#include <stdint.h>
#include <unistd.h>

/* splitmix64 over the clock, the pid and a counter: no system call, and
 * different in every group and every process (no need for a cryptographic
 * source: the draws only have to be unrelated to the layout). */
size_t placement_offset(void)
{
    static uint64_t count;
    uint64_t x = clock_ns() ^ ((uint64_t)getpid() << 32) ^ (++count * 0x9e3779b97f4a7c15ull);
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return (size_t)(x % (PLACEMENT_SPAN / PLACEMENT_LINE)) * PLACEMENT_LINE;
}
