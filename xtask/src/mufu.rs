//! The coefficient tables of the special function unit (`sim/src/mufu/tables.rs`).
//!
//! Every table splits its function's reduced range into segments and holds, per segment, a
//! quadratic `c0 + c1·t + c2·t²` in the segment's local variable `t ∈ [0, 1)`, with values
//! scaled by 2^32 (`sim/src/mufu.rs` evaluates it; `docs/mufu.md` gives the algorithms).
//! Each quadratic interpolates the function at the three Chebyshev nodes of the segment, which
//! is within a small factor of the best (minimax) quadratic.
//!
//! The reference values are computed here with IEEE additions, multiplications, divisions and
//! square roots only (series, no host libm), so every host generates the same tables.

use std::f64::consts::{LN_2, PI};
use std::fmt::Write;

/// The scale of every coefficient: values are integers in units of 2^-32.
const SCALE: f64 = 4_294_967_296.0;

/// One table: `segments` quadratics, the `s`-th fitting `value(s, t)` for `t ∈ [0, 1]`,
/// indexed by `bits` leading bits of the reduced argument (and more bits above them when
/// there are more segments: the exponent's parity, a binade).
struct Table {
    name: &'static str,
    doc: &'static str,
    bits: u32,
    segments: usize,
    value: fn(usize, f64) -> f64,
}

/// How many leading bits index each table (written into the tables' file for
/// `sim/src/mufu.rs`).
const RCP_BITS: u32 = 7;
const SQRT_BITS: u32 = 6;
const RSQRT_BITS: u32 = 7;
const EX2_BITS: u32 = 6;
const LG2_BITS: u32 = 7;
const SIN_BITS: u32 = 7;
const TANH_BITS: u32 = 5;
/// tanh is tabulated on the binades [2^TANH_MIN_EXP, 2^TANH_END_EXP).
const TANH_MIN_EXP: i32 = -12;
const TANH_END_EXP: i32 = 4;

/// `(s + t) / 2^bits`: the point at `t` of segment `s` of [0, 1).
fn frac(bits: u32, s: usize, t: f64) -> f64 {
    (s as f64 + t) / f64::from(1u32 << bits)
}

fn tables() -> Vec<Table> {
    vec![
        Table {
            name: "RCP",
            bits: RCP_BITS,
            doc: "1/x for x in [1, 2).",
            segments: 1 << RCP_BITS,
            value: |s, t| 1.0 / (1.0 + frac(RCP_BITS, s, t)),
        },
        Table {
            name: "SQRT",
            bits: SQRT_BITS,
            doc: "sqrt(x) for x in [1, 2), then for x in [2, 4).",
            segments: 2 << SQRT_BITS,
            value: |s, t| sqrt_arg(SQRT_BITS, s, t).sqrt(),
        },
        Table {
            name: "RSQRT",
            bits: RSQRT_BITS,
            doc: "1/sqrt(x) for x in [1, 2), then for x in [2, 4).",
            segments: 2 << RSQRT_BITS,
            value: |s, t| 1.0 / sqrt_arg(RSQRT_BITS, s, t).sqrt(),
        },
        Table {
            name: "EX2",
            bits: EX2_BITS,
            doc: "2^x for x in [0, 1).",
            segments: 1 << EX2_BITS,
            value: |s, t| exp(frac(EX2_BITS, s, t) * LN_2),
        },
        Table {
            name: "LG2",
            bits: LG2_BITS,
            doc: "log2(1 + u) / u for a significand f in [1, 2) (fraction bits `s`): \
                  u = f - 1 below 1.5, u = f/2 - 1 from 1.5.",
            segments: 1 << LG2_BITS,
            value: |s, t| {
                let f = frac(LG2_BITS, s, t);
                let u = if f < 0.5 { f } else { (f - 1.0) / 2.0 };
                log2_1p_over(u)
            },
        },
        Table {
            name: "SIN",
            bits: SIN_BITS,
            doc: "sin(pi/2 · x) for x in [0, 1): a quarter turn.",
            segments: 1 << SIN_BITS,
            value: |s, t| sin(PI / 2.0 * frac(SIN_BITS, s, t)),
        },
        Table {
            name: "TANH",
            bits: TANH_BITS,
            doc: "tanh(x) / 2^e for x in each binade [2^e, 2^(e+1)), e from -12 to 3.",
            segments: ((TANH_END_EXP - TANH_MIN_EXP) as usize) << TANH_BITS,
            value: |s, t| {
                let binade = 2f64.powi(TANH_MIN_EXP + (s >> TANH_BITS) as i32);
                let x = binade * (1.0 + frac(TANH_BITS, s & ((1 << TANH_BITS) - 1), t));
                tanh(x) / binade
            },
        },
    ]
}

/// The significand in [1, 4) of a square root's argument for tables indexed by `bits`
/// fraction bits: segments of [1, 2) for an even exponent, then of [2, 4) for an odd one.
fn sqrt_arg(bits: u32, s: usize, t: f64) -> f64 {
    let half = 1usize << bits;
    if s < half {
        1.0 + frac(bits, s, t)
    } else {
        2.0 * (1.0 + frac(bits, s - half, t))
    }
}

/// e^x by its Taylor series for |x| <= 1, squared up for larger x.
fn exp(x: f64) -> f64 {
    let mut halvings = 0;
    let mut y = x;
    while y.abs() > 1.0 {
        y /= 2.0;
        halvings += 1;
    }
    let (mut sum, mut term) = (1.0, 1.0);
    for n in 1..30 {
        term *= y / f64::from(n);
        sum += term;
    }
    for _ in 0..halvings {
        sum *= sum;
    }
    sum
}

/// log2(1 + u) / u for u in [-1/4, 1/2]: log(1 + u) = 2·atanh(s) with s = u / (2 + u), so
/// the quotient is 2/((2 + u)·ln 2) · (1 + s²/3 + s⁴/5 + ...), without dividing by u.
fn log2_1p_over(u: f64) -> f64 {
    let s = u / (2.0 + u);
    let (mut sum, mut power) = (0.0, 1.0);
    for k in 0..40 {
        sum += power / f64::from(2 * k + 1);
        power *= s * s;
    }
    2.0 / ((2.0 + u) * LN_2) * sum
}

/// sin(x) for x in [0, pi/2] by its Taylor series.
fn sin(x: f64) -> f64 {
    let (mut sum, mut term) = (x, x);
    for n in 1..20 {
        term *= -x * x / f64::from((2 * n) * (2 * n + 1));
        sum += term;
    }
    sum
}

/// tanh(x) = E / (E + 2) with E = e^(2x) - 1, the series of e^(2x) - 1 used while it has no
/// cancellation.
fn tanh(x: f64) -> f64 {
    let e = if x < 0.5 {
        let (mut sum, mut term) = (0.0, 1.0);
        for n in 1..30 {
            term *= 2.0 * x / f64::from(n);
            sum += term;
        }
        sum
    } else {
        exp(2.0 * x) - 1.0
    };
    e / (e + 2.0)
}

/// The quadratic through `value` at the Chebyshev nodes of [0, 1], as rounded scaled
/// coefficients `[c0, c1, c2]`.
fn fit(value: impl Fn(f64) -> f64) -> [i64; 3] {
    let h = 3f64.sqrt() / 4.0;
    let nodes = [0.5 - h, 0.5, 0.5 + h];
    let v = nodes.map(&value);
    // Newton's divided differences, then the monomial form.
    let d01 = (v[1] - v[0]) / (nodes[1] - nodes[0]);
    let d12 = (v[2] - v[1]) / (nodes[2] - nodes[1]);
    let c2 = (d12 - d01) / (nodes[2] - nodes[0]);
    let c1 = d01 - c2 * (nodes[0] + nodes[1]);
    let c0 = v[0] - c1 * nodes[0] - c2 * nodes[0] * nodes[0];
    [c0, c1, c2].map(|c| (c * SCALE).round() as i64)
}

/// The bits a two's complement field needs to hold every value of `values`.
fn signed_bits(values: impl Iterator<Item = i64>) -> u32 {
    values
        .map(|v| {
            65 - if v < 0 {
                v.leading_ones()
            } else {
                v.leading_zeros()
            }
        })
        .max()
        .unwrap_or(1)
}

/// The text of `sim/src/mufu/tables.rs`.
pub fn generate() -> String {
    let mut out = String::from(
        "// Generated by `cargo xtask codegen` (xtask/src/mufu.rs). Do not edit.\n\
         //! Per segment, `c0 + c1·t + c2·t²` with `t ∈ [0, 1)` the position in the segment,\n\
         //! values in units of 2^-32. The comment on each table gives its ROM: segments x\n\
         //! the bits of c0, c1 and c2 as two's complement fields.\n\n\
         use super::Quad;\n",
    );
    let _ = write!(
        out,
        "\n/// `TANH` covers the binades [2^{0}, 2^{1}).\npub const TANH_MIN_EXP: i32 = {0};\n\
         pub const TANH_END_EXP: i32 = {1};\n",
        TANH_MIN_EXP, TANH_END_EXP
    );
    for table in tables() {
        let coefficients: Vec<[i64; 3]> = (0..table.segments)
            .map(|s| fit(|t| (table.value)(s, t)))
            .collect();
        let widths: Vec<u32> = (0..3)
            .map(|i| signed_bits(coefficients.iter().map(|c| c[i])))
            .collect();
        let entry: u32 = widths.iter().sum();
        let _ = write!(
            out,
            "\n/// The leading bits that index `{0}`.\npub const {0}_BITS: u32 = {1};\n",
            table.name, table.bits
        );
        let _ = write!(
            out,
            "\n/// {}\n///\n/// ROM: {} x ({} + {} + {}) = {} bits.\npub const {}: [Quad; {}] = [\n",
            table.doc,
            table.segments,
            widths[0],
            widths[1],
            widths[2],
            table.segments as u32 * entry,
            table.name,
            table.segments,
        );
        for [c0, c1, c2] in coefficients {
            let _ = writeln!(out, "    Quad::new({c0}, {c1}, {c2}),");
        }
        out.push_str("];\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_agree_with_the_host_library() {
        for i in 0..=100 {
            let x = f64::from(i) / 100.0;
            assert!((exp(x * LN_2) - x.exp2()).abs() < 1e-15, "exp at {x}");
            assert!(
                (sin(x * PI / 2.0) - (x * PI / 2.0).sin()).abs() < 1e-15,
                "sin at {x}"
            );
            assert!(
                (tanh(4.0 * x) - (4.0 * x).tanh()).abs() < 1e-15,
                "tanh at {x}"
            );
            let u = x * 0.75 - 0.25;
            if u != 0.0 {
                let want = u.ln_1p() / LN_2 / u;
                assert!((log2_1p_over(u) - want).abs() < 1e-14, "log2 at {u}");
            }
        }
    }

    #[test]
    fn a_fit_reproduces_a_quadratic() {
        assert_eq!(
            fit(|t| 0.25 + 0.5 * t - 0.125 * t * t),
            [1 << 30, 1 << 31, -(1 << 29)]
        );
    }

    #[test]
    fn field_widths_count_the_sign() {
        assert_eq!(signed_bits([0, 1].into_iter()), 2);
        assert_eq!(signed_bits([-1].into_iter()), 1);
        assert_eq!(signed_bits([-128, 127].into_iter()), 8);
        assert_eq!(signed_bits([128].into_iter()), 9);
    }
}
