/* Dirty the widest vector register state this CPU and kernel use, so that
 * the next context switch must save and restore it (the anatomy's FPU
 * rung). x86-64: AVX-512 (a high zmm and an opmask register) where the CPU
 * has it and the kernel enabled it in XCR0, else AVX (a ymm upper half),
 * else SSE; aarch64: an FP/SIMD register; armv7 (hard float): a VFP
 * register. Only caller-saved registers are written. */
#ifndef CTXBENCH_VECTOR_STATE_H
#define CTXBENCH_VECTOR_STATE_H

/* "avx512", "avx", "sse", "fpsimd", "vfp" or "none": chosen once. */
const char *vector_state_kind(void);
/* Write the registers of that kind (a no-op for "none"). */
void vector_state_dirty(void);
#endif
