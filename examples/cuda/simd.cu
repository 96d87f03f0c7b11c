// Every SIMD video intrinsic of sgpu_cuda.h on one pair of words per thread: thread i writes
// the results for a[i] and b[i] to out[i * 83 ...], in the order listed here (each operation
// on half-words, then on bytes).
#define BOTH(f) f##2(x, y), f##4(x, y)
#define UNARY(f) f##2(x), f##4(x)
#define COMPARE(cc) BOTH(__vcmp##cc), BOTH(__vset##cc)

extern "C" __global__ void simd(const unsigned *a, const unsigned *b, unsigned *out) {
  unsigned i = threadIdx.x, x = a[i], y = b[i];
  const unsigned r[] = {
      BOTH(__vadd),      BOTH(__vaddss),     BOTH(__vaddus),   BOTH(__vsub),
      BOTH(__vsubss),    BOTH(__vsubus),     BOTH(__vavgs),    BOTH(__vavgu),
      BOTH(__vhaddu),    BOTH(__vabsdiffs),  BOTH(__vabsdiffu), BOTH(__vmaxs),
      BOTH(__vmaxu),     BOTH(__vmins),      BOTH(__vminu),    BOTH(__vsads),
      BOTH(__vsadu),     COMPARE(eq),        COMPARE(ne),      COMPARE(ges),
      COMPARE(geu),      COMPARE(gts),       COMPARE(gtu),     COMPARE(les),
      COMPARE(leu),      COMPARE(lts),       COMPARE(ltu),     UNARY(__vabs),
      UNARY(__vabsss),   UNARY(__vneg),      UNARY(__vnegss),  __vabsdiff4(x, y),
  };
  const unsigned n = sizeof r / sizeof r[0];
  for (unsigned k = 0; k < n; k++)
    out[i * n + k] = r[k];
}
