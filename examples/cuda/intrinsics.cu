// The header's atomics, shuffles and votes that the other examples leave out: every thread
// folds its value into counters with atomicMin/Max/And/Or/Xor/Inc/Exch, tries to claim a slot
// with atomicCAS, and reads its neighbours with __shfl_up_sync and __shfl_xor_sync.
extern "C" __global__ void intrinsics(const unsigned *in, unsigned *counters, unsigned *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[t];
  atomicMin(&counters[0], v);
  atomicMax(&counters[1], v);
  atomicAnd(&counters[2], v);
  atomicOr(&counters[3], v);
  atomicXor(&counters[4], v);
  atomicInc(&counters[5], 1000u);
  unsigned claimed = atomicCAS(&counters[6], 0u, t + 1);
  atomicExch(&counters[7], t);
  unsigned up = __shfl_up_sync(0xffffffffu, v, 1);
  unsigned across = __shfl_xor_sync(0xffffffffu, v, 1);
  int all_odd = __all_sync(0xffffffffu, v & 1);
  int any_big = __any_sync(0xffffffffu, v > 900u);
  out[4 * t] = up;
  out[4 * t + 1] = across;
  out[4 * t + 2] = claimed;
  out[4 * t + 3] = (all_odd ? 1u : 0u) | (any_big ? 2u : 0u);
}
