// Every surface read and write of sgpu_cuda.h: 1D, 2D, 3D, 1D layered and 2D layered
// surfaces, eleven element shapes each (8, 16, 32 and 64 bits; vectors of two and four
// bytes, half-words and words; two 64-bit values), each boundary mode (0 trap, 1 clamp,
// 2 zero). Every surface is W x H x D (x L layers) elements of 16 bytes (rgba32_uint), a row
// 64 bytes; x is in bytes, so element i of a type T is at x = i * sizeof(T).
//
// Thread t takes its element index, y, z and layer from coords[t], some out of bounds. For
// each geometry, mode and shape f:
// - it reads from the src surface into its 16-byte slot of `loads`, slot
//   ((geometry * 3 + mode) * 11 + f) * 16 + t (in trap mode only when in bounds);
// - the threads write, one after another, a value to the dst surface (in trap mode only when
//   in bounds): byte k of thread t's is the top byte of (slot * 16 + k) * 0x9e3779b1; then
//   the block copies dst to `stores` (the geometries one after another, each mode and shape
//   in turn) and clears it.
// `trap` = 1 or 2 makes thread 3 read, or thread 5 write, out of bounds in trap mode (CUDA's
// default): the kernel traps.
#define W 4
#define H 2
#define D 2
#define L 2
#define THREADS 16
#define FORMS 11

enum { G1D, G2D, G3D, GA1D, GA2D };
// Bytes of a surface of each geometry.
__device__ const int bytes[5] = {W * 16, W * H * 16, W * H * D * 16, W * L * 16,
                                 W * H * L * 16};

struct Args {
  cudaSurfaceObject_t src[5], dst[5];
  int4 c; // this thread's element index, y, z, layer
  unsigned char *loads, *stores;
  int t;
};

template <int G, class T> __device__ bool inside(int4 c) {
  bool x = c.x >= 0 && c.x < W * 16 / (int)sizeof(T);
  bool y = c.y >= 0 && c.y < H, z = c.z >= 0 && c.z < D, l = c.w >= 0 && c.w < L;
  switch (G) {
  case G1D: return x;
  case G2D: return x && y;
  case G3D: return x && y && z;
  case GA1D: return x && l;
  default: return x && y && l;
  }
}

// A read in mode m: trap by CUDA's default argument, clamp into a pointer, zero returned.
template <int G, class T>
__device__ T load(cudaSurfaceObject_t s, int4 c, int m) {
  int x = c.x * (int)sizeof(T);
  T v;
  switch (G) {
  case G1D:
    if (m == 0) v = surf1Dread<T>(s, x);
    else if (m == 1) surf1Dread(&v, s, x, cudaBoundaryModeClamp);
    else v = surf1Dread<T>(s, x, cudaBoundaryModeZero);
    break;
  case G2D:
    if (m == 0) v = surf2Dread<T>(s, x, c.y);
    else if (m == 1) surf2Dread(&v, s, x, c.y, cudaBoundaryModeClamp);
    else v = surf2Dread<T>(s, x, c.y, cudaBoundaryModeZero);
    break;
  case G3D:
    if (m == 0) v = surf3Dread<T>(s, x, c.y, c.z);
    else if (m == 1) surf3Dread(&v, s, x, c.y, c.z, cudaBoundaryModeClamp);
    else v = surf3Dread<T>(s, x, c.y, c.z, cudaBoundaryModeZero);
    break;
  case GA1D:
    if (m == 0) v = surf1DLayeredread<T>(s, x, c.w);
    else if (m == 1) surf1DLayeredread(&v, s, x, c.w, cudaBoundaryModeClamp);
    else v = surf1DLayeredread<T>(s, x, c.w, cudaBoundaryModeZero);
    break;
  default:
    if (m == 0) v = surf2DLayeredread<T>(s, x, c.y, c.w);
    else if (m == 1) surf2DLayeredread(&v, s, x, c.y, c.w, cudaBoundaryModeClamp);
    else v = surf2DLayeredread<T>(s, x, c.y, c.w, cudaBoundaryModeZero);
  }
  return v;
}

template <int G, class T>
__device__ void store(T v, cudaSurfaceObject_t s, int4 c, int m) {
  int x = c.x * (int)sizeof(T);
  cudaSurfaceBoundaryMode mode = m == 1 ? cudaBoundaryModeClamp : cudaBoundaryModeZero;
  switch (G) {
  case G1D:
    if (m == 0) surf1Dwrite(v, s, x);
    else surf1Dwrite(v, s, x, mode);
    break;
  case G2D:
    if (m == 0) surf2Dwrite(v, s, x, c.y);
    else surf2Dwrite(v, s, x, c.y, mode);
    break;
  case G3D:
    if (m == 0) surf3Dwrite(v, s, x, c.y, c.z);
    else surf3Dwrite(v, s, x, c.y, c.z, mode);
    break;
  case GA1D:
    if (m == 0) surf1DLayeredwrite(v, s, x, c.w);
    else surf1DLayeredwrite(v, s, x, c.w, mode);
    break;
  default:
    if (m == 0) surf2DLayeredwrite(v, s, x, c.y, c.w);
    else surf2DLayeredwrite(v, s, x, c.y, c.w, mode);
  }
}

// Word w (4 bytes) of a surface of geometry G as coordinates: x in bytes, y, z, layer.
template <int G> __device__ int4 word(int w) {
  int x = w % (W * 4) * 4, rest = w / (W * 4);
  switch (G) {
  case G1D: return make_int4(x, 0, 0, 0);
  case G2D: return make_int4(x, rest, 0, 0);
  case G3D: return make_int4(x, rest % H, rest / H, 0);
  case GA1D: return make_int4(x, 0, 0, rest);
  default: return make_int4(x, rest % H, 0, rest / H);
  }
}

template <int G>
__device__ unsigned read_word(cudaSurfaceObject_t s, int4 c) {
  switch (G) {
  case G1D: return surf1Dread<unsigned>(s, c.x);
  case G2D: return surf2Dread<unsigned>(s, c.x, c.y);
  case G3D: return surf3Dread<unsigned>(s, c.x, c.y, c.z);
  case GA1D: return surf1DLayeredread<unsigned>(s, c.x, c.w);
  default: return surf2DLayeredread<unsigned>(s, c.x, c.y, c.w);
  }
}

template <int G> __device__ void clear_word(cudaSurfaceObject_t s, int4 c) {
  switch (G) {
  case G1D: surf1Dwrite(0u, s, c.x); break;
  case G2D: surf2Dwrite(0u, s, c.x, c.y); break;
  case G3D: surf3Dwrite(0u, s, c.x, c.y, c.z); break;
  case GA1D: surf1DLayeredwrite(0u, s, c.x, c.w); break;
  default: surf2DLayeredwrite(0u, s, c.x, c.y, c.w);
  }
}

// Shape f of geometry G, type T, in each mode.
template <int G, class T> __device__ void form(int f, const Args &a) {
  cudaSurfaceObject_t src = a.src[G], dst = a.dst[G];
  bool in = inside<G, T>(a.c);
  int stored = 0;
  for (int g = 0; g < G; g++)
    stored += 3 * FORMS * bytes[g];
  for (int m = 0; m < 3; m++) {
    int slot = ((G * 3 + m) * FORMS + f) * THREADS + a.t;
    if (m != 0 || in) {
      T v = load<G, T>(src, a.c, m);
      __builtin_memcpy(a.loads + slot * 16, &v, sizeof(T));
    }
    // The value thread t writes: byte k is the top byte of (slot * 16 + k) * 0x9e3779b1.
    unsigned char value[sizeof(T)];
    for (int k = 0; k < (int)sizeof(T); k++)
      value[k] = (unsigned)(slot * 16 + k) * 0x9e3779b1u >> 24;
    T v;
    __builtin_memcpy(&v, value, sizeof(T));
    for (int t = 0; t < THREADS; t++) {
      if (t == a.t && (m != 0 || in))
        store<G, T>(v, dst, a.c, m);
      __syncthreads();
    }
    unsigned *copy = (unsigned *)(a.stores + stored + (m * FORMS + f) * bytes[G]);
    for (int w = a.t; w < bytes[G] / 4; w += THREADS)
      copy[w] = read_word<G>(dst, word<G>(w));
    __syncthreads();
    for (int w = a.t; w < bytes[G] / 4; w += THREADS)
      clear_word<G>(dst, word<G>(w));
    __syncthreads();
  }
}

template <int G, class... T> __device__ void forms(const Args &a) {
  int f = 0;
  int each[] = {(form<G, T>(f++, a), 0)...};
  (void)each;
}

extern "C" __global__ void surfaces(cudaSurfaceObject_t src1, cudaSurfaceObject_t src2,
                                    cudaSurfaceObject_t src3, cudaSurfaceObject_t srcl1,
                                    cudaSurfaceObject_t srcl2, cudaSurfaceObject_t dst1,
                                    cudaSurfaceObject_t dst2, cudaSurfaceObject_t dst3,
                                    cudaSurfaceObject_t dstl1, cudaSurfaceObject_t dstl2,
                                    const int4 *coords, unsigned char *loads,
                                    unsigned char *stores, int trap) {
  int t = threadIdx.x;
  if (trap == 1 && t == 3)
    surf2Dread<int>(src2, W * 16, 0);
  if (trap == 2 && t == 5)
    surf3Dwrite(1.0f, dst3, 0, 0, D);
  Args a = {{src1, src2, src3, srcl1, srcl2}, {dst1, dst2, dst3, dstl1, dstl2}, coords[t],
            loads, stores, t};
  // The same eleven shapes in each geometry, through different types.
  forms<G1D, unsigned char, unsigned short, unsigned, unsigned long long, uchar2, uchar4,
        ushort2, ushort4, uint2, uint4, ulonglong2>(a);
  forms<G2D, signed char, short, int, long long, char2, char4, short2, short4, int2, int4,
        longlong2>(a);
  forms<G3D, char, short, float, double, char2, char4, short2, short4, float2, float4,
        double2>(a);
  forms<GA1D, uchar1, ushort1, float1, double1, uchar2, uchar4, ushort2, ushort4, float2,
        float4, double2>(a);
  forms<GA2D, char1, short1, int1, long, char2, char4, short2, short4, uint2, int4,
        ulong2>(a);
}
