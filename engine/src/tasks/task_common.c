/* Task registry, the even split of a task's work, the fixed-seed input and
 * the cold-cache flush shared by the four tasks. */
#include "tasks/task.h"
#include "core/bench.h"
#include "core/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const task_ops_t task_sort, task_deflate, task_aes, task_crc, task_empty, task_chase;
static const task_ops_t *const all_tasks[] = {&task_sort, &task_deflate, &task_aes,
                                              &task_crc,  &task_empty,   &task_chase};

const task_ops_t *task_find(const char *name)
{
    for (size_t i = 0; i < sizeof all_tasks / sizeof *all_tasks; i++)
        if (!strcmp(all_tasks[i]->name, name)) return all_tasks[i];
    return NULL;
}

const char *task_names(void)
{
    return "sort, deflate, aes, crc, empty, chase";
}

int task_init(task_t *t, const char *name, double scale, size_t size)
{
    memset(t, 0, sizeof *t);
    t->size = size;
    t->ops = task_find(name);
    if (!t->ops) {
        bench_error("unknown task '%s' (tasks: %s)", name, task_names());
        return -1;
    }
    if (!t->ops->available) {
        bench_error("task '%s' is not available in this build", name);
        return -1;
    }
    t->scale = scale > 0 ? scale : 1;
    if (t->ops->init(t)) return -1;
    t->ops->reset(t);
    return 0;
}

void task_fini(task_t *t)
{
    if (t->ops && t->ops->fini) t->ops->fini(t);
    t->ops = NULL;
}

uint64_t task_run_all(task_t *t)
{
    t->ops->reset(t);
    t->ops->run(t, 0, t->units);
    return t->ops->result(t);
}

void task_split(const task_t *t, size_t nseg, size_t *bounds)
{
    size_t u = t->units;
    bounds[0] = 0;
    for (size_t k = 1; k <= nseg; k++)
        bounds[k] = (size_t)((uint64_t)u * k / nseg); /* u, k < 2^32: no overflow */
}

uint64_t task_rng(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Words drawn from a small vocabulary: text that deflate compresses about
 * 3:1, like the documents David et al.'s deflate task would see. */
void task_fill_text(uint8_t *p, size_t len, uint64_t seed)
{
    static const char *const words[] = {"context", "switch", "the",       "of",        "cache",  "kernel",
                                        "task",    "and",    "interrupt", "overhead",  "direct", "indirect",
                                        "a",       "to",     "linux",     "processor", "memory", "is",
                                        "in",      "time",   "TLB",       "page",      "run",    "n"};
    uint64_t s = seed ? seed : 1;
    size_t i = 0;
    while (i < len) {
        uint64_t r = task_rng(&s);
        const char *w = words[r % (sizeof words / sizeof *words)];
        for (; *w && i < len; w++) p[i++] = (uint8_t)*w;
        if (i < len) p[i++] = (r >> 32) % 13 ? ' ' : (r >> 40) % 2 ? '\n' : '.';
        if (i < len && (r >> 48) % 29 == 0) p[i++] = (uint8_t)('0' + (r >> 56) % 10);
    }
}

size_t cache_size_bytes(int level, int data)
{
    char path[128], buf[64];
    size_t best = 0;
    for (int i = 0; i < 16; i++) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (read_file_str(path, buf, sizeof buf)) break;
        if (atoi(buf) != level) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (read_file_str(path, buf, sizeof buf)) continue;
        if (data && strcmp(buf, "Data") && strcmp(buf, "Unified")) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (read_file_str(path, buf, sizeof buf)) continue;
        uint64_t v;
        if (parse_size(buf, &v) == 0 && v > best) best = (size_t)v;
    }
    return best;
}

size_t cache_flush_len(void)
{
    size_t llc = 0;
    for (int l = 4; l >= 1 && !llc; l--) llc = cache_size_bytes(l, 1);
    if (!llc) llc = 32u << 20;
    size_t len = 3 * llc;                     /* several times the LLC */
    if (len > (512u << 20)) len = 512u << 20; /* bounded: memory and time */
    if (len < (8u << 20)) len = 8u << 20;
    return len;
}

void cache_flush(uint8_t *buf, size_t len)
{
    /* Writing evicts (and makes dirty, then written back) every line the
     * tasks had; reading it back replaces those lines with clean ones and
     * walks len/4096 pages, which evicts the TLB entries as well. */
    volatile uint64_t sink = 0;
    for (size_t i = 0; i < len; i += 64) buf[i] = (uint8_t)i;
    uint64_t s = 0;
    for (size_t i = 0; i < len; i += 64) s += buf[i];
    sink = s;
    (void)sink;
}

double task_scale(const run_opts_t *o)
{
    return o->task_scale > 0 ? o->task_scale : 1;
}
