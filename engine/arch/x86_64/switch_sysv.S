/* User-level context switch, x86-64 System V ABI (see engine/src/uctx.h).
 *
 *   void *uctx_switch_ret(uctx_t *from, uctx_t *to, void *arg)   resume with ret
 *   void *uctx_switch_jmp(uctx_t *from, uctx_t *to, void *arg)   resume with pop + jmp *reg
 *   void  uctx_switch_min(uctx_t *from, uctx_t *to)              the simplest correct switch
 *   uctx_switch = the default (one of the two above, chosen by measurement)
 *
 * Saved, exactly what the ABI makes callee-saved: rbx, rbp, r12-r15, rsp,
 * the MXCSR control bits and the x87 control word. Frame on the suspended
 * stack (low to high): mxcsr(4) fcw(2) pad(2) r15 r14 r13 r12 rbx rbp ret.
 * At entry rsp = 8 (mod 16); after 6 pushes and 8 bytes of control words the
 * saved sp is 16-aligned, and every resume leaves rsp = 0 (mod 16) after the
 * return address is consumed, as a returning call must.
 *
 * Which resume is the default was measured, not assumed. On this machine
 * (Intel Xeon family 6 model 143, KVM guest, 2 vCPUs, TSC 2.0 GHz, other
 * jobs running), ctxbench-engine run user/asm-ret/same-thread and
 * user/asm-jmp/same-thread, 10 groups x 10 samples each, twice:
 *     ret resume: median 21.3 / 20.2 ns per switch (~40 TSC ticks)
 *     jmp resume: median  5.0 /  5.0 ns per switch (~10 TSC ticks)
 * A `ret` onto the other stack pops a return address the return-stack
 * buffer did not predict (it holds the caller's own), so every switch pays a
 * misprediction; the indirect `jmp` is predicted by the indirect-branch
 * predictor, which learns the alternation from branch history. So the
 * default is jmp (4x faster here). The measurement that issue 3 quoted
 * (jmp 3-6x slower) did not reproduce; re-run `ctxbench userbench` on other
 * hardware before changing this. */
#if defined(__CET__) && (__CET__ & 1)
#define LANDING endbr64
#define NOTRACK notrack
#else
#define LANDING
#define NOTRACK
#endif

        .text

/* Common save half: leaves the new sp in rsp, the transfer value in rax. */
.macro SAVE_AND_SWAP
        pushq   %rbp
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        subq    $8, %rsp
        stmxcsr (%rsp)
        fnstcw  4(%rsp)
        movq    %rsp, (%rdi)
        movq    (%rsi), %rsp
        ldmxcsr (%rsp)
        fldcw   4(%rsp)
        addq    $8, %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        movq    %rdx, %rax
.endm

        .globl  uctx_switch_ret
        .type   uctx_switch_ret, @function
        .p2align 4
uctx_switch_ret:
        .cfi_startproc
        LANDING
        SAVE_AND_SWAP
        ret
        .cfi_endproc
        .size   uctx_switch_ret, .-uctx_switch_ret

/* notrack: the resume address follows a call and has no endbr64; under IBT
 * an indirect jmp there is legal only as notrack. */
        .globl  uctx_switch_jmp
        .type   uctx_switch_jmp, @function
        .p2align 4
uctx_switch_jmp:
        .cfi_startproc
        LANDING
        SAVE_AND_SWAP
        popq    %rcx
        NOTRACK jmp *%rcx
        .cfi_endproc
        .size   uctx_switch_jmp, .-uctx_switch_jmp

/* The floor: the same register set, nothing else (no landing pad, no
 * transfer value). Same frame layout, so contexts made by uctx_make work. */
        .globl  uctx_switch_min
        .type   uctx_switch_min, @function
        .p2align 4
uctx_switch_min:
        pushq   %rbp
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        subq    $8, %rsp
        stmxcsr (%rsp)
        fnstcw  4(%rsp)
        movq    %rsp, (%rdi)
        movq    (%rsi), %rsp
        ldmxcsr (%rsp)
        fldcw   4(%rsp)
        addq    $8, %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        ret
        .size   uctx_switch_min, .-uctx_switch_min

/* First resume of a context lands here (uctx_make put its address where a
 * return address would be): r12 = entry, r13 = its data, rax = the value
 * passed by the first switch. rsp = 0 (mod 16) here, so the call below gives
 * the entry the ABI's alignment. The entry must not return; if it does,
 * uctx_entry_returned reports it and aborts, never "returns into nowhere". */
        .globl  uctx_trampoline
        .type   uctx_trampoline, @function
        .p2align 4
uctx_trampoline:
        .cfi_startproc
        .cfi_undefined rip
        LANDING
        xorl    %ebp, %ebp
        movq    %r13, %rdi
        movq    %rax, %rsi
        call    *%r12
        movq    %r13, %rdi
        call    uctx_entry_returned@PLT
        ud2
        .cfi_endproc
        .size   uctx_trampoline, .-uctx_trampoline

/* The default resume (see the header comment for the measurement). */
        .globl  uctx_switch
        .type   uctx_switch, @function
        .set    uctx_switch, uctx_switch_jmp
        .globl  uctx_default_resume
        .section .rodata
uctx_default_resume:
        .asciz  "jmp"
        .text

        .section .note.GNU-stack,"",@progbits

/* IBT landing pads are present when the build asks for them (-fcf-protection
 * defines __CET__). Only IBT is claimed: switching stacks with ret is not
 * shadow-stack aware, so SHSTK must not be marked (the linker then leaves the
 * program without it, which is the truth). */
#if defined(__CET__) && (__CET__ & 1)
        .section .note.gnu.property,"a"
        .p2align 3
        .long   4
        .long   16
        .long   5                /* NT_GNU_PROPERTY_TYPE_0 */
        .asciz  "GNU"
        .long   0xc0000002       /* GNU_PROPERTY_X86_FEATURE_1_AND */
        .long   4
        .long   1                /* IBT */
        .p2align 3
#endif
