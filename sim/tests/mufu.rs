//! The special function unit against the exact functions (the host's f64 library, used only
//! here: f64 is exact enough to measure f32 results).
//!
//! Every function's error is held to PTX's bound for it, over a stride through all 2^32 input
//! bit patterns and through the function's main range, with and without `.ftz`; special
//! values are checked bit for bit. `SGPU_MUFU_INPUTS=n` (best with `--release`) takes 2^n
//! inputs without `.ftz` instead of 2^19, 32 for every one; `--nocapture` shows the largest
//! errors (docs/mufu.md records them).

use sgpu_isa::Mufu;
use sgpu_sim::mufu::eval;

/// How PTX bounds a function's error.
#[derive(Clone, Copy, Debug)]
enum Bound {
    /// Units in the last place of the exact result.
    Ulp(f64),
    /// |result - exact| / |exact|.
    Relative(f64),
    /// |result - exact|.
    Absolute(f64),
    /// lg2: absolute in (0.5, 2), relative elsewhere.
    AbsoluteNearOne(f64),
}

struct Function {
    f: Mufu,
    exact: fn(f64) -> f64,
    bound: Bound,
    /// The inputs of the main range, as f32 bit patterns.
    main: std::ops::Range<u32>,
}

fn functions() -> [Function; 8] {
    let bits = |x: f32| x.to_bits();
    [
        Function {
            f: Mufu::Rcp,
            exact: |x| 1.0 / x,
            bound: Bound::Ulp(1.0),
            main: bits(1.0)..bits(2.0),
        },
        Function {
            f: Mufu::Sqrt,
            exact: f64::sqrt,
            bound: Bound::Relative(2f64.powf(-23.0)),
            main: bits(1.0)..bits(4.0),
        },
        Function {
            f: Mufu::Rsqrt,
            exact: |x| 1.0 / x.sqrt(),
            bound: Bound::Relative(2f64.powf(-22.9)),
            main: bits(1.0)..bits(4.0),
        },
        Function {
            f: Mufu::Ex2,
            exact: f64::exp2,
            bound: Bound::Ulp(2.0),
            main: bits(0.0)..bits(1.0),
        },
        Function {
            f: Mufu::Lg2,
            exact: f64::log2,
            bound: Bound::AbsoluteNearOne(2f64.powf(-22.0)),
            main: bits(0.5)..bits(2.0),
        },
        Function {
            f: Mufu::Sin,
            exact: f64::sin,
            bound: Bound::Absolute(2f64.powf(-20.9)),
            main: bits(0.0)..bits(std::f32::consts::PI),
        },
        Function {
            f: Mufu::Cos,
            exact: f64::cos,
            bound: Bound::Absolute(2f64.powf(-20.9)),
            main: bits(0.0)..bits(std::f32::consts::PI),
        },
        Function {
            f: Mufu::Tanh,
            exact: f64::tanh,
            bound: Bound::Relative(2f64.powf(-10.987)),
            main: bits(0.0)..bits(16.0),
        },
    ]
}

/// The unit in the last place of f32 at `v` (subnormal spacing below 2^-126).
fn ulp(v: f64) -> f64 {
    let exp = v.abs().log2().floor().clamp(-126.0, 127.0);
    2f64.powf(exp - 23.0)
}

/// The largest errors seen, and where.
#[derive(Clone, Copy, Default, Debug)]
struct Errors {
    ulp: (f64, u32),
    relative: (f64, u32),
    absolute: (f64, u32),
}

impl Errors {
    fn merge(&mut self, other: Errors) {
        for (mine, theirs) in [
            (&mut self.ulp, other.ulp),
            (&mut self.relative, other.relative),
            (&mut self.absolute, other.absolute),
        ] {
            if theirs.0 > mine.0 {
                *mine = theirs;
            }
        }
    }
}

/// Checks one input: special results exactly, finite ones within the bound. Returns the
/// errors of a finite result.
fn check(func: &Function, bits: u32, ftz: bool) -> Result<Errors, String> {
    let a = f32::from_bits(bits);
    let r = eval(func.f, a, ftz);
    let input = if ftz && a.is_subnormal() {
        0.0f32.copysign(a)
    } else {
        a
    };
    let exact = (func.exact)(f64::from(input));
    let fail = |why: &str| {
        Err(format!(
            "{:?}{} of {a:e} ({bits:#010x}) = {r:e} ({:#010x}), exact {exact:e}: {why}",
            func.f,
            if ftz { ".ftz" } else { "" },
            r.to_bits()
        ))
    };
    if exact.is_nan() || exact.is_infinite() || exact == 0.0 {
        let same = if exact.is_nan() {
            r.to_bits() == 0x7fff_ffff
        } else {
            r.to_bits() == (exact as f32).to_bits()
        };
        return if same {
            Ok(Errors::default())
        } else {
            fail("special value")
        };
    }
    if r.is_nan() {
        return fail("NaN");
    }
    if ftz && r == 0.0 && exact.abs() < f64::from(f32::MIN_POSITIVE) * (1.0 + 1e-6) {
        return Ok(Errors::default());
    }
    // Infinity stands for 2^128, the first value f32 cannot hold, and so does any larger
    // exact value: overflowing to infinity is no error.
    let overflow = 2f64.powi(128);
    let got = if r.is_infinite() {
        overflow.copysign(f64::from(r))
    } else {
        f64::from(r)
    };
    let exact = exact.clamp(-overflow, overflow);
    let err = (got - exact).abs();
    let errors = Errors {
        ulp: (err / ulp(exact), bits),
        relative: (err / exact.abs(), bits),
        absolute: (err, bits),
    };
    let within = match func.bound {
        Bound::Ulp(b) => errors.ulp.0 <= b,
        Bound::Relative(b) => errors.relative.0 <= b,
        Bound::Absolute(b) => errors.absolute.0 <= b,
        Bound::AbsoluteNearOne(b) if input > 0.5 && input < 2.0 => errors.absolute.0 <= b,
        Bound::AbsoluteNearOne(b) => errors.relative.0 <= b,
    };
    if within {
        Ok(errors)
    } else {
        fail(&format!("beyond {:?}", func.bound))
    }
}

/// Checks the inputs `start, start + step, ...` below `end` on every core, returning the
/// largest errors or the first failures.
fn sweep(func: &Function, start: u64, end: u64, step: u64, ftz: bool) -> Errors {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let count = (end - start).div_ceil(step);
    let per = count.div_ceil(threads);
    let results: Vec<Result<Errors, Vec<String>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let mut max = Errors::default();
                    let mut failures = Vec::new();
                    let first = start + t * per * step;
                    let last = (first + per * step).min(end);
                    for bits in (first..last).step_by(step as usize) {
                        match check(func, bits as u32, ftz) {
                            Ok(e) => max.merge(e),
                            Err(why) if failures.len() < 10 => failures.push(why),
                            Err(_) => {}
                        }
                    }
                    if failures.is_empty() {
                        Ok(max)
                    } else {
                        Err(failures)
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut max = Errors::default();
    for r in results {
        match r {
            Ok(e) => max.merge(e),
            Err(failures) => panic!("{}", failures.join("\n")),
        }
    }
    max
}

/// log2 of the inputs a sweep takes: `SGPU_MUFU_INPUTS` (32 takes every input), else 19.
fn inputs_log2() -> u32 {
    std::env::var("SGPU_MUFU_INPUTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(19, |n: u32| n.min(32))
}

fn report(func: &Function, what: &str, e: Errors) {
    let show = |(v, bits): (f64, u32)| format!("{v:.3e} at {:e}", f32::from_bits(bits));
    eprintln!(
        "{:?} {what}: {:.3} ulp at {:e}; relative {} (2^{:.2}); absolute {} (2^{:.2})",
        func.f,
        e.ulp.0,
        f32::from_bits(e.ulp.1),
        show(e.relative),
        e.relative.0.log2(),
        show(e.absolute),
        e.absolute.0.log2(),
    );
}

#[test]
fn every_function_within_its_bound() {
    // Odd steps reach every exponent and every low bit pattern: 2^n inputs over all of them
    // and 2^(n-2) in the main range. With `.ftz` (which changes only subnormals) n stays 19.
    let step = |len: u64, ftz: bool| {
        let n = if ftz { 19 } else { inputs_log2() };
        (len >> n) | 1
    };
    for func in functions() {
        let (start, end) = (u64::from(func.main.start), u64::from(func.main.end));
        for ftz in [false, true] {
            let all = sweep(&func, 0, 1 << 32, step(1 << 32, ftz), ftz);
            let main = sweep(&func, start, end, step((end - start) << 2, ftz), ftz);
            if !ftz {
                report(&func, "all inputs", all);
                report(&func, "main range", main);
            }
        }
    }
}

/// 2^n, for any n f32 holds (`f32::powi` loses the subnormals).
fn pow2(n: i32) -> f32 {
    2f64.powi(n) as f32
}

/// `(function, input, ftz, expected)` with `expected` compared bit for bit.
fn special_values() -> Vec<(Mufu, f32, bool, f32)> {
    use Mufu::*;
    // The canonical NaN, which every NaN result is (docs/float.md).
    let (inf, nan, tiny) = (
        f32::INFINITY,
        f32::from_bits(0x7fff_ffff),
        f32::from_bits(1),
    );
    let min = f32::MIN_POSITIVE;
    let mut cases = Vec::new();
    for ftz in [false, true] {
        let flushed = |x: f32, zero: f32| if ftz { zero } else { x };
        cases.extend([
            (Rcp, 0.0, ftz, inf),
            (Rcp, -0.0, ftz, -inf),
            (Rcp, inf, ftz, 0.0),
            (Rcp, -inf, ftz, -0.0),
            (Rcp, nan, ftz, nan),
            (Rcp, -tiny, ftz, -inf),
            (Rcp, pow2(-127), ftz, flushed(pow2(127), inf)),
            (Rcp, -pow2(127), ftz, flushed(-pow2(-127), -0.0)),
            (Sqrt, 0.0, ftz, 0.0),
            (Sqrt, -0.0, ftz, -0.0),
            (Sqrt, inf, ftz, inf),
            (Sqrt, -inf, ftz, nan),
            (Sqrt, -1.0, ftz, nan),
            (Sqrt, -tiny, ftz, flushed(nan, -0.0)),
            (Sqrt, pow2(-148), ftz, flushed(pow2(-74), 0.0)),
            (Rsqrt, 0.0, ftz, inf),
            (Rsqrt, -0.0, ftz, -inf),
            (Rsqrt, inf, ftz, 0.0),
            (Rsqrt, -inf, ftz, nan),
            (Rsqrt, -4.0, ftz, nan),
            (Rsqrt, pow2(-148), ftz, flushed(pow2(74), inf)),
            (Ex2, 0.0, ftz, 1.0),
            (Ex2, -0.0, ftz, 1.0),
            (Ex2, inf, ftz, inf),
            (Ex2, -inf, ftz, 0.0),
            (Ex2, nan, ftz, nan),
            (Ex2, -tiny, ftz, 1.0),
            (Ex2, 128.0, ftz, inf),
            (Ex2, 1e30, ftz, inf),
            (Ex2, -1e30, ftz, 0.0),
            (Ex2, -149.0, ftz, flushed(tiny, 0.0)),
            (Ex2, -126.0, ftz, min),
            (Lg2, 0.0, ftz, -inf),
            (Lg2, -0.0, ftz, -inf),
            (Lg2, inf, ftz, inf),
            (Lg2, -inf, ftz, nan),
            (Lg2, -1.0, ftz, nan),
            (Lg2, nan, ftz, nan),
            (Lg2, 1.0, ftz, 0.0),
            (Lg2, tiny, ftz, flushed(-149.0, -inf)),
            (Sin, 0.0, ftz, 0.0),
            (Sin, -0.0, ftz, -0.0),
            (Sin, inf, ftz, nan),
            (Sin, -inf, ftz, nan),
            (Sin, nan, ftz, nan),
            (Sin, -tiny, ftz, flushed(-tiny, -0.0)),
            (Cos, 0.0, ftz, 1.0),
            (Cos, -0.0, ftz, 1.0),
            (Cos, inf, ftz, nan),
            (Cos, nan, ftz, nan),
            (Cos, tiny, ftz, 1.0),
            (Tanh, 0.0, ftz, 0.0),
            (Tanh, -0.0, ftz, -0.0),
            (Tanh, inf, ftz, 1.0),
            (Tanh, -inf, ftz, -1.0),
            (Tanh, nan, ftz, nan),
            (Tanh, 20.0, ftz, 1.0),
            (Tanh, -tiny, ftz, flushed(-tiny, -0.0)),
        ]);
    }
    cases
}

#[test]
fn special_values_exactly() {
    for (f, a, ftz, want) in special_values() {
        let got = eval(f, a, ftz);
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "{f:?} of {a:e} (ftz {ftz}): {got:e}, want {want:e}"
        );
    }
}

#[test]
fn powers_of_two_exactly() {
    for n in -126..128 {
        let x = pow2(n);
        assert_eq!(eval(Mufu::Rcp, x, false), pow2(-n), "rcp 2^{n}");
        assert_eq!(eval(Mufu::Lg2, x, false), n as f32, "lg2 2^{n}");
        assert_eq!(eval(Mufu::Ex2, n as f32, false), x, "ex2 {n}");
        if n % 2 == 0 {
            assert_eq!(eval(Mufu::Sqrt, x, false), pow2(n / 2), "sqrt 2^{n}");
            assert_eq!(eval(Mufu::Rsqrt, x, false), pow2(-n / 2), "rsqrt 2^{n}");
        }
    }
}

#[test]
fn odd_and_even_symmetry() {
    for bits in (0x0080_0000..0x7f80_0000u32).step_by(99_991) {
        let x = f32::from_bits(bits);
        for f in [Mufu::Sin, Mufu::Tanh] {
            assert_eq!(eval(f, -x, false), -eval(f, x, false), "{f:?} of ±{x:e}");
        }
        assert_eq!(
            eval(Mufu::Cos, -x, false),
            eval(Mufu::Cos, x, false),
            "cos ±{x:e}"
        );
        assert_eq!(
            eval(Mufu::Rcp, -x, false),
            -eval(Mufu::Rcp, x, false),
            "rcp ±{x:e}"
        );
    }
}
