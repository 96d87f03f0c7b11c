// Device printf from several threads of two CTAs (docs/hw.md, "Device printf"): ints,
// unsigned and 64-bit values, doubles, strings from a table of pointers, each warp in turn
// with a barrier between, so that the lines come in the same order however the warps are
// scheduled. `out` gets what each call returned: the number of arguments.
__device__ const char *const parity[2] = {"even", "odd"};

extern "C" __global__ void printf_demo(const long long *big, const double *x, int *out) {
  int t = threadIdx.x;
  for (int w = 0; w < blockDim.x / 32; w++) {
    if (t / 32 == w && t % 8 == 0) {
      int i = t / 8;
      unsigned u = 0xfffffff0u + t;
      out[blockIdx.x * blockDim.x + t] =
          printf("block %d thread %2d (%-4s): %u %#x %lld %llu %.2f %g\n", blockIdx.x, t,
                 parity[i % 2], u, u, big[i], (unsigned long long)big[i], x[i], x[i] * 1e6);
    }
    __syncthreads();
  }
  if (t == 0)
    printf("block %d done: [%-6s] [%5.1e] %c %s\n", blockIdx.x, "ok", blockIdx.x * 0.5f,
           'A' + blockIdx.x, blockIdx.x ? "" : "(first)");
}
