// A 16-bin histogram of n values (each value's low 4 bits pick its bin): each CTA counts
// into shared memory with atomics, then adds its counts to the global ones. The ballot
// counts, per warp, how many of its values land in bin 0.
extern "C" __global__ void histogram(const unsigned *values, int n, unsigned *bins,
                                     unsigned *zeros) {
  __shared__ unsigned local[16];
  if (threadIdx.x < 16)
    local[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned bin = i < n ? values[i] % 16 : 16;
  if (bin < 16)
    atomicAdd(&local[bin], 1u);
  unsigned in_bin_0 = __ballot_sync(0xffffffffu, bin == 0);
  if (threadIdx.x % 32 == 0)
    atomicAdd(&zeros[0], (unsigned)__builtin_popcount(in_bin_0));
  __syncthreads();
  if (threadIdx.x < 16)
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
