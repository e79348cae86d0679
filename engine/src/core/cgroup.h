/* Two new cgroups for a pair of parties, as `perf bench sched pipe -G` puts
 * sender and receiver in given cgroups: the anatomy's cgroup rungs. Made
 * in the hierarchy that has the cpu controller (cgroup v2 if it has it,
 * else v1's cpu hierarchy), under the engine's own cgroup (v2: under the
 * root, which may hold processes beside its children), and removed on
 * teardown, on an error and from the signal handler (core/reap.c): the
 * engine is moved back first, then the directories go. Leftovers of an
 * engine that was killed outright are removed at the next creation. */
#ifndef CTXBENCH_CGROUP_H
#define CTXBENCH_CGROUP_H
#include <stddef.h>
#include <sys/types.h>

#define CG_PATH 384

typedef struct cg_pair {
    int live;
    int version;          /* 1 or 2 */
    int cpu_controller;   /* the new cgroups have the cpu controller */
    char top[CG_PATH];    /* .../ctxbench-<pid>-<n> */
    char dir[2][CG_PATH]; /* top/a, top/b */
    char home[CG_PATH];   /* the engine's cgroup before: where it goes back */
} cg_pair_t;

/* Make top/{a,b}; 0 ok, else -1 and one line in err. */
int cg_pair_create(cg_pair_t *c, char *err, size_t n);
/* Move process `pid` (0: the engine) into dir[which]. */
int cg_pair_enter(const cg_pair_t *c, int which, pid_t pid, char *err, size_t n);
/* The engine back home, the directories removed; async-signal-safe. */
void cg_pair_remove(cg_pair_t *c);
/* Every live pair removed (the signal handler's hook). */
void cg_remove_all(void);
#endif
