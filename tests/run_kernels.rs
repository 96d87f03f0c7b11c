//! PTX kernels through the whole flow (assemble, load, run on the golden model), each result
//! checked against a plain Rust computation of the same thing.

mod common;
mod video_kernels;

use common::{assemble_and_run, assert_checks, list, u32s, u64s, words, xorshift};
use sgpu_sim::launch::{self, Prepared};
use video_kernels::{kernel, manifest, scalar_cases, simd_cases, triples, VideoCase};
use video_kernels::{SCALAR_EDGES, SIMD_EDGES};

/// Assembles `tests/kernels/NAME.ptx` (or `examples/NAME.ptx`), runs it with `manifest`, and
/// returns the state after.
fn run(name: &str, manifest: &str) -> Prepared {
    let (path, source) = common::kernel(name);
    assemble_and_run(&source, &path, manifest).unwrap_or_else(|t| panic!("{name}: {t}"))
}

/// The manifest of a one-CTA launch of `threads` threads whose kernel takes an `in` buffer
/// (`values` as elements of `kind`, e.g. `u32`) and an `out` buffer of `out_bytes`.
fn in_out<T: std::fmt::Display>(
    threads: usize,
    kind: &str,
    values: impl IntoIterator<Item = T>,
    out_bytes: usize,
) -> String {
    format!(
        "block = [{threads}]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\n{kind} = [{}]\n[buffers.out]\nsize = {out_bytes}\n",
        list(values)
    )
}

#[test]
fn shared_memory_reduction_with_barriers() {
    let input: Vec<u32> = (0..1024u32)
        .map(|i| i.wrapping_mul(2654435761) >> 12)
        .collect();
    let manifest = format!(
        "grid = [4]\nblock = [256]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = 16\n",
        list(&input)
    );
    let p = run("reduce", &manifest);
    let want: Vec<u32> = input
        .chunks(256)
        .map(|c| c.iter().fold(0u32, |a, &x| a.wrapping_add(x)))
        .collect();
    assert_eq!(u32s(&p, "out"), want);
}

#[test]
fn nested_divergence_reconverges() {
    let p = run(
        "divergent",
        "block = [64]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 256\n",
    );
    let want: Vec<u32> = (0..64u32)
        .map(|t| match (t % 2, t % 4) {
            (0, _) => 3 * (t / 2),
            (_, 3) => 0, // exited early: nothing written
            _ => t * 1000,
        })
        .collect();
    assert_eq!(u32s(&p, "out"), want);
}

#[test]
fn sixty_four_bit_arithmetic_on_pairs() {
    let input: Vec<u64> = (0..32u64)
        .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 50)).wrapping_sub(i << 40))
        .collect();
    let manifest = in_out(32, "u64", input.iter().map(|&x| x as i64), 1024);
    let p = run("wide", &manifest);
    let out = u64s(&p, "out");
    for (i, &x) in input.iter().enumerate() {
        let i64_ = i as u64;
        let want = [
            x.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i64_),
            ((x as i64) >> 7) as u64,
            x / 1_000_003,
            u64::from((x as i64) < ((i64_ << 40) as i64)),
        ];
        assert_eq!(out[4 * i..4 * i + 4], want, "thread {i}, x = {x:#x}");
    }
}

#[test]
fn histogram_with_atomics() {
    let data: Vec<u8> = (0..1000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
        .collect();
    let manifest = format!(
        "grid = [8]\nblock = [128]\nparams = [{{ buffer = \"data\" }}, {{ buffer = \"bins\" }}, {{ u32 = 1000 }}]\n\
         [buffers.data]\nu8 = [{}]\n[buffers.bins]\nsize = 68\n",
        list(&data)
    );
    let p = run("histogram", &manifest);
    let mut want = vec![0u32; 17];
    for &b in &data {
        want[usize::from(b & 15)] += 1;
        want[16] = want[16].max(u32::from(b));
    }
    assert_eq!(u32s(&p, "bins"), want);
}

#[test]
fn recursive_device_function_calls() {
    let p = run(
        "calls",
        "block = [20]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 80\n",
    );
    let fib = |n: u32| (0..n).fold((0u32, 1u32), |(a, b), _| (b, a + b)).0;
    assert_eq!(u32s(&p, "out"), (0..20).map(fib).collect::<Vec<_>>());
}

#[test]
fn f32_arithmetic_is_ieee() {
    let pairs: [(f32, f32); 8] = [
        (1.5, 2.25),
        (-3.75, 0.1),
        (1e-40, 3.0),
        (7.0, -0.0),
        (f32::MAX, 2.0),
        (0.3, 0.7),
        (-1e30, 1e-10),
        (123456.79, 3.0),
    ];
    let manifest = in_out(
        8,
        "u32",
        pairs.iter().flat_map(|&(a, b)| [a.to_bits(), b.to_bits()]),
        160,
    );
    let p = run("floats", &manifest);
    let out = u32s(&p, "out");
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let q = a / b;
        // a + b rounded down: the exact sum (in f64, exact for these) then toward -inf.
        let exact = f64::from(a) + f64::from(b);
        let mut down = exact as f32;
        if f64::from(down) > exact {
            down = f32::from_bits(if down > 0.0 {
                down.to_bits() - 1
            } else {
                down.to_bits() + 1
            });
        }
        let rzi = if q.is_nan() {
            0
        } else {
            q.trunc().clamp(i32::MIN as f32, i32::MAX as f32) as i32
        };
        let want = [
            a.mul_add(b, a).to_bits(),
            q.to_bits(),
            a.abs().sqrt().to_bits(),
            down.to_bits(),
            rzi as u32,
        ];
        assert_eq!(
            out[5 * i..5 * i + 5],
            want,
            "thread {i}: a = {a:e}, b = {b:e}"
        );
    }
}

/// cvt to f16 and bf16 in each rounding mode (and `.sat`) and back, against `rustc_apfloat`:
/// ties, values between halves, overflow (which `.rz` keeps finite), subnormals, and NaNs,
/// which give the canonical NaN (never infinity).
#[test]
fn half_and_bfloat_conversions_round_by_their_modifier() {
    use rustc_apfloat::ieee::{BFloat, Half, Single};
    use rustc_apfloat::{Float, FloatConvert, Round};
    fn narrow<T: Float>(a: u32, round: Round) -> u32
    where
        Single: FloatConvert<T>,
    {
        let v: T = Single::from_bits(u128::from(a))
            .convert_r(round, &mut false)
            .value;
        if v.is_nan() {
            0x7fff
        } else {
            v.to_bits() as u32
        }
    }
    let inputs: [u32; 16] = [
        0x3f80_3000, // 1 + 3 x 2^-12: between two halves, above the midpoint
        0xbf80_1000, // -(1 + 2^-11): an f16 tie, to even
        0x3f80_8000, // 1 + 2^-8: a bf16 tie
        0x477f_f000, // 65520: f16 overflow, except toward zero
        0xc77f_f000, // -65520
        0x7f7f_ffff, // f32's largest: bf16 overflow
        0x3340_0000, // 1.5 x 2^-25: under f16's smallest subnormal
        0x0000_0001, // f32's smallest subnormal
        0x4040_0000, // 3: saturates to 1
        0xbe80_0000, // -0.25: saturates to +0
        0x8000_0000, // -0
        0x7f80_0000, // infinity
        0x7fc0_0000, // NaN
        0xffff_ffff, // NaN with every payload bit
        0x7f80_0001, // a signalling NaN
        0x3eaa_aaab, // 1/3
    ];
    let manifest = in_out(inputs.len(), "u32", inputs, 24 * inputs.len());
    let p = run("halfcvt", &manifest);
    let out = u32s(&p, "out");
    let (rn, rz, rm, rp) = (
        Round::NearestTiesToEven,
        Round::TowardZero,
        Round::TowardNegative,
        Round::TowardPositive,
    );
    for (i, &a) in inputs.iter().enumerate() {
        let x = f32::from_bits(a);
        let saturated = if x.is_nan() || x <= 0.0 {
            0.0
        } else {
            x.min(1.0)
        };
        let halves = [
            narrow::<Half>(a, rn),
            narrow::<Half>(a, rz),
            narrow::<Half>(a, rm),
            narrow::<Half>(a, rp),
            narrow::<Half>(saturated.to_bits(), rn),
            narrow::<BFloat>(a, rn),
            narrow::<BFloat>(a, rz),
            narrow::<BFloat>(a, rp),
        ];
        let widen = |h: Single| {
            if h.is_nan() {
                0x7fff_ffff
            } else {
                h.to_bits() as u32
            }
        };
        let f16_rz: Single = Half::from_bits(u128::from(halves[1]))
            .convert(&mut false)
            .value;
        let bf16_rn: Single = BFloat::from_bits(u128::from(halves[5]))
            .convert(&mut false)
            .value;
        let mut want: Vec<u32> = halves.chunks(2).map(|p| p[0] | p[1] << 16).collect();
        want.extend([widen(f16_rz), widen(bf16_rn)]);
        assert_eq!(out[6 * i..6 * i + 6], want, "thread {i}: {a:#010x}");
    }
}

/// The special functions and `div.approx` run on the model's MUFU (bit for bit what
/// `sgpu_sim::mufu` computes, with the `.ftz` the PTX asked for) and land within PTX's error
/// bounds of the exact functions.
#[test]
fn special_functions_run_on_the_mufu() {
    use sgpu_isa::Mufu::{self, *};
    let inputs: [f32; 9] = [0.5, 1.0, 3.0, 10.5, 1e-3, 100.0, 1e20, 2.5e-39, -2.0];
    let p = run(
        "special",
        &in_out(
            inputs.len(),
            "u32",
            inputs.map(f32::to_bits),
            48 * inputs.len(),
        ),
    );
    let out = u32s(&p, "out");
    let flush = |x: f32| if x.is_subnormal() { 0.0 } else { x };
    /// (function, .ftz, exact, tolerance, whether relative): outputs 0 to 7 of each thread.
    type Expected = (Mufu, bool, fn(f64) -> f64, f64, bool);
    let functions: [Expected; 8] = [
        (Sin, false, f64::sin, 2f64.powf(-20.9), false),
        (Cos, false, f64::cos, 2f64.powf(-20.9), false),
        (Ex2, true, f64::exp2, 2f64.powi(-22), true),
        (Lg2, false, f64::log2, 2f64.powi(-22), true),
        (Rcp, false, |x| 1.0 / x, 2f64.powi(-23), true),
        (Rsqrt, true, |x| 1.0 / x.sqrt(), 2f64.powf(-22.9), true),
        (Sqrt, false, f64::sqrt, 2f64.powi(-23), true),
        (Tanh, false, f64::tanh, 2f64.powf(-10.987), true),
    ];
    for (i, &a) in inputs.iter().enumerate() {
        let got = &out[12 * i..12 * i + 9];
        for (k, &(f, ftz, exact, tolerance, relative)) in functions.iter().enumerate() {
            let r = f32::from_bits(got[k]);
            let model = sgpu_sim::mufu::eval(f, a, ftz);
            assert_eq!(
                r.to_bits(),
                model.to_bits(),
                "{f:?} of {a:e}: {r:e}, model {model:e}"
            );
            let x = f64::from(if ftz { flush(a) } else { a });
            let e = exact(x);
            // NaN, or beyond f32's range: the same, exactly.
            if !(e as f32).is_finite() {
                let same = r.is_nan() && e.is_nan() || r == e as f32;
                assert!(same, "{f:?} of {a:e}: {r:e}, exact {e:e}");
                continue;
            }
            let bound = if relative {
                tolerance * e.abs()
            } else {
                tolerance
            };
            assert!(
                (f64::from(r) - e).abs() <= bound,
                "{f:?} of {a:e}: {r:e}, exact {e:e}"
            );
        }
        let third = a * sgpu_sim::mufu::eval(Rcp, 3.0, false);
        assert_eq!(got[8], third.to_bits(), "{a:e} / 3 by div.approx");
    }
}

#[test]
fn warp_shuffle_and_ballot() {
    let input: Vec<u32> = (0..32u32).map(|i| i * i + 7).collect();
    let manifest = in_out(32, "u32", &input, 8);
    let p = run("shuffle", &manifest);
    let sum = input.iter().sum::<u32>();
    let ballot = input
        .iter()
        .enumerate()
        .fold(0u32, |m, (i, &x)| m | ((x & 1) << i));
    assert_eq!(u32s(&p, "out"), [sum, ballot]);
}

#[test]
fn warp_reductions_and_matches() {
    let p = run(
        "reduxmatch",
        "block = [32]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 1024\n",
    );
    let out = u32s(&p, "out");
    let sum: u32 = (0..32).map(|t| t * 7).sum();
    for t in 0..32u32 {
        // Lanes with the same t % 4: every fourth lane from t % 4.
        let class = (0..32)
            .filter(|k| k % 4 == t % 4)
            .fold(0u32, |m, k| m | 1 << k);
        let want = [sum, 31 * 7, (10 - 31i32) as u32, class, 0, 0];
        assert_eq!(out[8 * t as usize..8 * t as usize + 6], want, "lane {t}");
    }
}

/// Runs each case as one kernel over the edge operands (a and b each of `edges`) and compares
/// every thread's result.
fn run_video_cases(cases: &[VideoCase], edges: &[u32]) {
    let triples = triples(edges);
    for case in cases {
        let ptx = kernel(&case.text);
        assert_checks(&ptx);
        let p = assemble_and_run(&ptx, &case.text, &manifest(&triples)).unwrap();
        let out = u32s(&p, "out");
        for (t, [a, b, c]) in triples.iter().enumerate() {
            assert_eq!(
                out[t],
                (case.expect)(*a, *b, *c),
                "{} with a={a:#x} b={b:#x} c={c:#x}",
                case.text
            );
        }
    }
}

/// Every scalar video instruction form through the assembler and the model: generated PTX over
/// edge operands, each result compared with the video ALU's definition (itself checked against
/// the pseudocode oracle in sim/tests/video_oracle.rs). This tests that each modifier reaches
/// the hardware instruction intact.
#[test]
fn video_instructions_through_the_whole_flow() {
    let cases = scalar_cases();
    assert!(cases.len() > 150, "{} forms", cases.len());
    run_video_cases(&cases, &SCALAR_EDGES);
}

/// Every SIMD video opcode through the assembler and the model, with every type, `.sat`,
/// `.add`, destination masks and selectors that move elements (which the encoder does with
/// PRMT): each result against the video ALU's definition (checked against the pseudocode in
/// sim/tests/simd_video_oracle.rs) on operands selected here.
#[test]
fn simd_video_instructions_through_the_whole_flow() {
    let cases = simd_cases();
    assert_eq!(cases.len(), 2 * (6 * 4 * 3 + 6 * 4 * 2));
    run_video_cases(&cases, &SIMD_EDGES);
}

#[test]
fn high_halves_of_64_bit_products() {
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
    let mut pairs: Vec<(u64, u64)> = (0..60).map(|_| (next(), next())).collect();
    pairs.extend([
        (u64::MAX, u64::MAX),
        (1 << 63, 1 << 63),
        (u64::MAX, 1),
        (0, 5),
    ]);
    let manifest = in_out(
        pairs.len(),
        "u64",
        pairs.iter().flat_map(|&(a, b)| [a as i64, b as i64]),
        16 * pairs.len(),
    );
    let p = run("mulhi", &manifest);
    let out = u64s(&p, "out");
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let hu = ((u128::from(a) * u128::from(b)) >> 64) as u64;
        let hs = ((i128::from(a as i64) * i128::from(b as i64)) >> 64) as u64;
        assert_eq!([out[2 * i], out[2 * i + 1]], [hu, hs], "{a:#x} * {b:#x}");
    }
}

#[test]
fn vectors_of_small_elements_load_and_store() {
    let input: Vec<u8> = (0..64u32)
        .map(|i| (i.wrapping_mul(77) ^ 0xa5) as u8)
        .collect();
    let manifest = in_out(4, "u8", &input, 64);
    let p = run("smallvec", &manifest);
    let out = launch::dump(&p, "out").unwrap();
    for t in 0..4 {
        let i = &input[16 * t..16 * t + 16];
        let h = |k: usize| u16::from_le_bytes([i[k], i[k + 1]]);
        let mut want = vec![i[3], i[2], i[1], i[0].wrapping_add(1)];
        let (h4, h5) = (h(4), h(6));
        want.extend(h5.wrapping_add(h4).to_le_bytes());
        want.extend(h4.to_le_bytes());
        for k in [14, 12, 10, 8] {
            want.extend(h(k).to_le_bytes());
        }
        assert_eq!(&out[16 * t..16 * t + 16], &want[..], "thread {t}");
    }
}

/// Element `i` of `x` as `bits`-bit lanes, sign- or zero-extended.
fn element(x: u32, i: u32, bits: u32, signed: bool) -> i64 {
    let v = (x >> (i * bits)) & ((1u64 << bits) - 1) as u32;
    if signed {
        i64::from(((v << (32 - bits)) as i32) >> (32 - bits))
    } else {
        i64::from(v)
    }
}

/// PTX's dp4a and dp2a (`hi` picks b's upper bytes), in 64-bit arithmetic, truncated.
fn dp4a(a: u32, b: u32, c: u32, asgn: bool, bsgn: bool) -> u32 {
    let sum = (0..4).map(|i| element(a, i, 8, asgn) * element(b, i, 8, bsgn));
    (i64::from(c) + sum.sum::<i64>()) as u32
}

fn dp2a(a: u32, b: u32, c: u32, asgn: bool, bsgn: bool, hi: bool) -> u32 {
    let first = if hi { 2 } else { 0 };
    let sum = (0..2).map(|i| element(a, i, 16, asgn) * element(b, first + i, 8, bsgn));
    (i64::from(c) + sum.sum::<i64>()) as u32
}

#[test]
fn dot_products_run_on_the_video_unit() {
    let mut next64 = xorshift(0x2545_F491_4F6C_DD1Du64);
    let mut next = || next64() as u32;
    let mut triples: Vec<[u32; 3]> = (0..56).map(|_| [next(), next(), next()]).collect();
    triples.extend([
        [0x8080_8080, 0x8080_8080, 0],
        [0x7f7f_7f7f, 0x8080_8080, 0x8000_0000],
        [u32::MAX, u32::MAX, u32::MAX],
        [0x8000_7fff, 0xff80_7f01, 0x7fff_ffff],
    ]);
    let manifest = in_out(
        triples.len(),
        "u32",
        triples.iter().flatten(),
        32 * triples.len(),
    );
    let out = u32s(&run("dot", &manifest), "out");
    for (t, &[a, b, c]) in triples.iter().enumerate() {
        let expected = [
            dp4a(a, b, c, false, false),
            dp4a(a, b, c, false, true),
            dp4a(a, b, c, true, false),
            dp4a(a, b, c, true, true),
            dp2a(a, b, c, false, false, false),
            dp2a(a, b, c, true, true, true),
            dp2a(a, b, c, true, false, false),
            dp2a(a, b, a, false, true, true),
        ];
        assert_eq!(
            out[8 * t..8 * t + 8],
            expected,
            "a {a:#x} b {b:#x} c {c:#x}"
        );
    }
}

#[test]
fn cache_policies_are_accepted_and_change_nothing() {
    let input: Vec<u32> = (0..64).map(|i| 1000 + 7 * i).collect();
    let manifest = format!(
        "block = [64]\nparams = [{{ buffer = \"data\" }}]\n[buffers.data]\nu32 = [{}]\n",
        list(&input)
    );
    let out = u32s(&run("cachehint", &manifest), "data");
    let expected: Vec<u32> = (0..64).map(|t| 3 * input[t as usize] + t).collect();
    assert_eq!(out, expected);
}

/// PTX's bmsk pseudocode, line by line.
fn bmsk(a: u32, b: u32, clamp: bool) -> u32 {
    let a1 = a & 0x1f;
    let mut mask0 = !0u32 << a1;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut mask1 = (!0u32).checked_shl(sum).unwrap_or(0);
    let sum_overflow = sum >= 32;
    let (mut position_overflow, mut width_overflow) = (false, false);
    if clamp {
        if a >= 32 {
            position_overflow = true;
            mask0 = 0;
        }
        if b >= 32 {
            width_overflow = true;
        }
    }
    if sum_overflow || position_overflow || width_overflow {
        mask1 = 0;
    } else if b1 == 0 {
        mask1 = !0;
    }
    mask0 & !mask1
}

#[test]
fn bit_masks_in_both_modes() {
    let values = [
        0,
        1,
        5,
        16,
        27,
        31,
        32,
        33,
        40,
        63,
        64,
        0x8000_0001,
        u32::MAX,
    ];
    let pairs: Vec<(u32, u32)> = values
        .iter()
        .flat_map(|&a| values.iter().map(move |&b| (a, b)))
        .collect();
    let manifest = in_out(
        pairs.len(),
        "u32",
        pairs.iter().flat_map(|&(a, b)| [a, b]),
        8 * pairs.len(),
    );
    let out = u32s(&run("bmsk", &manifest), "out");
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let expected = [bmsk(a, b, true), bmsk(a, b, false)];
        assert_eq!(out[2 * i..2 * i + 2], expected, "position {a} width {b}");
    }
}

/// PTX's bfi.b64 pseudocode: a's low bits into b from `pos`, within 64 bits.
fn bfi64(a: u64, b: u64, c: u32, d: u32) -> u64 {
    let (pos, len) = (c & 0xff, d & 0xff);
    let mut f = b;
    let mut i = 0;
    while i < len && pos + i <= 63 {
        f = f & !(1 << (pos + i)) | ((a >> i) & 1) << (pos + i);
        i += 1;
    }
    f
}

#[test]
fn sad_clz_and_bfi_at_64_bits() {
    let mut next = xorshift(0x6A09_E667_F3BC_C909u64);
    let mut triples: Vec<[u64; 3]> = (0..40).map(|_| [next(), next(), next()]).collect();
    // Equal high words (the low words decide), signs that differ, and wrap-around of c.
    triples.extend([
        [0x1_0000_0005, 0x1_0000_0009, 1],
        [0x1_8000_0000, 0x1_7fff_ffff, 0],
        [1 << 63, 1, 0],
        [u64::MAX, 0, u64::MAX],
        [5, 5, 7],
        [0, 0, 1 << 31],
        [1, 0, 0x8000_0000_0000_0000],
        // bfi: inside, running past bit 63, the whole word, nothing, and a position past 63.
        [u64::MAX, 0x2810, 0],
        [0x1234_5678_9abc_def0, 0x0a3c, 0x5555_5555_5555_5555],
        [0xdead_beef_cafe_f00d, 0x4000, 7],
        [u64::MAX, 0x0020, 0],
        [u64::MAX, 0x7f40, 0],
    ]);
    let manifest = in_out(
        triples.len(),
        "u64",
        triples.iter().flatten().map(|&v| v as i64),
        32 * triples.len(),
    );
    let p = run("more64", &manifest);
    let out = u64s(&p, "out");
    for (i, &[a, b, c]) in triples.iter().enumerate() {
        let signed = c.wrapping_add((a as i64).abs_diff(b as i64));
        let unsigned = c.wrapping_add(a.abs_diff(b));
        let clz = u64::from(a.leading_zeros()) | u64::from(c.leading_zeros()) << 32;
        let expected = [
            signed,
            unsigned,
            clz,
            bfi64(a, c, b as u32, (b >> 8) as u32),
        ];
        assert_eq!(out[4 * i..4 * i + 4], expected, "{a:#x} {b:#x} {c:#x}");
    }
}

#[test]
fn barrier_reductions_span_the_cta() {
    // All odd, none odd, and a mix; 100 threads: three full warps and a partial one.
    let mut next = xorshift(0xBB67_AE85_84CA_A73Bu64);
    let inputs: [Vec<u32>; 3] = [
        (0..100).map(|i| 2 * i + 1).collect(),
        (0..100).map(|i| 2 * i).collect(),
        (0..100).map(|_| next() as u32).collect(),
    ];
    for input in inputs {
        let p = run(
            "barred",
            &in_out(input.len(), "u32", &input, 24 * input.len()),
        );
        let odd = input.iter().filter(|&&v| v % 2 == 1).count() as u32;
        let n = input.len() as u32;
        let expected = [odd, u32::from(odd == n), u32::from(odd > 0), n - odd, 1, 0];
        let out = u32s(&p, "out");
        for (t, got) in out.chunks(6).enumerate() {
            assert_eq!(got, expected, "thread {t}, {odd} odd inputs");
        }
    }
}

#[test]
fn vector_moves_copy_in_parallel() {
    let (a, b, c, d) = (0x1111_1111u32, 0x2222_2222, 0x3333_3333, 0x4444_4444);
    let (x, y) = (0x0123_4567_89ab_cdefu64, 0xfedc_ba98_7654_3210u64);
    let words = [
        a,
        b,
        c,
        d,
        x as u32,
        (x >> 32) as u32,
        y as u32,
        (y >> 32) as u32,
    ];
    let p = run("vecmov", &in_out(1, "u32", words, 32));
    let out = u32s(&p, "out");
    // A copy done in order would have read a register it had just written.
    assert_eq!(out[..4], [c, d, a, b]);
    assert_eq!(u64s(&p, "out")[2..], [y, x]);
}

#[test]
fn whole_vector_registers_pack_and_unpack_against_scalars() {
    let threads = 32;
    let words: Vec<u32> = (0..4 * threads as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x8040_2010)
        .collect();
    let p = run("wholevec", &in_out(threads, "u32", &words, 48 * threads));
    let out = u32s(&p, "out");
    for (t, (got, w)) in out.chunks(12).zip(words.chunks(4)).enumerate() {
        let [a, b, c, d] = [w[0], w[1], w[2], w[3]];
        let halves_swapped = a.rotate_left(16);
        let b_bytes_twice = (b & 0xffff) * 0x1_0001;
        let want = [
            halves_swapped,
            a,
            (a >> 8) & 0xff,
            b,
            0x1234,
            0x1234_5678,
            b_bytes_twice,
            0,
            c,
            d,
            d,
            c,
        ];
        assert_eq!(got, want, "thread {t}");
    }
}

#[test]
fn generic_accesses_to_named_local_and_shared_variables() {
    let input: Vec<u64> = (0..40)
        .map(|i| (i as u64) << 33 | 0xffff_fff0 | i as u64)
        .collect();
    let p = run(
        "named",
        &in_out(
            input.len(),
            "u64",
            input.iter().map(|&v| v as i64),
            16 * input.len(),
        ),
    );
    let out = u64s(&p, "out");
    for (t, &v) in input.iter().enumerate() {
        // The local store adds 1 (with a carry into the high word); the shared word is 77,
        // less 1 plus 2.
        assert_eq!(
            [out[2 * t], out[2 * t + 1] & 0xffff_ffff],
            [v + 1, 78],
            "thread {t}"
        );
    }
}

#[test]
fn guarded_writes_keep_the_old_value_alive() {
    let manifest = "block = [8]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 32\n";
    let out = u32s(&run("guarded", manifest), "out");
    // Even threads keep 100 in each of the three iterations; odd ones take the counter.
    let expected: Vec<u32> = (0..8).map(|t| if t % 2 == 0 { 321 } else { 24 }).collect();
    assert_eq!(out, expected);
}

#[test]
fn register_names_resolve_by_scope_like_ptxas() {
    let manifest =
        "block = [32]\nparams = [{ buffer = \"data\" }]\n[buffers.data]\nsize = 128\n".to_string();
    let out = u32s(&run("scopes", &manifest), "data");
    // 100 (%r) + 7 + 20000 + 300000 + 4000000 (the inner block's additions to %r7)
    // + 1000 (%x2) + 50 (the outer %r5) + the thread index (the outer %r1).
    let expected: Vec<u32> = (0..32).map(|t| 4_321_157 + t).collect();
    assert_eq!(out, expected);
}

#[test]
fn offsets_past_the_offset_field_go_through_an_address_register() {
    // Words 0 and 2097152 (byte 8388608) of the buffer; the loads and stores reach the far
    // one with offsets one past either end of the signed 24-bit field.
    let manifest = "block = [1]\nparams = [{ buffer = \"buf\" }]\n[buffers.buf]\nsize = 8388612\n";
    let out = u32s(&run("faroffset", manifest), "buf");
    assert_eq!([out[0], out[2_097_152]], [41, 41]);
}

#[test]
fn a_call_from_a_frame_near_the_local_memory_limit() {
    // About 500,000 bytes of frame: with the 16 KiB call stack, just under 512 KiB.
    let manifest = "block = [1]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 4\n";
    assert_eq!(u32s(&run("farcall", manifest), "out"), [10]);
}

/// Device functions with `.reg` parameters and results, passed through the callee's frame:
/// calls inside a loop with a guarded early return, a 64-bit result with a predicate one, a predicate parameter,
/// f32 and 16-bit registers, vectors (of 16-bit elements too), and `.reg` and `.param` parameters
/// mixed.
#[test]
fn register_parameters_and_results() {
    let mut next = xorshift(0x5EED_0010);
    let mut input: Vec<u32> = (0..64).map(|_| next() as u32 >> (next() % 24)).collect();
    input[..6].copy_from_slice(&[0, 1, 360, 1000, 0x8000_0000, 0xFFFF]);
    let p = run("regcalls", &in_out(64, "u32", &input, 40 * 64));
    let out = u32s(&p, "out");
    let gcd = |mut a: u32, mut b: u32| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    for (t, &x) in input.iter().enumerate() {
        let wide = 2 * (u64::from(x) * 64);
        let big = u64::from(x) * 64 > 0x10_0000_0000;
        let want = [
            gcd(x, 360),
            u32::from(big),
            wide as u32,
            (wide >> 32) as u32,
            (x as f32 * 0.5).to_bits(),
            i32::from((x as u16 as i16).wrapping_neg()).wrapping_add(x.wrapping_sub(1000) as i32)
                as u32,
            x.wrapping_add(1),
            x,
            x.rotate_left(16),
            if big { x } else { !x },
        ];
        assert_eq!(out[10 * t..10 * t + 10], want, "thread {t}, x = {x:#x}");
    }
}

/// Indirect calls: each thread calls one of three functions through a pointer chosen by
/// its number (the warp calls each target in turn), the even threads one with a `.reg`
/// prototype under a guard (the odd ones keep the value they had), and each thread one of
/// a `.calltargets` list.
#[test]
fn indirect_calls_through_function_pointers() {
    let mut next = xorshift(0x5EED_0011);
    let input: Vec<u32> = (0..64).map(|_| next() as u32 >> 8).collect();
    let p = run("indirect", &in_out(64, "u32", &input, 12 * 64));
    let out = u32s(&p, "out");
    for (t, &x) in input.iter().enumerate() {
        let called = match t % 3 {
            0 => x.wrapping_add(x),
            1 => x.wrapping_mul(x),
            _ => x.wrapping_neg(),
        };
        let guarded = if t % 2 == 0 { x + 7 } else { 0 };
        let listed = if t % 2 == 0 {
            x.wrapping_mul(x)
        } else {
            x.wrapping_add(x)
        };
        let want = [called, guarded, listed];
        assert_eq!(out[3 * t..3 * t + 3], want, "thread {t}, x = {x:#x}");
    }
}

/// cp.async copies at once (zero fill with a source size of 0), its waits order nothing more,
/// and isspacep tells each window from global memory.
#[test]
fn async_copies_and_space_tests() {
    let input: Vec<u32> = (0..256u32)
        .map(|i| i.wrapping_mul(0x9E37_79B9) | 1)
        .collect();
    let p = run("asyncspace", &in_out(32, "u32", &input, 48 * 32));
    let out = u32s(&p, "out");
    // isspacep: global of a buffer, shared of shared data, local of local, const of const.
    let spaces = 1 | 8 | 16 | 64;
    for t in 0..32 {
        let i = &input[8 * t..8 * t + 8];
        let want = [
            i[0], i[1], i[2], i[3], i[4], i[5], i[6], 0, spaces, t as u32, 0, 0,
        ];
        assert_eq!(out[12 * t..12 * t + 12], want, "thread {t}");
    }
}

/// cp.async with a source size below the copy's and with ignore-src: the first bytes copied,
/// the rest zeros, nothing read past the source size (the edge buffer ends 5 bytes after the
/// copies' source, so reading 16 traps), and a guarded copy leaving threads that skip it alone.
#[test]
fn async_copies_fill_past_the_source_size_with_zeros() {
    let input: Vec<u8> = (0..512u32).map(|i| (i * 37 + 11) as u8).collect();
    let edge: Vec<u8> = (0..21u8).map(|i| 200 + i).collect();
    let manifest = format!(
        "block = [32]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"edge\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu8 = [{}]\n[buffers.edge]\nu8 = [{}]\n[buffers.out]\nsize = 4096\n",
        list(&input),
        list(&edge)
    );
    let p = run("asyncpartial", &manifest);
    let out = words::<16>(&p, "out");
    // `size` bytes of `from` (clamped to `copy`), zeros to `copy`, the 0xAA fill after it.
    let copied = |from: &[u8], size: usize, copy: usize| -> [u8; 16] {
        let mut want = [0xAA; 16];
        want[..copy].fill(0);
        let n = size.min(copy);
        want[..n].copy_from_slice(&from[..n]);
        want
    };
    for t in 0..32 {
        let from = &input[16 * t..16 * t + 16];
        let n = t % 18;
        let kept = if t < 24 {
            copied(from, n, 16)
        } else {
            [0xAA; 16]
        };
        let ignored = if t % 2 == 1 { 0 } else { 16 };
        let want = [
            copied(from, n, 16),
            copied(from, 5, 16),
            copied(from, 12, 16),
            copied(from, 3, 8),
            copied(from, ignored, 16),
            kept,
            copied(&edge[16..], t % 6, 16),
            copied(&edge[16..], 5, 16),
        ];
        assert_eq!(out[8 * t..8 * t + 8], want, "thread {t}");
    }
}

/// Vector atomics: each element its own atomic at its own address, sunk elements (`_`) still
/// applied, a generic address with an offset. The order the threads' atomics ran in is
/// whatever the count (element 3 of the f32 vector) says; every old value must be what the
/// threads before it in that order leave.
#[test]
fn vector_atomics_operate_on_each_element() {
    use sgpu_sim::float::{widen, BF16, F16};
    let manifest = "block = [32]\nparams = [{ buffer = \"acc\" }, { buffer = \"out\" }]\n\
         [buffers.acc]\nsize = 64\n[buffers.out]\nsize = 1024\n";
    let p = run("vecatomic", manifest);
    let (acc, out) = (u32s(&p, "acc"), u32s(&p, "out"));
    let f = |bits: u32| f32::from_bits(bits);
    let half = |word: u32, hi: bool| widen(if hi { word >> 16 } else { word & 0xffff }, F16);
    let threads: Vec<f32> = (0..32).map(|t| t as f32).collect();
    // Thread t's turn, from the count it saw.
    let turn: Vec<usize> = (0..32).map(|t| f(out[8 * t]) as usize).collect();
    let mut order = turn.clone();
    order.sort_unstable();
    assert_eq!(
        order,
        (0..32).collect::<Vec<_>>(),
        "the counts are a permutation"
    );
    let value = |t: usize, i: usize| ((t * (i + 1)) % 37) as f32;
    for t in 0..32 {
        let before: Vec<usize> = (0..32).filter(|&u| turn[u] < turn[t]).collect();
        let sum: f32 = before.iter().map(|&u| threads[u]).sum();
        let olds = [f(out[8 * t + 1]), f(out[8 * t + 2]), f(out[8 * t + 3])];
        assert_eq!(olds, [sum, 2.0 * sum, 3.0 * sum], "thread {t}'s f32 olds");
        let max = |i: usize| before.iter().map(|&u| value(u, i)).fold(0.0, f32::max);
        let (w, w9) = (out[8 * t + 4], out[8 * t + 5]);
        let got = [half(w, false), half(w, true), half(w9, false)];
        assert_eq!(got, [max(0), max(2), max(7)], "thread {t}'s f16 olds");
        let min = |x: fn(f32) -> f32| before.iter().map(|&u| x(threads[u])).fold(0.0, f32::min);
        let pairs = [out[8 * t + 6], out[8 * t + 7]];
        let got = pairs.map(|w| [half(w, false), half(w, true)]);
        let want = [[min(|x| -x), min(|x| x)], [min(|x| x), min(|x| -2.0 * x)]];
        assert_eq!(got, want, "thread {t}'s f16x2 olds");
    }
    assert_eq!(
        acc[..4].iter().map(|&b| f(b)).collect::<Vec<_>>(),
        [496.0, 992.0, 1488.0, 32.0]
    );
    let maxima: Vec<f32> = (0..8)
        .map(|i| (0..32).map(|t| value(t, i)).fold(0.0, f32::max))
        .collect();
    let halves: Vec<f32> = (0..8).map(|i| half(acc[4 + i / 2], i % 2 == 1)).collect();
    assert_eq!(halves, maxima);
    let sums: Vec<f32> = (0..8)
        .map(|i| widen((acc[8 + i / 2] >> (16 * (i % 2))) & 0xffff, BF16))
        .collect();
    assert_eq!(sums, [32.0, 64.0, 32.0, 64.0, 32.0, 64.0, 32.0, 64.0]);
    let pairs: Vec<f32> = (0..4).map(|i| half(acc[12 + i / 2], i % 2 == 1)).collect();
    assert_eq!(pairs, [-31.0, 0.0, 0.0, -62.0]);
}

/// `.global` and `.const` variables declared inside functions: two functions' statics of
/// one name are two variables, and a block's constant table is read by its name.
#[test]
fn variables_declared_inside_functions() {
    let p = run(
        "statics",
        "block = [8]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 128\n",
    );
    let out = u32s(&p, "out");
    let mut firsts: Vec<u32> = (0..8).map(|t| out[4 * t]).collect();
    let mut seconds: Vec<u32> = (0..8).map(|t| out[4 * t + 1]).collect();
    firsts.sort_unstable();
    seconds.sort_unstable();
    // Every thread's atomic saw the count before it: each value once.
    assert_eq!(firsts, (0..8).collect::<Vec<u32>>());
    assert_eq!(seconds, (0..8).map(|k| 100 + 2 * k).collect::<Vec<u32>>());
    for t in 0..8u32 {
        assert_eq!(out[4 * t as usize + 2], (t % 4) * (t % 4), "thread {t}");
    }
}

/// Initializers holding addresses: the loader fills in a global variable's address (plus
/// its offset) in `.global` and `.const` data; `generic` of a `.const` variable is its
/// address in the constant window.
#[test]
fn initializers_holding_addresses() {
    let p = run(
        "addrinit",
        "params = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 16\n",
    );
    assert_eq!(u32s(&p, "out"), [10, 30, 40, 6]);
}

/// 256-bit accesses (`.v8` of 32-bit elements, `.v4` of 64-bit ones) as two 128-bit ones:
/// each thread reverses its first eight words (one skipped with `_`, stored as 0) and its
/// next four doublewords.
#[test]
fn two_hundred_fifty_six_bit_accesses() {
    let input: Vec<u32> = (0..16 * 8u32)
        .map(|i| i.wrapping_mul(0x2545_F491) ^ i)
        .collect();
    let p = run("wide256", &in_out(8, "u32", &input, 64 * 8));
    let out = u32s(&p, "out");
    for t in 0..8 {
        let i = &input[16 * t..16 * t + 16];
        let mut want: Vec<u32> = i[..8].iter().rev().copied().collect();
        want[2] = 0;
        for d in (0..4).rev() {
            want.extend([i[8 + 2 * d], i[9 + 2 * d]]);
        }
        assert_eq!(out[16 * t..16 * t + 16], want, "thread {t}");
    }
}

/// vote.sync on constant predicates (1 and 0) as well as registers, with member masks as
/// immediates and in registers, in a CTA of 24 threads.
#[test]
fn votes_on_every_predicate_form() {
    let p = run(
        "votes",
        "block = [24]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 768\n",
    );
    let out = u32s(&p, "out");
    let members = 0x00ff_ffffu32;
    let even = (0..24).filter(|l| l % 2 == 0).fold(0u32, |m, l| m | 1 << l);
    for t in 0..24 {
        // any(1), all(0), uni(0), all(!odd); ballot(1), ballot(!odd).
        let want = [1, 0, 1, 0, members, even];
        assert_eq!(out[8 * t..8 * t + 6], want, "thread {t}");
    }
}

/// Shared memory size registers, the performance monitors and environment registers (0 on
/// sgpu) and the global timer (it counts instructions, so two reads differ).
#[test]
fn special_registers_older_code_reads() {
    let p = run(
        "specials",
        "shared = 256\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 24\n",
    );
    let out = u32s(&p, "out");
    // The 100 static bytes, padded to 16 where the extern array starts, and the 256 dynamic.
    assert_eq!(out[..5], [256, 368, 0, 0, 0]);
    assert!(out[5] > 0, "the timer advanced: {}", out[5]);
}

/// mov between vectors and wider scalars: 64 bits into four halves and back reversed, into
/// two words with one dropped, 32 bits into four bytes and back rotated, two halves into a
/// word.
#[test]
fn vectors_and_wider_scalars_in_every_direction() {
    let mut next = xorshift(0x3C6E_F372_FE94_F82B);
    let input: Vec<u64> = (0..32).map(|_| next()).collect();
    let p = run(
        "movpack",
        &in_out(32, "u64", input.iter().map(|&x| x as i64), 24 * 32),
    );
    let out = u32s(&p, "out");
    for (t, &x) in input.iter().enumerate() {
        let h = |k: u32| (x >> (16 * k)) & 0xffff;
        let reversed = h(3) | h(2) << 16 | h(1) << 32 | h(0) << 48;
        let low = x as u32;
        let want = [
            reversed as u32,
            (reversed >> 32) as u32,
            (x >> 32) as u32,
            low.rotate_right(8),
            (h(1) | h(2) << 16) as u32,
        ];
        assert_eq!(out[6 * t..6 * t + 5], want, "thread {t}: {x:#018x}");
    }
}

/// A SIMD destination mask spelled as every element (`.h10`, `.b3210`) is the default.
#[test]
fn simd_video_with_the_default_mask_spelled_out() {
    let mut next = xorshift(0x510E_527F_ADE6_82D1);
    let input: Vec<u32> = (0..64).map(|_| next() as u32).collect();
    let p = run("simdmask", &in_out(32, "u32", &input, 16 * 32));
    let out = u32s(&p, "out");
    for t in 0..32 {
        assert_eq!(out[4 * t], out[4 * t + 1], "vadd2, thread {t}");
        assert_eq!(out[4 * t + 2], out[4 * t + 3], "vabsdiff4, thread {t}");
        let (a, b) = (input[2 * t], input[2 * t + 1]);
        let sum: u32 = (0..4)
            .map(|k| ((a >> (8 * k)) & 0xff).abs_diff((b >> (8 * k)) & 0xff))
            .sum();
        assert_eq!(out[4 * t + 2], sum, "vabsdiff4.add, thread {t}");
    }
}

/// f16 arithmetic through f32 against `rustc_apfloat`'s Half (rounded once, to nearest even),
/// on every pair of sixteen edge values: zeros, ones, the largest, subnormals, the smallest
/// normal, infinities, NaN, and values whose sums and products round.
#[test]
fn half_precision_arithmetic() {
    let values: [u16; 16] = [
        0x0000, 0x8000, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x3555, 0x0001, 0x03ff, 0x0400, 0x7c00,
        0xfc00, 0x7e00, 0x3800, 0x4248, 0x0c01,
    ];
    let pairs: Vec<u32> = (0..256)
        .map(|t| u32::from(values[t % 16]) | u32::from(values[t / 16]) << 16)
        .collect();
    let p = run("halfmath", &in_out(256, "u32", &pairs, 16 * 256));
    let out = words::<2>(&p, "out");
    for t in 0..256 {
        let (a, b) = (values[t % 16], values[t / 16]);
        let f = |op| f16_reference(op, a, b, 0);
        let want = [
            f("add"),
            f("sub"),
            f("mul"),
            f("mul.sat"),
            f("min"),
            f("max"),
            f("neg"),
            f16_reference("abs", b, 0, 0),
        ];
        let got: Vec<u16> = out[8 * t..8 * t + 8]
            .iter()
            .map(|w| u16::from_le_bytes(*w))
            .collect();
        assert_eq!(got, want, "thread {t}: {a:#06x}, {b:#06x}");
    }
}

/// What PTX's f16 operation `op` gives for `a`, `b` (and `c` for fma), after `rustc_apfloat`'s
/// Half: rounded once to nearest even, a NaN result the canonical 0x7fff; `.sat` clamps to
/// [0, 1] (NaN to 0); min and max take the other operand of a NaN (both NaN: NaN, and any
/// NaN with `.NaN`), -0 below +0; neg and abs act on `a`.
fn f16_reference(op: &str, a: u16, b: u16, c: u16) -> u16 {
    use rustc_apfloat::ieee::Half;
    use rustc_apfloat::Float;
    let nan = 0x7fffu16;
    let h = |b: u16| Half::from_bits(u128::from(b));
    let bits = |x: Half| if x.is_nan() { nan } else { x.to_bits() as u16 };
    let sat = |v: Half| {
        if v.is_nan() || v.is_negative() {
            0
        } else if v > h(0x3c00) {
            0x3c00
        } else {
            v.to_bits() as u16
        }
    };
    let (x, y) = (h(a), h(b));
    let pick = |max: bool, nan_wins: bool| match (x.is_nan(), y.is_nan()) {
        (true, true) => nan,
        (true, false) | (false, true) if nan_wins => nan,
        (true, false) => b,
        (false, true) => a,
        _ if x == y => {
            if (a | b) & 0x8000 != 0 && !max {
                a | b
            } else {
                a & b
            }
        }
        _ if (x < y) != max => a,
        _ => b,
    };
    match op {
        "add" => bits((x + y).value),
        "sub" => bits((x - y).value),
        "mul" => bits((x * y).value),
        "mul.sat" => sat((x * y).value),
        "fma" => bits(x.mul_add(y, h(c)).value),
        "fma.sat" => sat(x.mul_add(y, h(c)).value),
        "min" => pick(false, false),
        "max" => pick(true, false),
        "max.NaN" => pick(true, true),
        "neg" if x.is_nan() => nan,
        "neg" => a ^ 0x8000,
        "abs" if x.is_nan() => nan,
        "abs" => a & 0x7fff,
        other => unreachable!("no f16 operation {other}"),
    }
}

/// f16x2 arithmetic: each half as the f16 operation on its own, on random and edge pairs.
#[test]
fn packed_half_precision_arithmetic() {
    let edges: [u16; 8] = [
        0x0000, 0x8000, 0x3c00, 0x7bff, 0x0001, 0x7c00, 0x7e00, 0x3555,
    ];
    let mut next = xorshift(0x6A09_E667_BB67_AE85);
    let inputs: Vec<u32> = (0..3 * 256)
        .map(|i| {
            let r = next();
            if i % 2 == 0 {
                r as u32
            } else {
                u32::from(edges[(r % 8) as usize]) | u32::from(edges[(r >> 8) as usize % 8]) << 16
            }
        })
        .collect();
    let p = run("halfpair", &in_out(256, "u32", &inputs, 48 * 256));
    let out = u32s(&p, "out");
    let ops = [
        "add", "sub", "mul", "fma", "fma.sat", "min", "max.NaN", "neg",
    ];
    for t in 0..256 {
        let [a, b, c] = [inputs[3 * t], inputs[3 * t + 1], inputs[3 * t + 2]];
        let half = |v: u32, k: u32| (v >> (16 * k)) as u16;
        let pair = |op: &str, x: u32| {
            let f = |k| u32::from(f16_reference(op, half(x, k), half(b, k), half(c, k)));
            f(0) | f(1) << 16
        };
        let mut want: Vec<u32> = ops.iter().map(|op| pair(op, a)).collect();
        want.push(pair("abs", b));
        assert_eq!(
            out[12 * t..12 * t + 9],
            want,
            "thread {t}: {a:#010x} {b:#010x} {c:#010x}"
        );
    }
}

/// f16 comparisons (`setp`, `set` to u32 and to f16) on every pair of sixteen edge values,
/// against `rustc_apfloat`'s ordering. They compared the raw registers as f32 before.
#[test]
fn half_precision_comparisons() {
    use rustc_apfloat::ieee::Half;
    use rustc_apfloat::Float;
    let values: [u16; 8] = [
        0x0000, 0x8000, 0x3c00, 0xbc00, 0x7bff, 0x0001, 0x7c00, 0x7e00,
    ];
    let pairs: Vec<u32> = (0..64)
        .map(|t| u32::from(values[t % 8]) | u32::from(values[t / 8]) << 16)
        .collect();
    let p = run("halfcmp", &in_out(64, "u32", &pairs, 48 * 64));
    let out = u32s(&p, "out");
    let h = |b: u16| Half::from_bits(u128::from(b));
    for t in 0..64 {
        let (x, y) = (h(values[t % 8]), h(values[t / 8]));
        let unordered = x.is_nan() || y.is_nan();
        let (lt, gtu) = (!unordered && x < y, unordered || x > y);
        // setp.f16x2 on (x, y) against (y, x): p from the low halves, q from the high ones.
        let (lt_swapped, gtu_swapped) = (!unordered && y < x, unordered || y > x);
        let want = [
            u32::from(lt),
            u32::from(gtu),
            if !unordered && x == y { u32::MAX } else { 0 },
            if !unordered && x >= y { 0x3c00 } else { 0 },
            u32::from(lt),
            u32::from(lt_swapped),
            u32::from(gtu || lt),
            u32::from(gtu_swapped || lt),
            // set.gt.f16x2.f16x2: 1.0 in each half that compares greater.
            (u32::from(!unordered && x > y) * 0x3c00)
                | (u32::from(!unordered && y > x) * 0x3c00_0000),
        ];
        // 48 bytes a thread (16-byte aligned stores), 36 of them written.
        assert_eq!(out[12 * t..12 * t + 9], want, "thread {t}: {x:?}, {y:?}");
    }
}

/// fma.rn.f16 (and .sat) rounded once, against `rustc_apfloat`'s fused multiply-add on Half:
/// random triples, triples that cancel (c near -a*b), and small products added to values near
/// one, where a sum rounded twice would land on an f16 midpoint.
#[test]
fn half_precision_fused_multiply_add() {
    use rustc_apfloat::ieee::Half;
    use rustc_apfloat::Float;
    let h = |b: u16| Half::from_bits(u128::from(b));
    let bits = |x: Half| x.to_bits() as u16;
    let mut next = xorshift(0x1F83_D9AB_FB41_BD6B);
    let mut triples = Vec::new();
    for i in 0..8192u32 {
        let r = next();
        let (a, b) = (r as u16, (r >> 16) as u16);
        let c = match i % 3 {
            0 => (r >> 32) as u16,
            // c near -(a * b): what is left is the product's low bits.
            1 => bits(-(h(a) * h(b)).value)
                .wrapping_add((r >> 32) as u16 % 5)
                .wrapping_sub(2),
            // a product around 2^-11 added to a value near one.
            _ => 0x3c00 | ((r >> 32) as u16 & 0x3ff),
        };
        let (a, b) = if i % 3 == 2 {
            (0x3c00 | (a & 0x3ff), 0x1000 | (b & 0x3ff))
        } else {
            (a, b)
        };
        triples.push(u64::from(a) | u64::from(b) << 16 | u64::from(c) << 32);
    }
    // Products just above half an ulp of c in [1, 2): 2^-11 (1 + k 2^-21) with 0 < k < 256,
    // from (1024 + m1)(1024 + m2) = 2^21 + k. Their sum with c rounded to f32 first is an f16
    // midpoint, which ties to even; rounded once it goes up.
    for m1 in 0..1024u32 {
        let m2 = (1u32 << 21).div_ceil(1024 + m1).saturating_sub(1024);
        let k = (1024 + m1) * (1024 + m2) - (1 << 21);
        if m2 >= 1024 || k == 0 || k >= 256 {
            continue;
        }
        // Exponent -6 each: 0x2400 is 2^-6.
        let (a, b) = (0x2400 | m1 as u16, 0x2400 | m2 as u16);
        let c = 0x3c00 | (next() as u16 & 0x3fe);
        for (a, c) in [(a, c), (a | 0x8000, c | 0x8000)] {
            triples.push(u64::from(a) | u64::from(b) << 16 | u64::from(c) << 32);
        }
    }
    assert!(triples.len() > 8192, "some midpoint cases exist");
    let blocks = triples.len().div_ceil(256);
    triples.resize(blocks * 256, 0);
    let manifest = format!(
        "grid = [{blocks}]\nblock = [256]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu64 = [{}]\n[buffers.out]\nsize = {}\n",
        list(triples.iter().map(|&t| t as i64)),
        4 * triples.len()
    );
    let p = run("halffma", &manifest);
    let out = words::<2>(&p, "out");
    for (i, &t) in triples.iter().enumerate() {
        let (a, b, c) = (t as u16, (t >> 16) as u16, (t >> 32) as u16);
        let r = h(a).mul_add(h(b), h(c)).value;
        let want = if r.is_nan() { 0x7fff } else { bits(r) };
        let sat = if r.is_nan() || r.is_negative() {
            0
        } else if r > h(0x3c00) {
            0x3c00
        } else {
            bits(r)
        };
        let got = [out[2 * i], out[2 * i + 1]].map(u16::from_le_bytes);
        assert_eq!(got, [want, sat], "{i}: fma({a:#06x}, {b:#06x}, {c:#06x})");
    }
}

/// cvt.rn.f16x2.f32 and cvt.rn.bf16x2.f32: a to the high half, b to the low one, each rounded
/// as `rustc_apfloat` rounds it (NaN the canonical 0x7fff).
#[test]
fn conversions_to_packed_halves() {
    use rustc_apfloat::ieee::{BFloat, Half, Single};
    use rustc_apfloat::{Float, FloatConvert};
    fn narrow<T: Float>(x: u32) -> u32
    where
        Single: FloatConvert<T>,
    {
        let v: T = Single::from_bits(u128::from(x)).convert(&mut false).value;
        if v.is_nan() {
            0x7fff
        } else {
            v.to_bits() as u32
        }
    }
    let mut next = xorshift(0x3C6E_F372_A54F_F53A);
    let edges = [
        0x3f80_3000u32,
        0x477f_f000,
        0x7fc0_0000,
        0x8000_0000,
        0x3340_0000,
    ];
    let inputs: Vec<u32> = (0..64)
        .map(|i| {
            if i < 10 {
                edges[i % 5]
            } else {
                (next() >> 8) as u32 ^ 0x3f00_0000
            }
        })
        .collect();
    let p = run("cvtpair", &in_out(32, "u32", &inputs, 16 * 32));
    let out = u32s(&p, "out");
    for t in 0..32 {
        let (a, b) = (inputs[2 * t], inputs[2 * t + 1]);
        let pack = |f: &dyn Fn(u32) -> u32| f(b) | f(a) << 16;
        let want = [pack(&narrow::<Half>), pack(&narrow::<BFloat>)];
        assert_eq!(
            out[4 * t..4 * t + 2],
            want,
            "thread {t}: {a:#010x} {b:#010x}"
        );
    }
}

/// bfe on 64 bits, as PTX's pseudocode says it.
fn bfe64(a: u64, pos: u32, len: u32, signed: bool) -> u64 {
    let (pos, len) = (pos & 0xff, len & 0xff);
    let sbit = signed && len != 0 && a >> (pos + len - 1).min(63) & 1 == 1;
    (0..64u32)
        .map(|i| {
            let bit = if i < len && pos + i <= 63 {
                a >> (pos + i) & 1 == 1
            } else {
                sbit
            };
            u64::from(bit) << i
        })
        .sum()
}

/// Carry chains across 64-bit words, bfe of 64-bit values, slct of them, and `set` from f32
/// comparisons (which wrote nothing before: the f32 comparison returned early).
#[test]
fn carry_chains_wide_bit_fields_and_float_sets() {
    let mut next = xorshift(0xc0ff_ee00_1234_5678);
    let mut input: Vec<u64> = (0..128).map(|_| next()).collect();
    // Equal limbs (no borrow), NaN and negative low words.
    input[2] = input[3];
    input[9] = 0x7fc0_0001;
    input[12] = 0xffff_ffff_ffff_ffff;
    let manifest = in_out(64, "u64", input.iter().map(|&x| x as i64), 64 * 128);
    let p = run("carry64", &manifest);
    let out = u64s(&p, "out");
    let words = u32s(&p, "out");
    for t in 0..64 {
        let (a, b) = (input[2 * t], input[2 * t + 1]);
        let o = &out[16 * t..16 * t + 16];
        let (x, y) = (
            u128::from(a) << 64 | u128::from(b),
            u128::from(b) << 64 | u128::from(a),
        );
        let sum = x.wrapping_add(y);
        let (diff, borrow) = x.overflowing_sub(y);
        let want = [
            sum as u64,
            (sum >> 64) as u64,
            diff as u64,
            (diff >> 64) as u64,
            0u64.wrapping_sub(u64::from(borrow)),
            bfe64(a, 5, 17, false),
            bfe64(a, 60, 10, false),
            bfe64(a, 40, 24, true),
            bfe64(a, 70, 3, true),
            bfe64(a, b as u32, (b as u32) >> 8, false),
            bfe64(a, b as u32, (b as u32) >> 8, true),
            if b as u32 as i32 >= 0 { a } else { b },
        ];
        assert_eq!(o[..12], want, "thread {t}: a = {a:#x}, b = {b:#x}");
        let (fa, fb) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let gtu = fa > fb || fa.is_nan() || fb.is_nan();
        let sets = [
            if fa < fb { u32::MAX } else { 0 },
            if fa >= fb { 1f32.to_bits() } else { 0 },
            if fa.is_nan() || fb.is_nan() {
                u32::MAX
            } else {
                0
            },
            if gtu || t != 3 { u32::MAX } else { 0 },
        ];
        assert_eq!(
            words[32 * t + 24..32 * t + 28],
            sets,
            "thread {t}: {fa} {fb}"
        );
    }
}

/// Atomic adds of f16, bf16, f16x2 and bf16x2 (`.noftz`: rounded to nearest, subnormals
/// kept) against `rustc_apfloat`, each thread on its own words with the old values
/// returned; `atom.add.f64` (a compare-and-swap loop around the f64 runtime's add) under a
/// guard; and every thread on one shared word of each kind, with exact sums.
#[test]
fn atomic_adds_of_half_precision_and_f64() {
    use rustc_apfloat::ieee::{BFloat, Half};
    use rustc_apfloat::{Float, Round};
    fn add<T: Float>(a: u16, b: u16) -> u16 {
        let r = T::from_bits(a.into())
            .add_r(T::from_bits(b.into()), Round::NearestTiesToEven)
            .value;
        if r.is_nan() {
            0x7fff
        } else {
            r.to_bits() as u16
        }
    }
    let halves: [u16; 12] = [
        0x0000, 0x8000, 0x3c00, 0x0001, 0x7bff, 0x7c00, 0x7e00, 0x3f80, 0x7f7f, 0x0080, 0xbc01,
        0x4248,
    ];
    let mut next = xorshift(0xa70f_0000_0016_0001);
    let threads = 64;
    let mut h = |i: usize| halves[(next() as usize + i) % halves.len()];
    let input: Vec<(u32, f64)> = (0..threads)
        .map(|i| {
            let w = u32::from(h(i)) | u32::from(h(i + 3)) << 16;
            (w, (i as f64) * 0.5 - 3.0)
        })
        .collect();
    let own: Vec<(u32, u32, u32, f64)> = (0..threads)
        .map(|i| {
            let a = u32::from(h(i + 1)) | u32::from(h(i + 5)) << 16;
            let b = u32::from(h(i + 2)) | u32::from(h(i + 7)) << 16;
            let c = u32::from(h(i + 4)) | u32::from(h(i + 9)) << 16;
            (a, b, c, 1.0e16 + i as f64)
        })
        .collect();
    let mut in_bytes = Vec::new();
    for (w, x) in &input {
        in_bytes.extend(w.to_le_bytes());
        in_bytes.extend([0; 4]);
        in_bytes.extend(x.to_le_bytes());
    }
    let mut own_bytes = Vec::new();
    for (a, b, c, x) in &own {
        for w in [a, b, c] {
            own_bytes.extend(w.to_le_bytes());
        }
        own_bytes.extend([0; 4]);
        own_bytes.extend(x.to_le_bytes());
    }
    let manifest = format!(
        "block = [{threads}]\n\
         params = [{{ buffer = \"in\" }}, {{ buffer = \"own\" }}, {{ buffer = \"olds\" }}, {{ buffer = \"common\" }}]\n\
         [buffers.in]\nu8 = [{}]\n[buffers.own]\nu8 = [{}]\n[buffers.olds]\nsize = {}\n\
         [buffers.common]\nsize = 16\n",
        list(&in_bytes),
        list(&own_bytes),
        16 * threads
    );
    let p = run("atomhalf", &manifest);
    let after = words::<8>(&p, "own");
    let olds = words::<8>(&p, "olds");
    for t in 0..threads {
        let (w, x) = input[t];
        let (a, b, c, f) = own[t];
        let lo = |v: u32| v as u16;
        let hi = |v: u32| (v >> 16) as u16;
        let f16x2 = |p: u32, q: u32| {
            u32::from(add::<Half>(lo(p), lo(q))) | u32::from(add::<Half>(hi(p), hi(q))) << 16
        };
        let bf16x2 = |p: u32, q: u32| {
            u32::from(add::<BFloat>(lo(p), lo(q))) | u32::from(add::<BFloat>(hi(p), hi(q))) << 16
        };
        let guarded = t % 3 != 0;
        let new_a =
            u32::from(add::<Half>(lo(a), lo(w))) | u32::from(add::<BFloat>(hi(a), hi(w))) << 16;
        let want_f64 = if guarded { f + x } else { f };
        let word =
            |b: &[u8; 8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        let (o0, o1, o2) = (&after[3 * t], &after[3 * t + 1], &after[3 * t + 2]);
        assert_eq!(
            [word(o0, 0), word(o0, 1), word(o1, 0)],
            [new_a, f16x2(b, w), bf16x2(c, w)],
            "thread {t}"
        );
        assert_eq!(f64::from_le_bytes(*o2), want_f64, "thread {t}: f64");
        let (r0, r1) = (&olds[2 * t], &olds[2 * t + 1]);
        let old_f64 = if guarded { f.to_bits() } else { 0 };
        assert_eq!([word(r0, 0), word(r0, 1)], [a, b], "thread {t}: old values");
        assert_eq!(u64::from_le_bytes(*r1), old_f64, "thread {t}: old f64");
    }
    let common = words::<4>(&p, "common");
    let sum: f64 = (0..threads).filter(|&t| t != 5).map(|t| input[t].1).sum();
    let total = u64::from_le_bytes([common[0], common[1]].concat().try_into().unwrap());
    assert_eq!(f64::from_bits(total), sum);
    let n = f32::from(threads as u16);
    let half_of = |v: f32| {
        use rustc_apfloat::FloatConvert;
        let mut lost = false;
        let h: Half = rustc_apfloat::ieee::Single::from_bits(v.to_bits().into())
            .convert(&mut lost)
            .value;
        h.to_bits() as u32
    };
    assert_eq!(u32::from_le_bytes(common[2]), half_of(n) | half_of(n) << 16);
    assert_eq!(u32::from_le_bytes(common[3]) & 0xffff, n.to_bits() >> 16);
}

/// Addresses of local variables passed to called functions name the caller's variables
/// there (they are absolute, docs/isa.md): a generic pointer and a local-space one, read and
/// written by callees, and a device function passing its own local array's address on.
#[test]
fn local_addresses_passed_to_called_functions() {
    let p = run(
        "localptr",
        "block = [8]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 128\n",
    );
    let want: Vec<u32> = (0..8u32)
        .flat_map(|t| [t + 100, 4 * t + 100, 4 * t + 100, 3 * t + 300])
        .collect();
    assert_eq!(u32s(&p, "out"), want);
}

/// `.param` variables that are not one call's arguments in their own block: declared in an
/// outer block and passed by calls in inner ones, passed at different places of different
/// calls, in slots of two calls that overlap, and a 12-byte aggregate (storage of their own
/// in the frame, copied to and from the calls' slots).
#[test]
fn param_variables_passed_by_several_calls() {
    let p = run(
        "paramvars",
        "block = [8]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 128\n",
    );
    let want: Vec<u32> = (0..8u32)
        .flat_map(|t| {
            let r2 = if t < 4 { 10 * t + 7 } else { t + 1 };
            let r3 = 50 + t;
            [r2, r3, 6, t + 2 * r2 + 3 * r3]
        })
        .collect();
    assert_eq!(u32s(&p, "out"), want);
}

/// Spill slots of 64-bit values stay aligned below a 4-byte local variable (the spill area
/// starts 16-aligned): at a 16-register budget the kernel spills pairs, which trapped as
/// misaligned when the area started right after the variable.
#[test]
fn spills_stay_aligned_after_odd_sized_locals() {
    let (path, source) = common::kernel("oddlocal");
    let options = ptx_encoder::Options {
        max_registers: 16,
        ..Default::default()
    };
    let program = common::load_with(&source, &path, &options);
    let manifest = "block = [4]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 32\n";
    let p = common::run_program(&program, manifest, std::path::Path::new("."));
    let want: Vec<u64> = (0..4u64)
        .map(|t| t * (3 + 5 + 7 + 11 + 13 + 17 + 19 + 23) + 3 * t * 23 * t + t)
        .collect();
    assert_eq!(u64s(&p, "out"), want);
}

/// The addresses of a device function's parameters, read through with `ld.param`.
#[test]
fn addresses_of_function_parameters() {
    let p = run(
        "paramaddr",
        "block = [8]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 32\n",
    );
    let want: Vec<u32> = (0..8).map(|t| 100 - t).collect();
    assert_eq!(u32s(&p, "out"), want);
}

/// ex2.approx and tanh.approx on f16 and bf16 (and bf16x2), every 16-bit input: the f32
/// special function rounded to the narrow format, within one unit in its last place of
/// the exact value (f64 libm here, in the test only); NaN gives the canonical NaN,
/// infinities their limits, and bf16's `.ftz` flushes subnormal inputs and results.
#[test]
fn half_precision_special_functions() {
    use rustc_apfloat::ieee::{BFloat, Double, Half};
    use rustc_apfloat::{Float, FloatConvert, Round};
    fn narrow<T: Float>(x: f64) -> u16
    where
        Double: FloatConvert<T>,
    {
        let mut lost = false;
        let d = Double::from_bits(x.to_bits().into());
        d.convert_r(Round::NearestTiesToEven, &mut lost)
            .value
            .to_bits() as u16
    }
    fn widen<T: Float + FloatConvert<Double>>(bits: u16) -> f64 {
        let mut lost = false;
        let d: Double = T::from_bits(bits.into()).convert(&mut lost).value;
        f64::from_bits(d.to_bits() as u64)
    }
    let p = run(
        "halfapprox",
        "grid = [256]\nblock = [256]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 524288\n",
    );
    let out = words::<8>(&p, "out");
    let near = |got: u16, want: u16| {
        let nan = |b: u16, exponent: u16| b & 0x7fff > exponent;
        if got == want || (nan(want, 0x7c00) && got == 0x7fff) {
            return true;
        }
        // One step apart on the same side of zero.
        (got ^ want) & 0x8000 == 0 && got.abs_diff(want) == 1
    };
    for t in 0..=u16::MAX {
        let o = out[usize::from(t)];
        let got = |i: usize| u16::from_le_bytes([o[2 * i], o[2 * i + 1]]);
        let (h, b) = (widen::<Half>(t), widen::<BFloat>(t));
        let bf16_nan = t & 0x7fff > 0x7f80;
        let f16_nan = t & 0x7fff > 0x7c00;
        let checks = [
            (
                got(0),
                if f16_nan {
                    0x7fff
                } else {
                    narrow::<Half>(h.exp2())
                },
            ),
            (
                got(1),
                if f16_nan {
                    0x7fff
                } else {
                    narrow::<Half>(h.tanh())
                },
            ),
            (
                got(2),
                if bf16_nan {
                    0x7fff
                } else {
                    let x = if t & 0x7f80 == 0 { 0.0 } else { b };
                    let r = narrow::<BFloat>(x.exp2());
                    if r & 0x7f80 == 0 {
                        r & 0x8000
                    } else {
                        r
                    }
                },
            ),
            (
                got(3),
                if bf16_nan {
                    0x7fff
                } else {
                    narrow::<BFloat>(b.tanh())
                },
            ),
        ];
        for (i, (g, w)) in checks.into_iter().enumerate() {
            let nan_ok = (w == 0x7fff && g == 0x7fff) || near(g, w);
            assert!(
                nan_ok,
                "input {t:#06x}, result {i}: got {g:#06x}, want {w:#06x}"
            );
        }
    }
}
