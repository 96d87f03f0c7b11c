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
//!
//! The same numbers go to the RTL (`hw/sgpu_mufu_pkg.sv`, read by `hw/sgpu_mufu.sv`): the
//! quadratics as one ROM of every table, and the windows of 1/(2·pi) that reduce `sin`'s and
//! `cos`'s argument, with the powers of two that put `ex2`'s into fixed point.

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

/// 1/(2·pi), its first 256 fraction bits (bits 1 to 256 after the point), most significant
/// word first. From `mpmath`: `hex(int(2**256 / (2 * mp.pi)))` at 400 bits of precision.
const INV_TAU: [u64; 4] = [
    0x28be_60db_9391_054a,
    0x7f09_d5f4_7d4d_3770,
    0x36d8_a566_4f10_e410,
    0x7f94_58ea_f7ae_f158,
];

/// The bits of a window of [`INV_TAU`], and the largest first bit a window starts after: an
/// f32's significand times 2^(127 - 23) at most.
const WINDOW: u32 = 96;
const LAST_WINDOW: u32 = 104;

/// The exponent field from which `sin`'s and `cos`'s argument has whole turns in its window
/// (k = field - 150 >= 0: the significand's last place is 2^k).
const WHOLE_FIELD: u32 = 150;

/// `ex2`'s argument in fixed point with 30 fraction bits (`sim/src/mufu.rs`), placed in the
/// RTL's product so that 2^-30 falls at bit `EX2_LSB`: the product holds it in bits
/// `EX2_LSB` up to 95, as it holds the turn fraction's (`hw/sgpu_mufu.sv`).
const EX2_POINT: u32 = 30;
const EX2_LSB: u32 = 58;

/// The exponent fields for which `ex2`'s fixed point is nonzero and |x| below 2^8 (the
/// model's limit): from the field whose significand's leading one is worth 2^-30 (2^23 x
/// 2^(f - 150) x 2^30 >= 1) to the field of 2^7.
const EX2_FIELDS: std::ops::RangeInclusive<u32> = (150 - EX2_POINT - 23)..=(127 + 7);

/// 96 bits of 1/(2·pi) from bit `first + 1` on, as the model's `inv_tau_window` takes them.
fn inv_tau_window(first: u32) -> u128 {
    assert!(first <= LAST_WINDOW);
    let bit = |i: u32| -> u128 {
        let (word, offset) = ((i / 64) as usize, 63 - i % 64);
        u128::from(INV_TAU[word] >> offset & 1)
    };
    (0..WINDOW).fold(0, |w, i| w << 1 | bit(first + i))
}

/// A table with its coefficients, and the bits each of c0, c1 and c2 needs.
struct Computed {
    table: Table,
    coefficients: Vec<[i64; 3]>,
    widths: [u32; 3],
}

/// Every table's coefficients, computed once for both views.
pub struct Tables(Vec<Computed>);

impl Tables {
    pub fn compute() -> Tables {
        Tables(
            tables()
                .into_iter()
                .map(|table| {
                    let coefficients: Vec<[i64; 3]> = (0..table.segments)
                        .map(|s| fit(|t| (table.value)(s, t)))
                        .collect();
                    let widths = [0, 1, 2].map(|i| signed_bits(coefficients.iter().map(|c| c[i])));
                    Computed {
                        table,
                        coefficients,
                        widths,
                    }
                })
                .collect(),
        )
    }

    /// The text of `sim/src/mufu/tables.rs`.
    pub fn rust(&self) -> String {
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
        let _ = write!(
            out,
            "\n/// 1/(2·pi), its first 256 fraction bits (bits 1 to 256 after the point), most\n\
             /// significant word first. From `mpmath`: `hex(int(2**256 / (2 * mp.pi)))` at 400\n\
             /// bits of precision.\npub const INV_TAU: [u64; 4] = [{}];\n",
            INV_TAU
                .map(|w| format!(
                    "0x{:04x}_{:04x}_{:04x}_{:04x}",
                    w >> 48,
                    w >> 32 & 0xffff,
                    w >> 16 & 0xffff,
                    w & 0xffff
                ))
                .join(", ")
        );
        for Computed {
            table,
            coefficients,
            widths,
        } in &self.0
        {
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

    /// The tables in the RTL's ROM, largest first so that each starts at a multiple of its
    /// size (its index is the address's low bits): each with its first word.
    fn rom_layout(&self) -> Vec<(usize, &Computed)> {
        let mut sorted: Vec<&Computed> = self.0.iter().collect();
        sorted.sort_by_key(|c| std::cmp::Reverse(c.table.segments));
        let mut base = 0;
        sorted
            .into_iter()
            .map(|t| {
                let at = base;
                assert!(t.table.segments.is_power_of_two() && at % t.table.segments == 0);
                base += t.table.segments;
                (at, t)
            })
            .collect()
    }

    /// The text of `hw/sgpu_mufu_pkg.sv`.
    pub fn sv(&self) -> String {
        let layout = self.rom_layout();
        let words: usize = self.0.iter().map(|c| c.table.segments).sum();
        let address = words.next_power_of_two().trailing_zeros();
        let widths = [0, 1, 2].map(|i| self.0.iter().map(|c| c.widths[i]).max().unwrap_or(1));
        let word = widths.iter().sum::<u32>();
        let mut out = String::from(
            "// Generated by `cargo xtask codegen` (xtask/src/mufu.rs). Do not edit.\n\
             //\n\
             // The special function unit's tables for hw/sgpu_mufu.sv, the numbers of\n\
             // sim/src/mufu/tables.rs. `coefficients` is one ROM of every table's quadratics\n\
             // c0 + c1·t + c2·t² (t in [0, 1) the position in the segment, values in units of\n\
             // 2^-32), a word {c2, c1, c0} of two's complement fields per segment, the tables one\n\
             // after another, each at a multiple of its size so that its index is the address's\n\
             // low bits. `reduction` is the ROM that reduces the arguments of sin, cos and ex2 by a\n\
             // multiplication: sin's and cos's significand times a window of 1/(2·pi), ex2's times\n\
             // a power of two.\n\
             package sgpu_mufu_pkg;\n\n",
        );
        let _ = writeln!(
            out,
            "  // A word of `coefficients`: c0 in the low bits, then c1, then c2.\n\
             \x20 localparam int unsigned C0_W = {};\n\
             \x20 localparam int unsigned C1_W = {};\n\
             \x20 localparam int unsigned C2_W = {};\n\
             \x20 localparam int unsigned ROM_AW = {address};  // {words} words\n",
            widths[0], widths[1], widths[2]
        );
        out.push_str(
            "  // Each table's first word and the leading fraction bits that index it (more index\n\
             \x20 // bits above them: the exponent's parity for SQRT and RSQRT, the binade for TANH).\n",
        );
        for (base, Computed { table, .. }) in &layout {
            let _ = writeln!(
                out,
                "  localparam int unsigned {0}_BASE = {base};\n  localparam int unsigned {0}_BITS = {1};",
                table.name, table.bits
            );
        }
        let _ = write!(
            out,
            "  // TANH covers the binades [2^TANH_MIN_EXP, 2^TANH_END_EXP).\n\
             \x20 localparam int TANH_MIN_EXP = {TANH_MIN_EXP};\n\
             \x20 localparam int TANH_END_EXP = {TANH_END_EXP};\n\n\
             \x20 // `reduction`'s words: the exponent field f of the argument, and whether it is ex2's.\n\
             \x20 // - sin and cos (word f): the {WINDOW} bits of 1/(2·pi) after its bit max(f - {WHOLE_FIELD}, 0),\n\
             \x20 //   those that give the significand s the fraction of a turn in s·2^(f - {WHOLE_FIELD}): the\n\
             \x20 //   product's bit {WINDOW} is a whole turn when f >= {WHOLE_FIELD}, and the turn for smaller f is the\n\
             \x20 //   product shifted down by {WHOLE_FIELD} - f.\n\
             \x20 // - ex2 (word 256 + f): 2^(f - {ex2_shift}) for f from {ex2_lo} to {ex2_hi}, where the fixed point of\n\
             \x20 //   s·2^(f - 150) with {EX2_POINT} fraction bits is nonzero and below 2^8: the product has it\n\
             \x20 //   with its bit 2^-{EX2_POINT} at bit EX2_LSB; zero elsewhere.\n\
             \x20 localparam int unsigned WINDOW_W = {WINDOW};\n\
             \x20 localparam int unsigned WHOLE_FIELD = {WHOLE_FIELD};\n\
             \x20 localparam int unsigned EX2_LSB = {EX2_LSB};\n\n",
            ex2_shift = 150 - EX2_POINT - EX2_LSB,
            ex2_lo = EX2_FIELDS.start(),
            ex2_hi = EX2_FIELDS.end(),
        );
        let _ = writeln!(
            out,
            "  function automatic logic [{}:0] coefficients(logic [ROM_AW-1:0] addr);\n    unique case (addr)",
            word - 1
        );
        for (
            base,
            Computed {
                table,
                coefficients,
                ..
            },
        ) in &layout
        {
            let _ = writeln!(out, "      // {}: {}", table.name, table.doc);
            for (i, c) in coefficients.iter().enumerate() {
                let bits = c.iter().zip(widths).rev().fold(0u128, |w, (&v, width)| {
                    w << width | (v as u128 & ((1u128 << width) - 1))
                });
                let digits = word.div_ceil(4) as usize;
                let _ = writeln!(
                    out,
                    "      {address}'d{}: coefficients = {word}'h{bits:0digits$x};",
                    base + i
                );
            }
        }
        let _ = write!(
            out,
            "      default: coefficients = '0;\n    endcase\n  endfunction\n\n\
             \x20 function automatic logic [{}:0] reduction(logic [8:0] addr);\n    unique case (addr)\n",
            WINDOW - 1
        );
        // The largest finite argument's field, 254, has its window at LAST_WINDOW.
        for field in 0..=WHOLE_FIELD + LAST_WINDOW {
            let w = inv_tau_window(field.saturating_sub(WHOLE_FIELD));
            let _ = writeln!(out, "      9'd{field}: reduction = {WINDOW}'h{w:024x};");
        }
        for field in EX2_FIELDS {
            let _ = writeln!(
                out,
                "      9'd{}: reduction = {WINDOW}'h{:024x};",
                256 + field,
                1u128 << (field + EX2_LSB + EX2_POINT - 150)
            );
        }
        out.push_str("      default: reduction = '0;\n    endcase\n  endfunction\n\nendpackage\n");
        out
    }
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
    fn windows_of_inv_tau_start_where_asked() {
        // 1/(2·pi) = 0.159154943091895..., its first 96 bits as f64 gives 53 of them.
        let top = (inv_tau_window(0) >> (WINDOW - 53)) as u64;
        assert_eq!(top, (0.5 / PI * 2f64.powi(53)) as u64);
        let words = |i: usize| u128::from(INV_TAU[i]) << 32 | u128::from(INV_TAU[i + 1] >> 32);
        assert_eq!(inv_tau_window(0), words(0));
        assert_eq!(inv_tau_window(64), words(1));
        assert_eq!(inv_tau_window(1) >> 95, u128::from(INV_TAU[0] >> 62 & 1));
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
