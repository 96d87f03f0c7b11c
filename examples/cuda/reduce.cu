// Each CTA sums its blockDim.x ints (a multiple of 32, at most 1024): each warp with
// shuffles down, then the first warp over the warps' sums kept in shared memory.
__device__ int warp_sum(int v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

extern "C" __global__ void reduce(const int *in, int *out) {
  __shared__ int sums[32];
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int v = warp_sum(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (lane == 0)
    sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? sums[lane] : 0;
    v = warp_sum(v);
    if (lane == 0)
      out[blockIdx.x] = v;
  }
}
