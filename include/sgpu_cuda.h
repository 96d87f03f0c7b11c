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

/* printf in device code: clang turns each call into one of vprintf with the arguments packed
 * in a local buffer, and ptxas-rs links vprintf from sgpu's printf runtime (docs/hw.md,
 * "Device printf"). `__device__` alone (CUDA's headers say `__host__ __device__`), so that
 * the host's <stdio.h> or <cstdio>, included after, may declare it again. */
extern "C" __device__ int printf(const char *, ...);
extern "C" __device__ int vprintf(const char *, const char *);

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

/* CUDA's vector types (vector_types.h): structs of 1 to 4 elements, aligned as CUDA aligns
 * them (the 3-element ones to their element), with their make_ functions. */
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif
#define __SGPU_VECTOR(t, e)                                                               \
  struct __align__(sizeof(e)) t##1 { e x; };                                              \
  struct __align__(2 * sizeof(e)) t##2 { e x, y; };                                       \
  struct t##3 { e x, y, z; };                                                             \
  struct __align__(4 * sizeof(e) < 16 ? 4 * sizeof(e) : 16) t##4 { e x, y, z, w; };      \
  __SGPU_DEVICE t##1 make_##t##1(e x) { return {x}; }                                     \
  __SGPU_DEVICE t##2 make_##t##2(e x, e y) { return {x, y}; }                             \
  __SGPU_DEVICE t##3 make_##t##3(e x, e y, e z) { return {x, y, z}; }                     \
  __SGPU_DEVICE t##4 make_##t##4(e x, e y, e z, e w) { return {x, y, z, w}; }
__SGPU_VECTOR(char, signed char)
__SGPU_VECTOR(uchar, unsigned char)
__SGPU_VECTOR(short, short)
__SGPU_VECTOR(ushort, unsigned short)
__SGPU_VECTOR(int, int)
__SGPU_VECTOR(uint, unsigned)
__SGPU_VECTOR(long, long)
__SGPU_VECTOR(ulong, unsigned long)
__SGPU_VECTOR(longlong, long long)
__SGPU_VECTOR(ulonglong, unsigned long long)
__SGPU_VECTOR(float, float)
__SGPU_VECTOR(double, double)
#undef __SGPU_VECTOR

/* Surfaces: a surface object is the 64-bit handle a `{ surface = "NAME" }` launch parameter
 * passes. x is in bytes, as in CUDA, y, z and the layer in elements. The boundary mode
 * chooses the instruction's `.trap`, `.clamp` or `.zero` (docs/launch.md says what each
 * does); CUDA's default traps. */
typedef unsigned long long cudaSurfaceObject_t;
enum cudaSurfaceBoundaryMode {
  cudaBoundaryModeZero = 0,
  cudaBoundaryModeClamp = 1,
  cudaBoundaryModeTrap = 2
};

/* How suld.b/sust.b move a T: as n elements of `bytes` each (.v2/.v4 when n is 2 or 4). A
 * CUDA vector type (one with a member x) has n elements of x's size; any other T is one
 * element of its own size. */
template <class T, class = void> struct __sgpu_surf_shape {
  enum { n = 1, bytes = sizeof(T) };
};
template <class T> struct __sgpu_surf_shape<T, decltype((void)static_cast<T *>(nullptr)->x)> {
  enum { bytes = sizeof(static_cast<T *>(nullptr)->x), n = sizeof(T) / bytes };
};
template <class T> struct __sgpu_surf_form : __sgpu_surf_shape<T> {
  enum { n = __sgpu_surf_shape<T>::n, bytes = __sgpu_surf_shape<T>::bytes };
  static_assert((n == 1 || n == 2 || n == 4) &&
                    (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) && n * bytes <= 16 &&
                    sizeof(T) == n * bytes,
                "a surface element is 1, 2 or 4 values of 8, 16, 32 or 64 bits, at most 128 "
                "bits in all");
};
/* An element of `bytes` bytes, and the register that carries it (.b8 and .b16 in 16 bits). */
template <int bytes> struct __sgpu_surf_word;
template <> struct __sgpu_surf_word<1> { typedef unsigned char type; typedef unsigned short reg; };
template <> struct __sgpu_surf_word<2> { typedef unsigned short type; typedef unsigned short reg; };
template <> struct __sgpu_surf_word<4> { typedef unsigned type; typedef unsigned reg; };
template <> struct __sgpu_surf_word<8> {
  typedef unsigned long long type;
  typedef unsigned long long reg;
};
template <int n, int bytes> struct __sgpu_surf_data {
  typename __sgpu_surf_word<bytes>::type e[n];
};
enum { __sgpu_1d, __sgpu_2d, __sgpu_3d, __sgpu_a1d, __sgpu_a2d };

/* `if constexpr`, which clang's CUDA (C++14) has as an extension, picks the form. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc++17-extensions"

/* One suld.b or sust.b of geometry G (coordinates CS), vector V, element bits B (register
 * constraint C), data DS and boundary mode M. Operands are named: d0..d3 the data (those the
 * vector lacks unused), s the handle, x y z l the coordinates (l the layer). */
#define __SGPU_SULD(G, CS, V, B, C, DS, M)                                                  \
  asm volatile("suld.b." G V ".b" B "." M " " DS ", [%[s], " CS "];"                        \
               : [d0] "=" C(d[0]), [d1] "=" C(d[1]), [d2] "=" C(d[2]), [d3] "=" C(d[3])      \
               : [s] "l"(s), [x] "r"(x), [y] "r"(y), [z] "r"(z), [l] "r"(l))
#define __SGPU_SUST(G, CS, V, B, C, DS, M)                                                  \
  asm volatile("sust.b." G V ".b" B "." M " [%[s], " CS "], " DS ";"                        \
               :                                                                           \
               : [s] "l"(s), [x] "r"(x), [y] "r"(y), [z] "r"(z), [l] "r"(l), [d0] C(d[0]),    \
                 [d1] C(d[1]), [d2] C(d[2]), [d3] C(d[3])                                    \
               : "memory")
#define __SGPU_SU_MODES(OP, ...)                                                            \
  {                                                                                         \
    if (mode == cudaBoundaryModeZero)                                                       \
      OP(__VA_ARGS__, "zero");                                                              \
    else if (mode == cudaBoundaryModeClamp)                                                 \
      OP(__VA_ARGS__, "clamp");                                                             \
    else                                                                                    \
      OP(__VA_ARGS__, "trap");                                                              \
  }
#define __SGPU_SU_VECTORS(OP, G, CS, B, C)                                                  \
  {                                                                                         \
    if constexpr (n == 1)                                                                   \
      __SGPU_SU_MODES(OP, G, CS, "", B, C, "%[d0]")                                         \
    else if constexpr (n == 2)                                                              \
      __SGPU_SU_MODES(OP, G, CS, ".v2", B, C, "{%[d0], %[d1]}")                             \
    else                                                                                    \
      __SGPU_SU_MODES(OP, G, CS, ".v4", B, C, "{%[d0], %[d1], %[d2], %[d3]}")               \
  }
#define __SGPU_SU_SIZES(OP, G, CS)                                                          \
  {                                                                                         \
    if constexpr (bytes == 1)                                                               \
      __SGPU_SU_VECTORS(OP, G, CS, "8", "h")                                                \
    else if constexpr (bytes == 2)                                                          \
      __SGPU_SU_VECTORS(OP, G, CS, "16", "h")                                               \
    else if constexpr (bytes == 4)                                                          \
      __SGPU_SU_VECTORS(OP, G, CS, "32", "r")                                               \
    else                                                                                    \
      __SGPU_SU_VECTORS(OP, G, CS, "64", "l")                                               \
  }
/* PTX's coordinate vectors: 1d {x}, 2d {x, y}, 3d {x, y, z, _}, a1d {layer, x},
 * a2d {layer, x, y, _}; the fourth element is ignored. */
#define __SGPU_SU_GEOMETRIES(OP)                                                            \
  if constexpr (G == __sgpu_1d)                                                             \
    __SGPU_SU_SIZES(OP, "1d", "{%[x]}")                                                     \
  else if constexpr (G == __sgpu_2d)                                                        \
    __SGPU_SU_SIZES(OP, "2d", "{%[x], %[y]}")                                               \
  else if constexpr (G == __sgpu_3d)                                                        \
    __SGPU_SU_SIZES(OP, "3d", "{%[x], %[y], %[z], %[z]}")                                   \
  else if constexpr (G == __sgpu_a1d)                                                       \
    __SGPU_SU_SIZES(OP, "a1d", "{%[l], %[x]}")                                              \
  else                                                                                      \
    __SGPU_SU_SIZES(OP, "a2d", "{%[l], %[x], %[y], %[y]}")

template <int G, class T>
__SGPU_DEVICE T __sgpu_surf_read(cudaSurfaceObject_t s, int x, int y, int z, int l,
                                 cudaSurfaceBoundaryMode mode) {
  enum { n = __sgpu_surf_form<T>::n, bytes = __sgpu_surf_form<T>::bytes };
  typename __sgpu_surf_word<bytes>::reg d[4];
  __SGPU_SU_GEOMETRIES(__SGPU_SULD)
  __sgpu_surf_data<n, bytes> v;
  for (int i = 0; i < n; i++)
    v.e[i] = d[i];
  return __builtin_bit_cast(T, v);
}

template <int G, class T>
__SGPU_DEVICE void __sgpu_surf_write(T value, cudaSurfaceObject_t s, int x, int y, int z, int l,
                                     cudaSurfaceBoundaryMode mode) {
  enum { n = __sgpu_surf_form<T>::n, bytes = __sgpu_surf_form<T>::bytes };
  __sgpu_surf_data<n, bytes> v = __builtin_bit_cast(__sgpu_surf_data<n, bytes>, value);
  typename __sgpu_surf_word<bytes>::reg d[4] = {};
  for (int i = 0; i < n; i++)
    d[i] = v.e[i];
  __SGPU_SU_GEOMETRIES(__SGPU_SUST)
}
#pragma clang diagnostic pop
#undef __SGPU_SULD
#undef __SGPU_SUST
#undef __SGPU_SU_MODES
#undef __SGPU_SU_VECTORS
#undef __SGPU_SU_SIZES
#undef __SGPU_SU_GEOMETRIES

/* CUDA's surface object functions: surfNDread<T>(...) returns the element, surfNDread(&v,
 * ...) stores it, surfNDwrite(v, ...) writes it; T is any type of 1, 2, 4, 8 or 16 bytes
 * (char ... double, and the vector types: uchar4, float2, int4, longlong2 ...). */
#define __SGPU_SURF(name, G, params, coords)                                                 \
  template <class T>                                                                        \
  __SGPU_DEVICE T name##read(cudaSurfaceObject_t s, __SGPU_UNPAREN params,                  \
                             cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {         \
    return __sgpu_surf_read<G, T>(s, __SGPU_UNPAREN coords, mode);                          \
  }                                                                                         \
  template <class T>                                                                        \
  __SGPU_DEVICE void name##read(T *data, cudaSurfaceObject_t s, __SGPU_UNPAREN params,      \
                                cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {      \
    *data = __sgpu_surf_read<G, T>(s, __SGPU_UNPAREN coords, mode);                         \
  }                                                                                         \
  template <class T>                                                                        \
  __SGPU_DEVICE void name##write(T data, cudaSurfaceObject_t s, __SGPU_UNPAREN params,      \
                                 cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {     \
    __sgpu_surf_write<G, T>(data, s, __SGPU_UNPAREN coords, mode);                          \
  }
#define __SGPU_UNPAREN(...) __VA_ARGS__
__SGPU_SURF(surf1D, __sgpu_1d, (int x), (x, 0, 0, 0))
__SGPU_SURF(surf2D, __sgpu_2d, (int x, int y), (x, y, 0, 0))
__SGPU_SURF(surf3D, __sgpu_3d, (int x, int y, int z), (x, y, z, 0))
__SGPU_SURF(surf1DLayered, __sgpu_a1d, (int x, int layer), (x, 0, 0, layer))
__SGPU_SURF(surf2DLayered, __sgpu_a2d, (int x, int y, int layer), (x, y, 0, layer))
#undef __SGPU_SURF
#undef __SGPU_UNPAREN

/* SIMD video intrinsics: CUDA's functions on two half-words or four bytes of a word, each
 * one PTX SIMD video instruction (the third operand, 0, is the merge's or the sum's c). */
#define __SGPU_SIMD(name, ptx)                                                              \
  __SGPU_DEVICE unsigned name(unsigned a, unsigned b) {                                     \
    unsigned d;                                                                             \
    asm(ptx " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(0u));                        \
    return d;                                                                               \
  }
/* Both widths of one operation: vop2 on half-words, vop4 on bytes. */
#define __SGPU_SIMD24(name, op, types)                                                      \
  __SGPU_SIMD(name##2, op "2" types)                                                        \
  __SGPU_SIMD(name##4, op "4" types)
__SGPU_SIMD24(__vadd, "vadd", ".u32.u32.u32")              /* wrapping */
__SGPU_SIMD24(__vaddss, "vadd", ".s32.s32.s32.sat")        /* signed saturation */
__SGPU_SIMD24(__vaddus, "vadd", ".u32.u32.u32.sat")        /* unsigned saturation */
__SGPU_SIMD24(__vsub, "vsub", ".u32.u32.u32")
__SGPU_SIMD24(__vsubss, "vsub", ".s32.s32.s32.sat")
__SGPU_SIMD24(__vsubus, "vsub", ".u32.u32.u32.sat")
__SGPU_SIMD24(__vavgs, "vavrg", ".s32.s32.s32")            /* rounded half away from zero */
__SGPU_SIMD24(__vavgu, "vavrg", ".u32.u32.u32")            /* rounded up */
__SGPU_SIMD24(__vabsdiffs, "vabsdiff", ".s32.s32.s32")
__SGPU_SIMD24(__vabsdiffu, "vabsdiff", ".u32.u32.u32")
__SGPU_SIMD24(__vmaxs, "vmax", ".s32.s32.s32")
__SGPU_SIMD24(__vmaxu, "vmax", ".u32.u32.u32")
__SGPU_SIMD24(__vmins, "vmin", ".s32.s32.s32")
__SGPU_SIMD24(__vminu, "vmin", ".u32.u32.u32")
__SGPU_SIMD24(__vsads, "vabsdiff", ".s32.s32.s32.add")     /* sum of the differences */
__SGPU_SIMD24(__vsadu, "vabsdiff", ".u32.u32.u32.add")
__SGPU_SIMD24(__sgpu_vabsdiffss, "vabsdiff", ".s32.s32.s32.sat")
/* Not a CUDA name: the instruction's, for __vabsdiffu4. */
__SGPU_SIMD(__vabsdiff4, "vabsdiff4.u32.u32.u32")

/* Comparisons: __vsetCC gives 1 in each element where a CC b (vset2/vset4), __vcmpCC all
 * ones, 0xffff or 0xff (that 1 times 0xffff or 0xff). eq and ne are the same signed or not. */
#define __SGPU_COMPARE(cc, types)                                                           \
  __SGPU_SIMD(__vset##cc##2, "vset2" types)                                                 \
  __SGPU_SIMD(__vset##cc##4, "vset4" types)                                                 \
  __SGPU_DEVICE unsigned __vcmp##cc##2(unsigned a, unsigned b) {                            \
    return __vset##cc##2(a, b) * 0xffffu;                                                   \
  }                                                                                         \
  __SGPU_DEVICE unsigned __vcmp##cc##4(unsigned a, unsigned b) {                            \
    return __vset##cc##4(a, b) * 0xffu;                                                     \
  }
__SGPU_COMPARE(eq, ".u32.u32.eq")
__SGPU_COMPARE(ne, ".u32.u32.ne")
__SGPU_COMPARE(ges, ".s32.s32.ge")
__SGPU_COMPARE(geu, ".u32.u32.ge")
__SGPU_COMPARE(gts, ".s32.s32.gt")
__SGPU_COMPARE(gtu, ".u32.u32.gt")
__SGPU_COMPARE(les, ".s32.s32.le")
__SGPU_COMPARE(leu, ".u32.u32.le")
__SGPU_COMPARE(lts, ".s32.s32.lt")
__SGPU_COMPARE(ltu, ".u32.u32.lt")
#undef __SGPU_COMPARE
#undef __SGPU_SIMD24
#undef __SGPU_SIMD

/* The one-operand forms, over the instructions above with 0 for the missing operand. */
__SGPU_DEVICE unsigned __vabs2(unsigned a) { return __vabsdiffs2(a, 0); }
__SGPU_DEVICE unsigned __vabs4(unsigned a) { return __vabsdiffs4(a, 0); }
__SGPU_DEVICE unsigned __vabsss2(unsigned a) { return __sgpu_vabsdiffss2(a, 0); }
__SGPU_DEVICE unsigned __vabsss4(unsigned a) { return __sgpu_vabsdiffss4(a, 0); }
__SGPU_DEVICE unsigned __vneg2(unsigned a) { return __vsub2(0, a); }
__SGPU_DEVICE unsigned __vneg4(unsigned a) { return __vsub4(0, a); }
__SGPU_DEVICE unsigned __vnegss2(unsigned a) { return __vsubss2(0, a); }
__SGPU_DEVICE unsigned __vnegss4(unsigned a) { return __vsubss4(0, a); }

/* The truncating average (a + b) >> 1 has no SIMD instruction (vavrg rounds up): it is
 * (a & b) + ((a ^ b) >> 1) per element, the shift kept from crossing into the next one. */
__SGPU_DEVICE unsigned __vhaddu2(unsigned a, unsigned b) {
  return (a & b) + (((a ^ b) >> 1) & 0x7fff7fffu);
}
__SGPU_DEVICE unsigned __vhaddu4(unsigned a, unsigned b) {
  return (a & b) + (((a ^ b) >> 1) & 0x7f7f7f7fu);
}

#undef __SGPU_DEVICE
