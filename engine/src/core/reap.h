/* No orphan survives a run: every child the engine forks is registered
 * here; SIGINT, SIGTERM, SIGHUP, the watchdog alarm and the death of the
 * engine's own parent all end in killing and reaping them. */
#ifndef CTXBENCH_REAP_H
#define CTXBENCH_REAP_H
#include <sys/types.h>

void reap_install(void);     /* signal handlers + parent-death signal */
pid_t reap_fork(void);       /* fork(); the child dies with the engine */
void reap_forget(pid_t pid); /* after a successful waitpid */
void reap_kill_all(void);    /* SIGKILL and reap every child */
/* One async-signal-safe cleanup the signal handler runs before the engine
 * exits (atexit handlers do not run past _exit): the output's temp file. */
void reap_on_exit(void (*fn)(void));
/* More async-signal-safe cleanups (e.g. cgroups the engine made), run by
 * the signal handler after the children are reaped; each added once. */
void reap_add_cleanup(void (*fn)(void));
/* Arm the wall-clock watchdog for the benchmark `what` (0 disarms). */
void watchdog_arm(unsigned seconds, const char *what);
/* Register a fd to close (e.g. /dev/cpu_dma_latency) — kernel closes it at
 * exit anyway; kept for symmetry of cleanup messages. */
#endif
