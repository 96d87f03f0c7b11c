/* sgpu's f64 runtime: IEEE 754 binary64 arithmetic in integer code, for a GPU without a
 * double-precision unit (docs/f64.md). The encoder lowers every f64 instruction to a call of
 * one of the `__sgpu_f64_*` functions below and links the ones a module calls into its ELF, as
 * libgcc serves CPUs without an FPU.
 *
 * This file is the source; `cargo xtask codegen` compiles it with Debian's clang-16 into
 * f64.ptx beside it (committed, checked for drift), which the encoder assembles with the
 * module. Only integer types appear here, so the PTX holds no float instruction.
 *
 * Conventions:
 * - Values travel as their bit patterns (u64; f32 as u32).
 * - `flags` holds the rounding mode in bits 2:0 (RN RZ RM RP as sgpu's `rnd` field numbers
 *   them, and RO, rounding to odd, for conversions that round again afterwards), and FTZ,
 *   SAT, NEG and INTEGRAL as below.
 * - A NaN operand gives itself made quiet (the first NaN of a, b, c); an invalid operation
 *   (inf - inf, 0 x inf, 0 / 0, inf / inf, sqrt of a negative) gives DEFAULT_NAN. f32
 *   results follow the f32 unit: every NaN is 0x7fffffff.
 * - A significand travels with its leading one at bit 62 (`sig`) and an exponent `exp` such
 *   that the value is sig x 2^(exp - 1084): packing adds exp << 52 to sig >> 10, whose
 *   leading one then carries into the exponent field (exp is one less than the biased
 *   exponent), and a subnormal result is one with exp = 0 and no leading one. */

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;
typedef int i32;
typedef unsigned __int128 u128;

#ifdef SGPU_HOST_TEST
#define RUNTIME extern "C" __attribute__((noinline))
#define HELPER static inline __attribute__((always_inline))
#else
#define RUNTIME extern "C" __attribute__((device, noinline))
#define HELPER static __attribute__((device, always_inline)) inline
#endif

#define SIGN 0x8000000000000000ULL
#define INF 0x7ff0000000000000ULL
#define FRAC 0x000fffffffffffffULL
#define HIDDEN 0x0010000000000000ULL
#define QUIET 0x0008000000000000ULL
#define ONE 0x3ff0000000000000ULL
/* The NaN an invalid operation gives. */
#define DEFAULT_NAN 0xfff8000000000000ULL
/* Every NaN an f32 result holds, as sgpu's f32 unit gives it. */
#define F32_NAN 0x7fffffffu

enum { RN = 0, RZ = 1, RM = 2, RP = 3, RO = 4 };
#define ROUNDING 7u
/* Subnormal operands and results are zeros of their sign. */
#define FTZ 8u
/* The result is clamped to [0, 1]; NaN gives +0. */
#define SAT 16u
/* add: subtract b. */
#define NEG 32u
/* f64 to f64: round to an integral value. */
#define INTEGRAL 64u

/* ---- Helpers, inlined into each entry point ---- */

HELPER i32 exponent(u64 x) { return (i32)(x >> 52) & 0x7ff; }
HELPER bool is_nan(u64 x) { return (x & ~SIGN) > INF; }
HELPER bool is_inf(u64 x) { return (x & ~SIGN) == INF; }
HELPER bool is_subnormal(u64 x) { return exponent(x) == 0 && (x & FRAC) != 0; }
HELPER u64 quiet(u64 x) { return x | QUIET; }
HELPER i32 clz64(u64 x) { return __builtin_clzll(x); }

/* A subnormal made a zero of its sign when flushing. */
HELPER u64 flush(u64 x, u32 flags) { return (flags & FTZ) && is_subnormal(x) ? x & SIGN : x; }

/* x >> n with the bits shifted out ORed into bit 0 ("jamming"), so that rounding still sees
 * that something was below; n may be 64 or more. */
HELPER u64 jam_right(u64 x, u32 n) {
  if (n == 0)
    return x;
  if (n >= 64)
    return x != 0;
  return (x >> n) | ((x << (64 - n)) != 0);
}

HELPER u128 jam_right128(u128 x, u32 n) {
  if (n == 0)
    return x;
  if (n >= 128)
    return x != 0;
  return (x >> n) | ((x << (128 - n)) != 0);
}

HELPER i32 clz128(u128 x) {
  u64 hi = (u64)(x >> 64);
  return hi ? clz64(hi) : 64 + clz64((u64)x);
}

/* The 64 significant bits of x (leading one at bit 126), the rest jammed into bit 0. */
HELPER u64 top64(u128 x) { return (u64)(x >> 64) | ((u64)x != 0); }

/* A finite nonzero value's significand with its leading one at bit 52 and its biased
 * exponent; a subnormal's is normalized, its exponent then 0 or below. */
HELPER u64 unpack(u64 x, i32 *exp) {
  i32 e = exponent(x);
  u64 f = x & FRAC;
  if (e != 0) {
    *exp = e;
    return f | HIDDEN;
  }
  i32 shift = clz64(f) - 11;
  *exp = 1 - shift;
  return f << shift;
}

/* How much to add to the bits below the last kept place (`half` is the weight of the first
 * of them) before cutting them off. */
HELPER u64 increment(u32 mode, bool negative, u64 half) {
  switch (mode) {
  case RN:
    return half;
  case RM:
    return negative ? 2 * half - 1 : 0;
  case RP:
    return negative ? 0 : 2 * half - 1;
  default: /* RZ, RO */
    return 0;
  }
}

/* Rounds sign x sig x 2^(exp - 1084) to a format with `fbits` fraction bits and largest
 * biased exponent `emax` + 1 for finite values (binary64: 52, 0x7fd; binary32: 23, 0xfd;
 * then exp is relative to that format's bias as for binary64, see the file's comment).
 * `sign` is the format's sign bit. */
HELPER u64 round_pack_format(u64 sign, i32 exp, u64 sig, u32 mode, u32 fbits, i32 emax) {
  const u32 cut = 62 - fbits;
  const u64 half = 1ULL << (cut - 1), below = 2 * half - 1;
  const u64 inf = (u64)(emax + 2) << fbits; /* the all-ones exponent */
  u64 inc = increment(mode, sign != 0, half);
  if ((u32)exp >= (u32)emax) {
    if (exp < 0) {
      sig = jam_right(sig, (u32)-exp);
      exp = 0;
    } else if (exp > emax || sig + inc >= SIGN) {
      /* Overflow: infinity, or the largest finite value where the mode rounds toward zero
       * (and when rounding to odd, whose next rounding sees an inexact odd value). */
      return (inc == 0 || mode == RO) ? sign + inf - 1 : sign + inf;
    }
  }
  u64 rest = sig & below;
  if (mode == RO) {
    sig = (sig >> cut) | (rest != 0);
  } else {
    sig = (sig + inc) >> cut;
    if (mode == RN && rest == half)
      sig &= ~1ULL; /* a tie: to even */
  }
  if (sig == 0)
    exp = 0;
  return sign + ((u64)exp << fbits) + sig;
}

HELPER u64 round_pack(u64 sign, i32 exp, u64 sig, u32 mode) {
  return round_pack_format(sign, exp, sig, mode, 52, 0x7fd);
}

/* round_pack of a nonzero sig with its leading one anywhere. */
HELPER u64 normalize_round_pack(u64 sign, i32 exp, u64 sig, u32 mode) {
  i32 shift = clz64(sig) - 1;
  if (shift < 0)
    return round_pack(sign, exp + 1, jam_right(sig, 1), mode);
  return round_pack(sign, exp - shift, sig << shift, mode);
}

/* m / 2^shift rounded to an integer in the mode (`negative`: the value's sign, for RM and
 * RP); rounding to odd sets the last bit of an inexact quotient. */
HELPER u64 round_shift(u64 m, u32 shift, u32 mode, bool negative) {
  if (shift == 0)
    return m;
  u64 q = shift < 64 ? m >> shift : 0;
  u64 lost = shift < 64 ? m & ((1ULL << shift) - 1) : m;
  /* half of the last kept place; past 64 bits every lost value is below it */
  bool above_half, at_half;
  if (shift <= 64) {
    u64 half = 1ULL << (shift - 1);
    above_half = lost > half;
    at_half = lost == half;
  } else {
    above_half = at_half = false;
  }
  bool up;
  switch (mode) {
  case RN:
    up = above_half || (at_half && (q & 1));
    break;
  case RM:
    up = negative && lost != 0;
    break;
  case RP:
    up = !negative && lost != 0;
    break;
  case RO:
    return q | (lost != 0);
  default:
    up = false;
  }
  return q + up;
}

/* An f64 result clamped to [0, 1]; NaN and -0 give +0. */
HELPER u64 saturate(u64 x) {
  if (is_nan(x) || (x & SIGN))
    return 0;
  return x > ONE ? ONE : x;
}

/* An exact integer magnitude with a sign, as f64, rounded in the mode. */
HELPER u64 from_magnitude(u64 sign, u64 mag, u32 mode) {
  if (mag == 0)
    return sign;
  /* mag = mag x 2^(1084 - 1084) */
  return normalize_round_pack(sign, 1084, mag, mode);
}

/* ---- Arithmetic ---- */

/* add{.rnd}.f64, sub{.rnd}.f64 (NEG). */
RUNTIME u64 __sgpu_f64_add(u64 a, u64 b, u32 flags) {
  u32 mode = flags & ROUNDING;
  if (is_nan(a) || is_nan(b))
    return quiet(is_nan(a) ? a : b);
  if (flags & NEG)
    b ^= SIGN;
  if (is_inf(a))
    return is_inf(b) && ((a ^ b) & SIGN) ? DEFAULT_NAN : a;
  if (is_inf(b))
    return b;
  /* Magnitudes order as their bit patterns: make a the larger. */
  if ((a & ~SIGN) < (b & ~SIGN)) {
    u64 t = a;
    a = b;
    b = t;
  }
  bool subtract = (a ^ b) & SIGN;
  if ((b & ~SIGN) == 0) {
    if ((a & ~SIGN) != 0)
      return a;
    /* zero + zero: -0 only for two -0s, or for opposite zeros rounding down */
    return subtract ? (mode == RM ? SIGN : 0) : a;
  }
  i32 ea = exponent(a), eb = exponent(b);
  u64 ma = (a & FRAC) | (ea ? HIDDEN : 0), mb = (b & FRAC) | (eb ? HIDDEN : 0);
  ea += ea == 0; /* a subnormal's exponent is 1, without the hidden bit */
  eb += eb == 0;
  /* Both at bit 61, b aligned to a: nine bits below the last place, so that a
   * subtraction needing a shift left afterwards (exponents at most one apart) is exact. */
  ma <<= 9;
  mb = jam_right(mb << 9, (u32)(ea - eb));
  u64 sig = subtract ? ma - mb : ma + mb;
  if (sig == 0)
    return mode == RM ? SIGN : 0;
  return normalize_round_pack(a & SIGN, ea, sig, mode);
}

/* mul{.rnd}.f64 */
RUNTIME u64 __sgpu_f64_mul(u64 a, u64 b, u32 flags) {
  u32 mode = flags & ROUNDING;
  if (is_nan(a) || is_nan(b))
    return quiet(is_nan(a) ? a : b);
  u64 sign = (a ^ b) & SIGN, ma = a & ~SIGN, mb = b & ~SIGN;
  if (ma == INF || mb == INF)
    return (ma == 0 || mb == 0) ? DEFAULT_NAN : sign | INF;
  if (ma == 0 || mb == 0)
    return sign;
  i32 ea, eb;
  u64 fa = unpack(a, &ea), fb = unpack(b, &eb);
  /* fa at bit 62 times fb at bit 63: the product's leading one at bit 125 or 126. */
  u128 p = (u128)(fa << 10) * (fb << 11);
  u64 sig = top64(p);
  i32 exp = ea + eb - 0x3ff;
  if (sig < (1ULL << 62)) {
    sig <<= 1;
    exp -= 1;
  }
  return round_pack(sign, exp, sig, mode);
}

/* fma{.rnd}.f64 and mad{.rnd}.f64: a x b + c rounded once. */
RUNTIME u64 __sgpu_f64_fma(u64 a, u64 b, u64 c, u32 flags) {
  u32 mode = flags & ROUNDING;
  if (is_nan(a) || is_nan(b) || is_nan(c))
    return quiet(is_nan(a) ? a : is_nan(b) ? b : c);
  u64 sp = (a ^ b) & SIGN, sc = c & SIGN;
  u64 ma = a & ~SIGN, mb = b & ~SIGN, mc = c & ~SIGN;
  if (ma == INF || mb == INF) {
    if (ma == 0 || mb == 0 || (mc == INF && sc != sp))
      return DEFAULT_NAN;
    return sp | INF;
  }
  if (mc == INF)
    return c;
  if (ma == 0 || mb == 0) {
    /* The product is a zero of sign sp: the sum is c, or a zero */
    if (mc != 0)
      return c;
    return sp == sc ? sp : (mode == RM ? SIGN : 0);
  }
  i32 ea, eb;
  u64 fa = unpack(a, &ea), fb = unpack(b, &eb);
  /* The exact product, its leading one moved to bit 126: the 128-bit analogue of `sig`,
   * with 21 or more zero bits below it. */
  u128 p = (u128)(fa << 10) * (fb << 11);
  i32 exp = ea + eb - 0x3ff;
  if (p < ((u128)1 << 126)) {
    p <<= 1;
    exp -= 1;
  }
  if (mc == 0)
    return round_pack(sp, exp, top64(p), mode);
  i32 ec;
  u64 fc = unpack(c, &ec);
  u128 q = (u128)(fc << 10) << 64;
  ec -= 1; /* c's `exp`, with its leading one at bit 126 too */
  /* Align the smaller term; any bits shifted out go to bit 0, far below the round bit. A
   * cancellation of more than one bit needs exponents at most one apart, and then nothing
   * nonzero is shifted out. */
  u64 sign = sp;
  if (exp >= ec) {
    q = jam_right128(q, (u32)(exp - ec));
  } else {
    p = jam_right128(p, (u32)(ec - exp));
    exp = ec;
  }
  u128 sum;
  if (sp == sc) {
    sum = p + q;
  } else if (p >= q) {
    sum = p - q;
  } else {
    sum = q - p;
    sign = sc;
  }
  if (sum == 0)
    return mode == RM ? SIGN : 0;
  i32 shift = clz128(sum) - 1;
  if (shift < 0) {
    sum = jam_right128(sum, 1);
    exp += 1;
  } else {
    sum <<= shift;
    exp -= shift;
  }
  return round_pack(sign, exp, top64(sum), mode);
}

/* div{.rnd}.f64 and rcp{.rnd}.f64 (a = 1.0); with FTZ, rcp.approx.ftz.f64, correctly
 * rounded. */
RUNTIME u64 __sgpu_f64_div(u64 a, u64 b, u32 flags) {
  u32 mode = flags & ROUNDING;
  if (is_nan(a) || is_nan(b))
    return quiet(is_nan(a) ? a : b);
  a = flush(a, flags);
  b = flush(b, flags);
  u64 sign = (a ^ b) & SIGN, ma = a & ~SIGN, mb = b & ~SIGN;
  if (ma == INF)
    return mb == INF ? DEFAULT_NAN : sign | INF;
  if (mb == INF)
    return sign;
  if (mb == 0)
    return ma == 0 ? DEFAULT_NAN : sign | INF;
  if (ma == 0)
    return sign;
  i32 ea, eb;
  u64 fa = unpack(a, &ea), fb = unpack(b, &eb);
  i32 exp = ea - eb + 0x3fe;
  if (fa < fb) {
    fa <<= 1;
    exp -= 1;
  }
  /* The quotient fa / fb is in [1, 2): its first bit is 1; then ten bits per 64-bit
   * division of the remainder (below fb < 2^53, so shifted by ten it fits), six times: a
   * 61-bit quotient, and the remainder's being nonzero below it. */
  u64 q = 1, r = fa - fb;
  for (int i = 0; i < 6; i++) {
    r <<= 10;
    u64 digit = r / fb;
    r -= digit * fb;
    q = (q << 10) | digit;
  }
  return flush(round_pack(sign, exp, (q << 2) | (r != 0), mode), flags);
}

/* floor(sqrt(x)) for x in [2^54, 2^56), and x less its square in *rem. The f32 unit's
 * correctly rounded square root of x rounded to f32 is within 2^-22 of the root (relative),
 * so one step of integer Newton lands on the root or one above: a step never goes below it,
 * and from 2^27 or more an error below 32 leaves less than one. */
HELPER u64 sqrt_rem(u64 x, u64 *rem) {
  u64 s = (u64)__builtin_sqrtf((float)x);
  s = (s + x / s) >> 1;
  if (s * s > x)
    s -= 1;
  *rem = x - s * s;
  return s;
}

/* sqrt{.rnd}.f64, correctly rounded. */
RUNTIME u64 __sgpu_f64_sqrt(u64 a, u32 flags) {
  u32 mode = flags & ROUNDING;
  if (is_nan(a))
    return quiet(a);
  a = flush(a, flags);
  if ((a & ~SIGN) == 0)
    return a; /* sqrt(-0) is -0 */
  if (a & SIGN)
    return DEFAULT_NAN;
  if (a == INF)
    return a;
  i32 e;
  u64 f = unpack(a, &e);
  /* a = f x 2^(e - 1075); make e - 1075 even, so f has 53 or 54 bits. */
  if ((e & 1) == 0) {
    f <<= 1;
    e -= 1;
  }
  /* The root of N = f x 2^58 (in [2^110, 2^112): four 28-bit limbs, the top one at least a
   * quarter of the limb's range) by Zimmermann's Karatsuba square root: the root s1 and
   * remainder r1 of the top half 4f, then a quotient q by 2 s1 for the next 28 bits, and
   * the remainder's sign says whether q was one too many. The root, 56 bits with its
   * leading one at bit 55, and whether the remainder is zero, round as usual. */
  u64 r1;
  u64 s1 = sqrt_rem(f << 2, &r1);
  u64 num = r1 << 28, den = s1 << 1;
  u64 q = num / den, u = num - q * den;
  u64 root = (s1 << 28) + q;
  i64 rem = (i64)(u << 28) - (i64)(q * q);
  if (rem < 0) {
    rem += (i64)(2 * root - 1);
    root -= 1;
  }
  i32 exp = ((e - 1133) >> 1) + 1077;
  return round_pack(0, exp, (root << 7) | (rem != 0), mode);
}

/* rsqrt.approx{.ftz}.f64: 1 / sqrt(a), each step rounded to nearest (within one unit in the
 * last place of the exact value; docs/f64.md). */
RUNTIME u64 __sgpu_f64_rsqrt(u64 a, u32 flags) {
  u64 root = __sgpu_f64_sqrt(flush(a, flags), RN);
  return __sgpu_f64_div(ONE, root, RN | (flags & FTZ));
}

/* min.f64 (max: max.f64): a NaN operand gives the other, two give DEFAULT_NAN; -0 is below
 * +0. */
RUNTIME u64 __sgpu_f64_minmax(u64 a, u64 b, u32 max) {
  if (is_nan(a))
    return is_nan(b) ? DEFAULT_NAN : b;
  if (is_nan(b))
    return a;
  /* Order as signed integers: negative values reversed. */
  i64 ka = (a & SIGN) ? -(i64)(a & ~SIGN) - 1 : (i64)a;
  i64 kb = (b & SIGN) ? -(i64)(b & ~SIGN) - 1 : (i64)b;
  bool a_first = max ? ka > kb : ka < kb;
  return a_first ? a : b;
}

/* ---- Comparisons and classes ---- */

#define CMP_LT 1u
#define CMP_EQ 2u
#define CMP_GT 4u
#define CMP_UNORDERED 8u

/* setp and set on f64: how a compares with b, one of CMP_*; the encoder tests the bits of
 * the comparison it was asked for (lt: CMP_LT, leu: CMP_LT | CMP_EQ | CMP_UNORDERED...). */
RUNTIME u32 __sgpu_f64_cmp(u64 a, u64 b) {
  if (is_nan(a) || is_nan(b))
    return CMP_UNORDERED;
  if (a == b || ((a | b) & ~SIGN) == 0)
    return CMP_EQ;
  i64 ka = (a & SIGN) ? -(i64)(a & ~SIGN) : (i64)a;
  i64 kb = (b & SIGN) ? -(i64)(b & ~SIGN) : (i64)b;
  return ka < kb ? CMP_LT : CMP_GT;
}

#define CLASS_FINITE 1u
#define CLASS_INFINITE 2u
#define CLASS_NUMBER 4u
#define CLASS_NOTANUMBER 8u
#define CLASS_NORMAL 16u
#define CLASS_SUBNORMAL 32u

/* testp on f64: the CLASS_* bits that hold for a. PTX counts zeros as normal. */
RUNTIME u32 __sgpu_f64_class(u64 a) {
  if (is_nan(a))
    return CLASS_NOTANUMBER;
  if (is_inf(a))
    return CLASS_INFINITE | CLASS_NUMBER;
  return CLASS_FINITE | CLASS_NUMBER | (is_subnormal(a) ? CLASS_SUBNORMAL : CLASS_NORMAL);
}

/* ---- Conversions ---- */

/* cvt{.rnd}{.ftz}{.sat}.f32.f64. RO rounds to odd, so that converting the f32 result to
 * f16 or bf16 (F2F) rounds as converting a once would: f32 has at least two bits more than
 * either, over their whole range. */
RUNTIME u32 __sgpu_f64_to_f32(u64 a, u32 flags) {
  u32 mode = flags & ROUNDING;
  if (flags & SAT)
    a = saturate(a);
  if (is_nan(a))
    return F32_NAN;
  u64 sign = (a & SIGN) >> 32;
  if (is_inf(a))
    return (u32)(sign | 0x7f800000u);
  if ((a & ~SIGN) == 0)
    return (u32)sign;
  i32 e;
  u64 f = unpack(a, &e);
  /* f32's `exp` is relative to bias 127 as binary64's to 1023: e - 1 - 1023 + 127 */
  u32 r = (u32)round_pack_format(sign, e - 897, f << 10, mode, 23, 0xfd);
  if ((flags & FTZ) && (r & 0x7f800000u) == 0)
    r &= 0x80000000u;
  return r;
}

/* cvt{.ftz}{.sat}.f64.f32: exact; a NaN keeps its payload. */
RUNTIME u64 __sgpu_f32_to_f64(u32 x, u32 flags) {
  u64 sign = (u64)(x & 0x80000000u) << 32;
  u32 e = (x >> 23) & 0xff, f = x & 0x7fffff;
  u64 r;
  if (e == 0xff) {
    r = sign | INF | ((u64)f << 29) | (f ? QUIET : 0);
  } else if (e == 0) {
    if (f == 0 || (flags & FTZ)) {
      r = sign;
    } else {
      /* a subnormal f32: f x 2^-149 */
      r = normalize_round_pack(sign, 1084 - 149, f, RN);
    }
  } else {
    r = sign | ((u64)(e + 896) << 52) | ((u64)f << 29);
  }
  return (flags & SAT) ? saturate(r) : r;
}

/* cvt{.irnd}.{u8,s8,u16,s16,u32,s32,u64,s64}.f64, `type` numbered as sgpu's `ity` field
 * (u8 s8 u16 s16 u32 s32 u64 s64): rounded to an integer in the mode, then clamped to the
 * type's range; NaN gives 0. A signed result is sign-extended to 64 bits. */
RUNTIME u64 __sgpu_f64_to_int(u64 a, u32 flags, u32 type) {
  u32 mode = flags & ROUNDING;
  if (is_nan(a))
    return 0;
  bool negative = a & SIGN, is_signed = type & 1;
  u32 bits = 8u << (type >> 1);
  /* the largest magnitude each side takes */
  u64 top = is_signed ? (1ULL << (bits - 1)) - 1 : (bits == 64 ? ~0ULL : (1ULL << bits) - 1);
  u64 bottom = is_signed ? top + 1 : 0;
  u64 limit = negative ? bottom : top;
  i32 e = exponent(a);
  u64 mag;
  if (e >= 1023 + 64) {
    mag = ~0ULL; /* past every type's range, infinities included */
  } else if ((a & ~SIGN) == 0) {
    mag = 0;
  } else {
    u64 m = (a & FRAC) | (e ? HIDDEN : 0);
    e += e == 0;
    /* a = m x 2^(e - 1075) */
    mag = e >= 1075 ? m << (e - 1075) : round_shift(m, (u32)(1075 - e), mode, negative);
  }
  if (mag > limit)
    mag = limit;
  return negative ? 0 - mag : mag;
}

/* cvt{.rnd}{.sat}.f64.{u64,s64} (narrower integers extended first): `x` rounded in the
 * mode. */
RUNTIME u64 __sgpu_int_to_f64(u64 x, u32 flags, u32 is_signed) {
  u64 sign = 0;
  if (is_signed && (x & SIGN)) {
    sign = SIGN;
    x = -x;
  }
  u64 r = from_magnitude(sign, x, flags & ROUNDING);
  return (flags & SAT) ? saturate(r) : r;
}

/* cvt{.irnd}{.sat}.f64.f64: with INTEGRAL, a rounded to an integral value in the mode (the
 * sign kept, so -0.25 gives -0); with SAT, clamped. */
RUNTIME u64 __sgpu_f64_to_f64(u64 a, u32 flags) {
  u32 mode = flags & ROUNDING;
  if (is_nan(a))
    return quiet(a);
  i32 e = exponent(a);
  /* From 2^52 up every value is an integer; zeros and infinities stay. */
  if ((flags & INTEGRAL) && e < 1075 && (a & ~SIGN) != 0) {
    u64 m = (a & FRAC) | (e ? HIDDEN : 0);
    e += e == 0;
    u64 q = round_shift(m, (u32)(1075 - e), mode, a & SIGN);
    a = from_magnitude(a & SIGN, q, RN); /* exact: q has at most 53 bits */
  }
  return (flags & SAT) ? saturate(a) : a;
}
