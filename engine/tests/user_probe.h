/* Assembly probes for the user-level switch tests (one block per arch):
 *   probe_run(self, other, canary, out, sw): load every callee-saved integer
 *     and FP register from `canary`, switch to `other` with `sw`, and when
 *     resumed store those registers to `out`.
 *   probe_clobber(self, other, sw): overwrite them all with garbage, switch
 *     back with `sw` (restoring its own caller's values on return). */
#ifndef CTXBENCH_USER_PROBE_H
#define CTXBENCH_USER_PROBE_H
#include <stdint.h>
#include "user/uctx.h"

typedef void *(*switch_fn_t)(uctx_t *, uctx_t *, void *);

#if defined(__x86_64__)
#define PROBE_NINT 6 /* rbx rbp r12 r13 r14 r15 */
#define PROBE_NFP  0 /* no callee-saved vector registers in System V */
#elif defined(__aarch64__)
#define PROBE_NINT 11 /* x19..x29 (x30 is the link the switch resumes through) */
#define PROBE_NFP  8  /* d8..d15 */
#elif defined(__arm__)
#define PROBE_NINT 8 /* r4..r11 */
#define PROBE_NFP  8 /* d8..d15 */
#endif

typedef struct probe_regs {
    uintptr_t i[PROBE_NINT];
    uint64_t f[PROBE_NFP > 0 ? PROBE_NFP : 1];
} probe_regs_t;

void probe_run(uctx_t *self, uctx_t *other, const probe_regs_t *canary, probe_regs_t *out, switch_fn_t sw);
void probe_clobber(uctx_t *self, uctx_t *other, switch_fn_t sw);

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl probe_run\n.type probe_run,@function\n"
        "probe_run:\n"
        "  push %rbp\n  push %rbx\n  push %r12\n  push %r13\n  push %r14\n  push %r15\n"
        "  push %rcx\n" /* out; rsp = 0 mod 16 now */
        "  mov %r8, %rax\n"
        "  mov 0(%rdx), %rbx\n  mov 8(%rdx), %rbp\n  mov 16(%rdx), %r12\n"
        "  mov 24(%rdx), %r13\n  mov 32(%rdx), %r14\n  mov 40(%rdx), %r15\n"
        "  xor %edx, %edx\n"
        "  call *%rax\n"
        "  mov (%rsp), %rax\n"
        "  mov %rbx, 0(%rax)\n  mov %rbp, 8(%rax)\n  mov %r12, 16(%rax)\n"
        "  mov %r13, 24(%rax)\n  mov %r14, 32(%rax)\n  mov %r15, 40(%rax)\n"
        "  pop %rcx\n"
        "  pop %r15\n  pop %r14\n  pop %r13\n  pop %r12\n  pop %rbx\n  pop %rbp\n  ret\n"
        ".size probe_run, .-probe_run\n"
        ".globl probe_clobber\n.type probe_clobber,@function\n"
        "probe_clobber:\n"
        "  push %rbp\n  push %rbx\n  push %r12\n  push %r13\n  push %r14\n  push %r15\n  sub $8, %rsp\n"
        "  mov %rdx, %rax\n"
        "  movabs $0xdead0000000000b1, %rbx\n  movabs $0xdead0000000000b2, %rbp\n"
        "  movabs $0xdead0000000000b3, %r12\n  movabs $0xdead0000000000b4, %r13\n"
        "  movabs $0xdead0000000000b5, %r14\n  movabs $0xdead0000000000b6, %r15\n"
        "  xor %edx, %edx\n"
        "  call *%rax\n"
        "  add $8, %rsp\n  pop %r15\n  pop %r14\n  pop %r13\n  pop %r12\n  pop %rbx\n  pop %rbp\n  ret\n"
        ".size probe_clobber, .-probe_clobber\n");
#elif defined(__aarch64__)
__asm__(".text\n"
        ".globl probe_run\n.type probe_run,%function\n"
        "probe_run:\n"
        "  stp x29, x30, [sp, #-176]!\n"
        "  stp x19, x20, [sp, #16]\n  stp x21, x22, [sp, #32]\n  stp x23, x24, [sp, #48]\n"
        "  stp x25, x26, [sp, #64]\n  stp x27, x28, [sp, #80]\n"
        "  stp d8, d9, [sp, #96]\n  stp d10, d11, [sp, #112]\n  stp d12, d13, [sp, #128]\n  stp d14, d15, "
        "[sp, #144]\n"
        "  str x3, [sp, #160]\n"
        "  ldp x19, x20, [x2, #0]\n  ldp x21, x22, [x2, #16]\n  ldp x23, x24, [x2, #32]\n"
        "  ldp x25, x26, [x2, #48]\n  ldp x27, x28, [x2, #64]\n  ldr x29, [x2, #80]\n"
        "  ldp d8, d9, [x2, #88]\n  ldp d10, d11, [x2, #104]\n  ldp d12, d13, [x2, #120]\n  ldp d14, d15, "
        "[x2, #136]\n"
        "  mov x2, #0\n"
        "  blr x4\n"
        "  ldr x3, [sp, #160]\n"
        "  stp x19, x20, [x3, #0]\n  stp x21, x22, [x3, #16]\n  stp x23, x24, [x3, #32]\n"
        "  stp x25, x26, [x3, #48]\n  stp x27, x28, [x3, #64]\n  str x29, [x3, #80]\n"
        "  stp d8, d9, [x3, #88]\n  stp d10, d11, [x3, #104]\n  stp d12, d13, [x3, #120]\n  stp d14, d15, "
        "[x3, #136]\n"
        "  ldp x19, x20, [sp, #16]\n  ldp x21, x22, [sp, #32]\n  ldp x23, x24, [sp, #48]\n"
        "  ldp x25, x26, [sp, #64]\n  ldp x27, x28, [sp, #80]\n"
        "  ldp d8, d9, [sp, #96]\n  ldp d10, d11, [sp, #112]\n  ldp d12, d13, [sp, #128]\n  ldp d14, d15, "
        "[sp, #144]\n"
        "  ldp x29, x30, [sp], #176\n  ret\n"
        ".size probe_run, .-probe_run\n"
        ".globl probe_clobber\n.type probe_clobber,%function\n"
        "probe_clobber:\n"
        "  stp x29, x30, [sp, #-160]!\n"
        "  stp x19, x20, [sp, #16]\n  stp x21, x22, [sp, #32]\n  stp x23, x24, [sp, #48]\n"
        "  stp x25, x26, [sp, #64]\n  stp x27, x28, [sp, #80]\n"
        "  stp d8, d9, [sp, #96]\n  stp d10, d11, [sp, #112]\n  stp d12, d13, [sp, #128]\n  stp d14, d15, "
        "[sp, #144]\n"
        "  mov x9, x2\n"
        "  mov x19, #0xb1\n  mov x20, #0xb2\n  mov x21, #0xb3\n  mov x22, #0xb4\n  mov x23, #0xb5\n"
        "  mov x24, #0xb6\n  mov x25, #0xb7\n  mov x26, #0xb8\n  mov x27, #0xb9\n  mov x28, #0xba\n  mov "
        "x29, #0xbb\n"
        "  fmov d8, x19\n  fmov d9, x20\n  fmov d10, x21\n  fmov d11, x22\n"
        "  fmov d12, x23\n  fmov d13, x24\n  fmov d14, x25\n  fmov d15, x26\n"
        "  mov x2, #0\n"
        "  blr x9\n"
        "  ldp x19, x20, [sp, #16]\n  ldp x21, x22, [sp, #32]\n  ldp x23, x24, [sp, #48]\n"
        "  ldp x25, x26, [sp, #64]\n  ldp x27, x28, [sp, #80]\n"
        "  ldp d8, d9, [sp, #96]\n  ldp d10, d11, [sp, #112]\n  ldp d12, d13, [sp, #128]\n  ldp d14, d15, "
        "[sp, #144]\n"
        "  ldp x29, x30, [sp], #160\n  ret\n"
        ".size probe_clobber, .-probe_clobber\n");
#elif defined(__arm__)
__asm__(".text\n.syntax unified\n.arm\n"
        ".globl probe_run\n.type probe_run,%function\n"
        "probe_run:\n"
        "  ldr r12, [sp]\n"
        "  push {r3-r11, lr}\n"
        "  vpush {d8-d15}\n"
        "  ldm r2, {r4-r11}\n"
        "  add r2, r2, #32\n"
        "  vldm r2, {d8-d15}\n"
        "  mov r2, #0\n"
        "  blx r12\n"
        "  ldr r3, [sp, #64]\n"
        "  stm r3, {r4-r11}\n"
        "  add r3, r3, #32\n"
        "  vstm r3, {d8-d15}\n"
        "  vpop {d8-d15}\n"
        "  pop {r3-r11, lr}\n"
        "  bx lr\n"
        ".size probe_run, .-probe_run\n"
        ".globl probe_clobber\n.type probe_clobber,%function\n"
        "probe_clobber:\n"
        "  push {r3-r11, lr}\n"
        "  vpush {d8-d15}\n"
        "  mov r12, r2\n"
        "  mov r4, #0xb1\n  mov r5, #0xb2\n  mov r6, #0xb3\n  mov r7, #0xb4\n"
        "  mov r8, #0xb5\n  mov r9, #0xb6\n  mov r10, #0xb7\n  mov r11, #0xb8\n"
        "  vmov d8, r4, r5\n  vmov d9, r5, r6\n  vmov d10, r6, r7\n  vmov d11, r7, r8\n"
        "  vmov d12, r8, r9\n  vmov d13, r9, r10\n  vmov d14, r10, r11\n  vmov d15, r11, r4\n"
        "  mov r2, #0\n"
        "  blx r12\n"
        "  vpop {d8-d15}\n"
        "  pop {r3-r11, lr}\n"
        "  bx lr\n"
        ".size probe_clobber, .-probe_clobber\n");
#endif
#endif
