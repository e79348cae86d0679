/* User-level context switch, aarch64 AAPCS64 (see engine/src/uctx.h).
 *
 *   void *uctx_switch(uctx_t *from, uctx_t *to, void *arg)  (= uctx_switch_ret)
 *   void  uctx_switch_min(uctx_t *from, uctx_t *to)
 *
 * Saved, exactly the callee-saved set: x19-x30, sp, d8-d15 (the low 64 bits
 * of v8-v15 are all the ABI preserves). Frame (160 bytes, sp stays 16-aligned):
 * [0] x19 x20 ... x29 x30 [96] d8 ... d15 [160].
 * Resume is `ret` (x30). Only the x86-64 file builds the jmp variant too;
 * here `ret x30` and `br x30` differ only in the return-stack hint.
 * BTI: `bti c` at every function reachable by an indirect call when the
 * build enables branch protection; resumes are `ret`, which BTI does not
 * check. PAC: callers sign their own lr against their own sp, which each
 * context keeps, so nothing to do here. */
#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
#define LANDING bti c
#else
#define LANDING
#endif

        .text

.macro SAVE_AND_SWAP
        sub     sp, sp, #160
        stp     x19, x20, [sp, #0]
        stp     x21, x22, [sp, #16]
        stp     x23, x24, [sp, #32]
        stp     x25, x26, [sp, #48]
        stp     x27, x28, [sp, #64]
        stp     x29, x30, [sp, #80]
        stp     d8, d9, [sp, #96]
        stp     d10, d11, [sp, #112]
        stp     d12, d13, [sp, #128]
        stp     d14, d15, [sp, #144]
        mov     x9, sp
        str     x9, [x0]
        ldr     x9, [x1]
        mov     sp, x9
        ldp     x19, x20, [sp, #0]
        ldp     x21, x22, [sp, #16]
        ldp     x23, x24, [sp, #32]
        ldp     x25, x26, [sp, #48]
        ldp     x27, x28, [sp, #64]
        ldp     x29, x30, [sp, #80]
        ldp     d8, d9, [sp, #96]
        ldp     d10, d11, [sp, #112]
        ldp     d12, d13, [sp, #128]
        ldp     d14, d15, [sp, #144]
        add     sp, sp, #160
.endm

        .globl  uctx_switch_ret
        .type   uctx_switch_ret, %function
        .p2align 4
uctx_switch_ret:
        LANDING
        SAVE_AND_SWAP
        mov     x0, x2
        ret
        .size   uctx_switch_ret, .-uctx_switch_ret

        .globl  uctx_switch
        .type   uctx_switch, %function
        .set    uctx_switch, uctx_switch_ret

        .globl  uctx_switch_min
        .type   uctx_switch_min, %function
        .p2align 4
uctx_switch_min:
        LANDING
        SAVE_AND_SWAP
        ret
        .size   uctx_switch_min, .-uctx_switch_min

/* First resume: x19 = entry, x20 = data, x0 = the first switch's value.
 * x29 = 0 ends the frame chain; if the entry returns, report and abort. */
        .globl  uctx_trampoline
        .type   uctx_trampoline, %function
        .p2align 4
uctx_trampoline:
        LANDING
        mov     x29, #0
        mov     x1, x0
        mov     x0, x20
        blr     x19
        mov     x0, x20
        bl      uctx_entry_returned
        brk     #0
        .size   uctx_trampoline, .-uctx_trampoline

        .section .rodata
        .globl  uctx_default_resume
uctx_default_resume:
        .asciz  "ret"

        .section .note.GNU-stack,"",%progbits

#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
        .section .note.gnu.property,"a"
        .p2align 3
        .long   4
        .long   16
        .long   5                /* NT_GNU_PROPERTY_TYPE_0 */
        .asciz  "GNU"
        .long   0xc0000000       /* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
        .long   4
#if defined(__ARM_FEATURE_PAC_DEFAULT) && __ARM_FEATURE_PAC_DEFAULT
        .long   3                /* BTI | PAC */
#else
        .long   1                /* BTI */
#endif
        .p2align 3
#endif
