/* User-level context switch, armv7 AAPCS (hard-float VFP) (see engine/src/uctx.h).
 *
 *   void *uctx_switch(uctx_t *from, uctx_t *to, void *arg)  (= uctx_switch_ret)
 *   void  uctx_switch_min(uctx_t *from, uctx_t *to)
 *
 * Saved, exactly the callee-saved set: r4-r11, lr, sp and, where VFP is
 * present, d8-d15. r3 is pushed only as padding so the frame is a multiple
 * of 8 bytes (the AAPCS stack alignment at public interfaces).
 * Frame (low to high): [d8..d15] r3 r4 ... r11 lr.
 * ARM (A32) code; `bx lr` resumes and interworks with Thumb-2 callers
 * (Debian armhf compiles C as Thumb-2). */
        .syntax unified
        .arm
        .text

.macro SAVE_AND_SWAP
        push    {r3-r11, lr}
#if defined(__ARM_FP)
        vpush   {d8-d15}
#endif
        mov     r12, sp
        str     r12, [r0]
        ldr     r12, [r1]
        mov     sp, r12
#if defined(__ARM_FP)
        vpop    {d8-d15}
#endif
        pop     {r3-r11, lr}
.endm

        .globl  uctx_switch_ret
        .type   uctx_switch_ret, %function
        .p2align 3
uctx_switch_ret:
        SAVE_AND_SWAP
        mov     r0, r2
        bx      lr
        .size   uctx_switch_ret, .-uctx_switch_ret

        .globl  uctx_switch
        .type   uctx_switch, %function
        .set    uctx_switch, uctx_switch_ret

        .globl  uctx_switch_min
        .type   uctx_switch_min, %function
        .p2align 3
uctx_switch_min:
        SAVE_AND_SWAP
        bx      lr
        .size   uctx_switch_min, .-uctx_switch_min

/* First resume: r4 = entry, r5 = data, r0 = the first switch's value.
 * fp = 0 ends the frame chain; if the entry returns, report and abort. */
        .globl  uctx_trampoline
        .type   uctx_trampoline, %function
        .p2align 3
uctx_trampoline:
        mov     r11, #0
        mov     r1, r0
        mov     r0, r5
        blx     r4
        mov     r0, r5
        bl      uctx_entry_returned
        udf     #0
        .size   uctx_trampoline, .-uctx_trampoline

        .section .rodata
        .globl  uctx_default_resume
uctx_default_resume:
        .asciz  "ret"

        .section .note.GNU-stack,"",%progbits
