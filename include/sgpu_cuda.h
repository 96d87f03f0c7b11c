/* sgpu_cuda.h: the part of CUDA's device API that `ptxas-rs cuda` kernels use, written over
 * clang's NVPTX builtins and inline PTX so that no CUDA SDK is needed (docs/cuda.md).
 * `ptxas-rs cuda` passes it to clang-16 with -include; kernels need not include it. */
#pragma once

/* threadIdx, blockIdx, blockDim, gridDim and warpSize, as clang itself declares them. */
#include <__clang_cuda_builtin_vars.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))

#define __SGPU_DEVICE static __device__ __forceinline__

/* __syncthreads() is a clang builtin; the fences are not. */
__SGPU_DEVICE void __threadfence_block(void) { __nvvm_membar_cta(); }
__SGPU_DEVICE void __threadfence(void) { __nvvm_membar_gl(); }

/* Atomics: each returns the value the word held before. */
__SGPU_DEVICE int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
__SGPU_DEVICE unsigned atomicAdd(unsigned *p, unsigned v) {
  return __nvvm_atom_add_gen_i((int *)p, (int)v);
}
__SGPU_DEVICE unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return __nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
__SGPU_DEVICE float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
__SGPU_DEVICE int atomicSub(int *p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
__SGPU_DEVICE unsigned atomicSub(unsigned *p, unsigned v) {
  return __nvvm_atom_add_gen_i((int *)p, -(int)v);
}
__SGPU_DEVICE int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
__SGPU_DEVICE unsigned atomicExch(unsigned *p, unsigned v) {
  return __nvvm_atom_xchg_gen_i((int *)p, (int)v);
}
__SGPU_DEVICE int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
__SGPU_DEVICE unsigned atomicMin(unsigned *p, unsigned v) { return __nvvm_atom_min_gen_ui(p, v); }
__SGPU_DEVICE int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
__SGPU_DEVICE unsigned atomicMax(unsigned *p, unsigned v) { return __nvvm_atom_max_gen_ui(p, v); }
__SGPU_DEVICE unsigned atomicInc(unsigned *p, unsigned v) { return __nvvm_atom_inc_gen_ui(p, v); }
__SGPU_DEVICE unsigned atomicDec(unsigned *p, unsigned v) { return __nvvm_atom_dec_gen_ui(p, v); }
__SGPU_DEVICE int atomicAnd(int *p, int v) { return __nvvm_atom_and_gen_i(p, v); }
__SGPU_DEVICE int atomicOr(int *p, int v) { return __nvvm_atom_or_gen_i(p, v); }
__SGPU_DEVICE int atomicXor(int *p, int v) { return __nvvm_atom_xor_gen_i(p, v); }
__SGPU_DEVICE unsigned atomicAnd(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_and_gen_i((int *)p, (int)v);
}
__SGPU_DEVICE unsigned atomicOr(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_or_gen_i((int *)p, (int)v);
}
__SGPU_DEVICE unsigned atomicXor(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_xor_gen_i((int *)p, (int)v);
}
__SGPU_DEVICE int atomicCAS(int *p, int compare, int v) {
  return __nvvm_atom_cas_gen_i(p, compare, v);
}
__SGPU_DEVICE unsigned atomicCAS(unsigned *p, unsigned compare, unsigned v) {
  return __nvvm_atom_cas_gen_i((int *)p, (int)compare, (int)v);
}

/* Warp intrinsics. `width` splits the warp into segments as CUDA's do: the clamp operand
 * holds 32 - width in bits 8..12 and the segment's last lane (or, for shuffles up, its
 * first) in bits 0..4. */
#define __SGPU_SHUFFLE(name, builtin, fbuiltin, last)                                     \
  __SGPU_DEVICE int name(unsigned mask, int v, int lane, int width = 32) {                \
    return builtin(mask, v, lane, ((32 - width) << 8) | (last));                         \
  }                                                                                       \
  __SGPU_DEVICE unsigned name(unsigned mask, unsigned v, int lane, int width = 32) {      \
    return (unsigned)builtin(mask, (int)v, lane, ((32 - width) << 8) | (last));          \
  }                                                                                       \
  __SGPU_DEVICE float name(unsigned mask, float v, int lane, int width = 32) {            \
    return fbuiltin(mask, v, lane, ((32 - width) << 8) | (last));                        \
  }
__SGPU_SHUFFLE(__shfl_sync, __nvvm_shfl_sync_idx_i32, __nvvm_shfl_sync_idx_f32, 0x1f)
__SGPU_SHUFFLE(__shfl_down_sync, __nvvm_shfl_sync_down_i32, __nvvm_shfl_sync_down_f32, 0x1f)
__SGPU_SHUFFLE(__shfl_up_sync, __nvvm_shfl_sync_up_i32, __nvvm_shfl_sync_up_f32, 0)
__SGPU_SHUFFLE(__shfl_xor_sync, __nvvm_shfl_sync_bfly_i32, __nvvm_shfl_sync_bfly_f32, 0x1f)
#undef __SGPU_SHUFFLE

__SGPU_DEVICE unsigned __ballot_sync(unsigned mask, int predicate) {
  return __nvvm_vote_ballot_sync(mask, predicate != 0);
}
__SGPU_DEVICE int __all_sync(unsigned mask, int predicate) {
  return __nvvm_vote_all_sync(mask, predicate != 0);
}
__SGPU_DEVICE int __any_sync(unsigned mask, int predicate) {
  return __nvvm_vote_any_sync(mask, predicate != 0);
}

/* Surfaces: a surface object is the 64-bit handle a `{ surface = "NAME" }` launch parameter
 * passes. x is in bytes, as in CUDA; out-of-bounds accesses trap (CUDA's
 * cudaBoundaryModeTrap, its default). Elements of 32 bits: int, unsigned and float. */
typedef unsigned long long cudaSurfaceObject_t;

template <typename T> __SGPU_DEVICE T surf2Dread(cudaSurfaceObject_t surface, int x, int y) {
  static_assert(sizeof(T) == 4, "surf2Dread: sgpu_cuda.h has 32-bit elements only");
  unsigned bits;
  asm volatile("suld.b.2d.b32.trap {%0}, [%1, {%2, %3}];"
               : "=r"(bits)
               : "l"(surface), "r"(x), "r"(y));
  return __builtin_bit_cast(T, bits);
}

template <typename T>
__SGPU_DEVICE void surf2Dwrite(T value, cudaSurfaceObject_t surface, int x, int y) {
  static_assert(sizeof(T) == 4, "surf2Dwrite: sgpu_cuda.h has 32-bit elements only");
  asm volatile("sust.b.2d.b32.trap [%0, {%1, %2}], {%3};"
               :
               : "l"(surface), "r"(x), "r"(y), "r"(__builtin_bit_cast(unsigned, value))
               : "memory");
}

/* SIMD video intrinsics on four bytes or two halves of a word, as CUDA defines them: each
 * is one PTX SIMD video instruction (the third operand, unused without `.add`, is 0). */
#define __SGPU_SIMD(name, ptx)                                                  \
  __SGPU_DEVICE unsigned name(unsigned a, unsigned b) {                         \
    unsigned d;                                                                 \
    asm(ptx " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(0u));            \
    return d;                                                                   \
  }
__SGPU_SIMD(__vadd4, "vadd4.u32.u32.u32")
__SGPU_SIMD(__vaddus4, "vadd4.u32.u32.u32.sat")
__SGPU_SIMD(__vsub4, "vsub4.u32.u32.u32")
__SGPU_SIMD(__vabsdiffu4, "vabsdiff4.u32.u32.u32")
/* Not a CUDA name: the instruction's, for __vabsdiffu4. */
__SGPU_SIMD(__vabsdiff4, "vabsdiff4.u32.u32.u32")
__SGPU_SIMD(__vabsdiffs4, "vabsdiff4.u32.s32.s32")
__SGPU_SIMD(__vmaxu4, "vmax4.u32.u32.u32")
__SGPU_SIMD(__vminu4, "vmin4.u32.u32.u32")
__SGPU_SIMD(__vavgu4, "vavrg4.u32.u32.u32")
__SGPU_SIMD(__vadd2, "vadd2.u32.u32.u32")
__SGPU_SIMD(__vsub2, "vsub2.u32.u32.u32")
__SGPU_SIMD(__vabsdiffu2, "vabsdiff2.u32.u32.u32")
#undef __SGPU_SIMD

/* The sum of the four bytes' absolute differences: vabsdiff4 with `.add`. */
__SGPU_DEVICE unsigned __vsadu4(unsigned a, unsigned b) {
  unsigned d;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(0u));
  return d;
}

#undef __SGPU_DEVICE
