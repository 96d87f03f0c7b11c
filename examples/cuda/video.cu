// SIMD video intrinsics on words of four bytes: per thread, the bytewise absolute
// difference of a and b, their bytewise (wrapping) sum, and the sum of the differences.
extern "C" __global__ void video(const unsigned *a, const unsigned *b, unsigned *absdiff,
                                 unsigned *sum, unsigned *sad) {
  unsigned i = threadIdx.x;
  absdiff[i] = __vabsdiff4(a[i], b[i]);
  sum[i] = __vadd4(a[i], b[i]);
  sad[i] = __vsadu4(a[i], b[i]);
}
