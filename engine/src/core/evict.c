#include "core/evict.h"

#define LINE 64

int evict_supported(void)
{
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    return 1;
#else
    return 0;
#endif
}

void evict_lines(work_t *w, unsigned lines)
{
    if (!w->a) return;
    size_t max = w->size / LINE;
    size_t k = lines < max ? lines : max;
    char *p = (char *)w->a;
    for (size_t i = 0; i < k; i++) {
#if defined(__x86_64__) || defined(__i386__)
        __asm__ __volatile__("clflush (%0)" ::"r"(p + i * LINE) : "memory");
#elif defined(__aarch64__)
        __asm__ __volatile__("dc civac, %0" ::"r"(p + i * LINE) : "memory");
#else
        (void)p; /* no eviction here (evict_supported() says 0) */
#endif
    }
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("mfence" ::: "memory");
#elif defined(__aarch64__)
    __asm__ __volatile__("dsb ish" ::: "memory");
#endif
}
