/* The parties of a shared-memory benchmark (kernel/pingpong.c,
 * ring/ring.c, tasks/pair.c), each function one step: a block every party
 * sees, a party started as a forked process or as a thread, and the
 * handshake by which the measuring party waits until the others are set
 * up. */
#ifndef CTXBENCH_PARTY_H
#define CTXBENCH_PARTY_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* `len` zeroed bytes shared with forked children (MAP_SHARED |
 * MAP_ANONYMOUS); munmap them. NULL after bench_error("mmap[ what]: ..."),
 * `what` (may be NULL) naming the block in the message. */
void *party_shared_map(size_t len, const char *what);

/* Start a party running fn(arg). `arg` (`size` bytes) is copied first, so
 * the caller's copy may go. process: a child from reap_fork(), which
 * _exits when fn returns, into *child; else a thread with `stack` bytes of
 * stack, into *thread. 0, or -1 after bench_error. */
typedef void (*party_fn_t)(void *arg);
int party_start(int process, party_fn_t fn, const void *arg, size_t size, size_t stack, pid_t *child,
                pthread_t *thread);

/* The handshake: each started party calls party_ready once it is set up;
 * the measuring party waits (polling every ms, bounded by timeout_ns)
 * until `want` have. 0 when they have, -1 on timeout (the caller says
 * which party is missing). */
void party_ready(uint32_t *ready);
int party_wait_ready(const uint32_t *ready, uint32_t want, uint64_t timeout_ns);
#endif
