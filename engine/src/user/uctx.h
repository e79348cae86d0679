/* Portable user-level context switch (docs/method.md#user-level-switches).
 *
 * A context is a stack pointer. uctx_switch saves exactly the callee-saved
 * state of the ABI on the current stack, stores the stack pointer in *from,
 * loads to->sp and resumes there; the value `arg` comes out as the return
 * value of the switch that suspended `to` (or as the entry's second argument
 * on the first resume). The switches live in engine/arch/<arch>/switch_*.S:
 *   x86_64 (System V): rbx rbp r12-r15 rsp, MXCSR control, x87 control word
 *   aarch64 (AAPCS64): x19-x30 sp d8-d15
 *   armv7 (AAPCS, VFP): r4-r11 lr sp d8-d15
 * No system call anywhere on the switch path (unlike swapcontext). */
#ifndef CTXBENCH_UCTX_H
#define CTXBENCH_UCTX_H
#include <stddef.h>
#include <stdint.h>

typedef struct uctx {
    void *sp;
} uctx_t;

/* A stack: one mmap, a PROT_NONE guard page at its low end. */
typedef struct uctx_stack {
    void *map; /* the whole mapping (guard included) */
    size_t map_len;
    void *lo, *hi; /* usable range [lo, hi) */
} uctx_stack_t;

void *uctx_switch(uctx_t *from, uctx_t *to, void *arg);     /* the default resume */
void *uctx_switch_ret(uctx_t *from, uctx_t *to, void *arg); /* every arch */
#if defined(__x86_64__)
#define UCTX_HAVE_JMP 1
void *uctx_switch_jmp(uctx_t *from, uctx_t *to, void *arg); /* pop + indirect jmp */
#endif
void uctx_switch_min(uctx_t *from, uctx_t *to); /* the simplest correct switch, for comparison */
extern const char uctx_default_resume[];        /* "ret" or "jmp" */

/* The entry of a new context; it must never return (it switches away for
 * good). `first` is the arg of the switch that first resumed it. */
typedef void (*uctx_entry_t)(void *data, void *first);

/* Prepare `c` so that the first switch to it runs entry(data, arg) on
 * `st`. Returns 0, or -1 if the stack is too small. */
int uctx_make(uctx_t *c, const uctx_stack_t *st, uctx_entry_t entry, void *data);

/* mmap a stack of `size` usable bytes (rounded up to pages) with a guard
 * page below it. 0 on success, -1 with errno. */
int uctx_stack_alloc(uctx_stack_t *st, size_t size);
void uctx_stack_free(uctx_stack_t *st);
/* 1 if `addr` lies in the stack's guard page (a fault there = overflow). */
int uctx_stack_guard_hit(const uctx_stack_t *st, const void *addr);

/* Called by the trampoline if an entry returns: reports and aborts. */
void uctx_entry_returned(void *data) __attribute__((noreturn));

/* The architecture's name for the switch file ("x86_64-sysv", ...). */
const char *uctx_abi(void);
#endif
